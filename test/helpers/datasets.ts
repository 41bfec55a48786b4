/**
 * Datasets from the committed fixtures, once per test process: read from the files the global
 * setup built for this run (test/setup/datasets.ts), or built here when there are none.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { buildDataset } from '../../src/dataset/build.js';
import { Dataset } from '../../src/dataset/dataset.js';
import { FIXTURE_PBF } from './fixtures.js';

const cache = new Map<string, Promise<{ dataset: Dataset; buffer: ArrayBufferLike }>>();

export const FIXTURE = FIXTURE_PBF;

/** The path of the run's prebuilt dataset, if the global setup made one. */
function prebuilt(name: string): string | undefined {
  try {
    return inject('fixtureDatasets')?.[name];
  } catch {
    return undefined; // not under vitest's runner
  }
}

export function fixtureDataset(name: keyof typeof FIXTURE): Promise<{ dataset: Dataset; buffer: ArrayBufferLike }> {
  let p = cache.get(name);
  if (!p) {
    p = (async () => {
      const path = prebuilt(name);
      let buffer: ArrayBufferLike;
      if (path) {
        const bytes = readFileSync(path);
        buffer = new SharedArrayBuffer(bytes.byteLength);
        new Uint8Array(buffer).set(bytes);
      } else {
        const { writer } = await buildDataset(readFileSync(FIXTURE[name]), { name });
        buffer = writer.toBuffer(true);
      }
      return { dataset: Dataset.fromBuffer(buffer), buffer };
    })();
    cache.set(name, p);
  }
  return p;
}

const files = new Map<string, Promise<string>>();

/** A fixture dataset written to a temporary `.dkds` file (once per test process), for the CLI tests. */
export function fixtureDatasetFile(name: keyof typeof FIXTURE): Promise<string> {
  let p = files.get(name);
  if (!p) {
    p = (async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'dk-fixture-')), `${name}.dkds`);
      writeFileSync(path, new Uint8Array((await fixtureDataset(name)).buffer));
      return path;
    })();
    files.set(name, p);
  }
  return p;
}
