/**
 * The layering rule of docs/ARCHITECTURE.md, as data, and a checker over the source tree: each
 * top-level part of `src/` may import only the parts listed for it. Kernels know nothing of
 * records, operations, threads, the engine, servers or the CLI.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const KERNELS = ['core', 'osm', 'graph', 'ch', 'matrix', 'route', 'vrp', 'geocode', 'dataset', 'render'];

/**
 * The order among kernels: each may import only those before it in its own line of descent
 * (no cycles). core is the root; the road network grows osm → graph → ch → matrix; the geocoder
 * stands on osm; routes on the network and the geocoder; the solver on core alone; maps on the
 * graph; the dataset file gathers them.
 */
export const KERNEL_ORDER: Record<string, readonly string[]> = {
  core: [],
  osm: ['core'],
  graph: ['core', 'osm'],
  ch: ['core', 'osm', 'graph'],
  matrix: ['core', 'osm', 'graph', 'ch'],
  geocode: ['core', 'osm'],
  route: ['core', 'osm', 'graph', 'ch', 'matrix', 'geocode'],
  vrp: ['core'],
  render: ['core', 'osm', 'graph'],
  dataset: ['core', 'osm', 'graph', 'ch', 'matrix', 'route', 'geocode'],
};

/** Part → the parts it may import (itself always allowed). */
export const ALLOWED: Record<string, readonly string[]> = {
  ...KERNEL_ORDER,
  records: ['core'],
  ops: [...KERNELS, 'records'],
  workers: [...KERNELS, 'records', 'ops'],
  store: ['core', 'records'],
  'engine.ts': [...KERNELS, 'records', 'ops', 'workers'],
  service: [...KERNELS, 'records', 'ops', 'workers', 'store', 'engine.ts'],
  // faces stay faces: the service, its records and core only (no engine, store or kernel data)
  server: ['core', 'records', 'service'],
  cli: [...KERNELS, 'records', 'ops', 'workers', 'store', 'service', 'server', 'engine.ts'],
  'index.ts': [...KERNELS, 'records', 'ops', 'workers', 'store', 'service', 'server', 'engine.ts'],
};

/** Packages that mean threads: only `workers/` (and what sits above it) may import them. */
export const THREAD_PACKAGES = ['piscina', 'node:worker_threads', 'worker_threads'];
const THREAD_FREE = new Set([...KERNELS, 'records', 'ops']);

export interface Violation {
  file: string;
  line: number;
  imports: string;
  from: string;
  to: string;
}

const IMPORT_RE = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The part of `src/` a path belongs to: its first directory, or the file itself at the top. */
export function partOf(srcRoot: string, file: string): string {
  const rel = relative(srcRoot, file);
  return rel.split(sep)[0];
}

/** Checks one file's text; `file` is its path (for resolving relative imports). */
export function checkSource(srcRoot: string, file: string, text: string): Violation[] {
  const from = partOf(srcRoot, file);
  const allowed = ALLOWED[from];
  const out: Violation[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith('.')) {
      if (THREAD_FREE.has(from) && THREAD_PACKAGES.includes(spec)) {
        out.push({ file: relative(srcRoot, file), line: text.slice(0, m.index).split('\n').length + (m[0].startsWith('\n') ? 1 : 0), imports: spec, from, to: spec });
      }
      continue; // other packages and node: built-ins
    }
    const target = resolve(dirname(file), spec);
    if (!target.startsWith(srcRoot + sep)) continue;
    const to = partOf(srcRoot, target.replace(/\.js$/, '.ts'));
    if (to === from) continue;
    if (!allowed || !allowed.includes(to)) {
      const line = text.slice(0, m.index).split('\n').length + (m[0].startsWith('\n') ? 1 : 0);
      out.push({ file: relative(srcRoot, file), line, imports: spec, from, to });
    }
  }
  return out;
}

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out.sort();
}

export function checkTree(srcRoot: string): { files: number; parts: Set<string>; violations: Violation[] } {
  const files = sourceFiles(srcRoot);
  const violations: Violation[] = [];
  const parts = new Set<string>();
  for (const f of files) {
    parts.add(partOf(srcRoot, f));
    violations.push(...checkSource(srcRoot, f, readFileSync(f, 'utf8')));
  }
  return { files: files.length, parts, violations };
}
