/**
 * Third-party browser code the page loads from the package (no CDN), other than Leaflet (served
 * from its own dist folder): supercluster (Vladimir Agafonkin / Mapbox, ISC), which clusters the
 * map's markers past a few hundred (ui/cluster.js). Its npm package is an ES module importing
 * `kdbush` by a bare name a browser cannot resolve, and its `dist/` build is UMD; the page gets
 * that UMD build wrapped as one ES module (`export default Supercluster`), headed by the licences
 * of supercluster and of kdbush (bundled in it), as both licences ask of every copy.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** A package's folder, its version and licence text. */
function pkg(name: string, from: NodeJS.Require = require): { dir: string; version: string; license: string } {
  // `exports` hides package.json: the folder is found from the package's entry
  let dir = dirname(from.resolve(name));
  while (!readDir(join(dir, 'package.json'), name)) dir = dirname(dir);
  const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  return { dir, version: meta.version, license: readFileSync(join(dir, 'LICENSE'), 'utf8').trim() };
}

function readDir(path: string, name: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { name?: string }).name === name;
  } catch {
    return false;
  }
}

const comment = (s: string): string => s.replace(/\*\//g, '* /');

/** supercluster's UMD build as an ES module (the default export is the Supercluster class), licences first. */
export function superclusterModule(): string {
  const sc = pkg('supercluster');
  const kd = pkg('kdbush', createRequire(join(sc.dir, 'package.json')));
  const umd = readFileSync(join(sc.dir, 'dist', 'supercluster.min.js'), 'utf8');
  return [
    `/*! supercluster ${sc.version} — https://github.com/mapbox/supercluster\n${comment(sc.license)}\n*/`,
    `/*! kdbush ${kd.version} (bundled in supercluster) — https://github.com/mourner/kdbush\n${comment(kd.license)}\n*/`,
    '// The UMD build run with a CommonJS-like module object of its own: no global is set.',
    'const module = { exports: {} };',
    `(function (exports, module, define) {\n${umd}\n}).call(undefined, module.exports, module, undefined);`,
    'export default module.exports;',
    '',
  ].join('\n');
}
