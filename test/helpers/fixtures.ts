/** The committed extracts the fixture datasets are built from (test/helpers/datasets.ts, test/setup/datasets.ts). */
export const FIXTURE_PBF = {
  monaco: new URL('../../fixtures/monaco-latest.osm.pbf', import.meta.url).pathname,
  andorra: new URL('../../fixtures/andorra.osm.pbf', import.meta.url).pathname,
};
