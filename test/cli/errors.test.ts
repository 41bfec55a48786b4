/** Bad files on the command line: a coded error on stderr and the documented exit code, never "internal error". */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureDataset } from '../helpers/datasets.js';
import { ROOT, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'dk-cli-errors-'));
const cli = (...args: string[]) => runCli(args);
const spec = join(dir, 'spec.json');
const truncated = join(dir, 'truncated.dkds');
const badPbf = join(dir, 'bad.osm.pbf');

beforeAll(async () => {
  writeFileSync(spec, JSON.stringify({ StartLocation: { LatLong: { Latitude: 43.73, Longitude: 7.42 } }, FinishLocation: { LatLong: { Latitude: 43.74, Longitude: 7.43 } } }));
  const { buffer } = await fixtureDataset('monaco');
  writeFileSync(truncated, new Uint8Array(buffer).subarray(0, Math.floor(buffer.byteLength / 3)));
  const pbf = readFileSync(join(ROOT, 'fixtures/monaco-latest.osm.pbf'));
  writeFileSync(badPbf, pbf.subarray(0, Math.floor(pbf.length / 2)));
});

function expectCoded(r: ReturnType<typeof cli>, code: string, exit: number): void {
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.stderr).toContain(`error [${code}]`);
  expect(r.status).toBe(exit);
}

describe('CLI errors for bad files', () => {
  it('a truncated dataset is DatasetFormat (exit 1)', () => expectCoded(cli('distance', '--data', truncated, spec), 'DatasetFormat', 1));
  it('a directory as the dataset is InvalidInput (exit 2)', () => {
    expectCoded(cli('distance', '--data', dir, spec), 'InvalidInput', 2);
    expectCoded(cli('geocode', '--data', dir, spec), 'InvalidInput', 2);
  });
  it('a missing or cut instance file is InvalidInput (exit 2)', () => {
    expectCoded(cli('solve', join(dir, 'none.txt')), 'InvalidInput', 2);
    const cut = join(dir, 'c101.txt');
    writeFileSync(cut, readFileSync(join(ROOT, 'fixtures/vrp/C101.txt'), 'utf8').slice(0, 700) + 'x y z\n');
    expectCoded(cli('solve', cut, '--iterations', '1', '--workers', '1'), 'InvalidInput', 2);
  });
  it('a truncated extract is InvalidInput naming the file (exit 2)', () => {
    const r = cli('build', badPbf, '-o', join(dir, 'out.dkds'), '--quiet');
    expectCoded(r, 'InvalidInput', 2);
    expect(r.stderr).toContain('bad.osm.pbf');
  });
});
