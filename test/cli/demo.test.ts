/** `dispatchkit demo` (the console demo; `npm start` now serves the page) answers every sample request on the Monaco dataset. */
import { copyFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoDataset } from '../../src/cli/commands/demo.js';
import { Engine } from '../../src/engine.js';
import { fixtureDatasetFile } from '../helpers/datasets.js';
import { runCli } from '../helpers/cli.js';

let data: string;

beforeAll(async () => {
  data = await fixtureDatasetFile('monaco');
});

describe('dispatchkit demo', () => {
  it('prints a distance, a full matrix, geocodes, a feasible dispatch and directions with a map', () => {
    const r = runCli(['demo', '--data', data]);
    expect(r.status).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/"Status":"Success"/);
    // 7×7 matrix: a lettered header and seven rows with a zero diagonal.
    const header = out.split('\n').find((l) => /^\s+A\s+B\s+C\s+D\s+E\s+F\s+G\s*$/.test(l));
    expect(header).toBeDefined();
    const rows = out.split('\n').filter((l) => /^[A-G]  \S/.test(l));
    expect(rows).toHaveLength(7);
    rows.forEach((row, i) => {
      const cells = row.trim().split(/\s+/).slice(-7).map(Number);
      expect(cells[i]).toBe(0);
      expect(cells.every((c) => Number.isFinite(c) && c >= 0)).toBe(true);
    });
    expect(out).toMatch(/Dispatch: .* → Success/);
    // Directions with a map written to the file it names.
    expect(out).toMatch(/CalculateRoute: Casino de Monte-Carlo → Jardin Exotique → Success/);
    expect(out).toMatch(/^\s+1\. Head \w+ on /m);
    expect(out).toMatch(/You have arrived at your destination/);
    const mapLine = /Map of the route \(SVG, offline\): (\S+)/.exec(out);
    expect(mapLine).not.toBeNull();
    const svg = readFileSync(mapLine![1], 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('© OpenStreetMap contributors');
  });

  it('keeps a demo dataset this version reads, and builds again one written in another format (a checkout updated in place)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dk-demo-'));
    const path = join(dir, 'monaco-latest.dkds');
    copyFileSync(data, path);
    const kept = statSync(path).mtimeMs;
    expect(await ensureDemoDataset(true, dir)).toBe(path);
    expect(statSync(path).mtimeMs).toBe(kept);
    // a file this version refuses (DatasetFormat): here, one that is not a dataset at all
    writeFileSync(path, Buffer.alloc(4096, 7));
    expect(await ensureDemoDataset(true, dir)).toBe(path);
    const engine = await Engine.open(path, { offload: false });
    try {
      expect(engine.dataset.meta.counts.nodes).toBeGreaterThan(1000);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
