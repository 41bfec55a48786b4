/**
 * vitest globalSetup (vitest.config.ts): the fixture datasets (test/helpers/datasets.ts) built once
 * per run, in vitest's main process, from the committed extracts with this tree's builder, and
 * written to a temporary directory; each test process reads them (`inject('fixtureDatasets')`)
 * instead of building its own (a second or two per file, over fifty files). A test process that
 * finds no path builds as before.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildDataset } from '../../src/dataset/build.js';
import { FIXTURE_PBF } from '../helpers/fixtures.js';

declare module 'vitest' {
  export interface ProvidedContext {
    fixtureDatasets: Record<string, string>;
  }
}

const BUILT = Symbol.for('dispatchkit.test.fixtureDatasets');
type Holder = { [BUILT]?: Promise<{ dir: string; paths: Record<string, string> }> };

export default async function setup(project: TestProject): Promise<() => void> {
  const holder = globalThis as Holder;
  // the setup runs for the root and each project, each with its own copy of this module
  const first = holder[BUILT] === undefined;
  holder[BUILT] ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dk-fixtures-'));
    const paths: Record<string, string> = {};
    for (const [name, pbf] of Object.entries(FIXTURE_PBF)) {
      const { writer } = await buildDataset(readFileSync(pbf), { name });
      paths[name] = join(dir, `${name}.dkds`);
      writeFileSync(paths[name], new Uint8Array(writer.toBuffer(true)));
    }
    return { dir, paths };
  })();
  const { dir, paths } = await holder[BUILT];
  project.provide('fixtureDatasets', paths);
  return () => { if (first) rmSync(dir, { recursive: true, force: true }); };
}
