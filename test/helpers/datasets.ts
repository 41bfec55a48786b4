/** Builds (once per test process) datasets from the committed fixtures. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDataset } from '../../src/dataset/build.js';
import { Dataset } from '../../src/dataset/dataset.js';

const cache = new Map<string, Promise<{ dataset: Dataset; buffer: ArrayBufferLike }>>();

export const FIXTURE = {
  monaco: new URL('../../fixtures/monaco-latest.osm.pbf', import.meta.url).pathname,
  andorra: new URL('../../fixtures/andorra.osm.pbf', import.meta.url).pathname,
};

export function fixtureDataset(name: keyof typeof FIXTURE): Promise<{ dataset: Dataset; buffer: ArrayBufferLike }> {
  let p = cache.get(name);
  if (!p) {
    p = (async () => {
      const { writer } = await buildDataset(readFileSync(FIXTURE[name]), { name });
      const buffer = writer.toBuffer(true);
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
