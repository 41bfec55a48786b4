/**
 * Reader for the ngraph.path.demo binary road graphs (e.g. `moscow-roads.co.bin` / `.gr.bin`).
 *
 *  `*.co.bin`: little-endian Int32 `x, y` per node (projected units, about metres); node id = index + 1.
 *  `*.gr.bin`: little-endian Int32 `from, to` pairs, 1-based, undirected.
 *
 * Each edge record becomes two arcs, `from→to` (id 2k) and `to→from` (id 2k+1), with
 * weight = `Math.round(Math.hypot(dx, dy))` — RoutingKit's protocol (`llround(hypot)`), so the
 * graph is identical to the one its figures were measured on.
 */
import { readFileSync } from 'node:fs';
import { EngineError } from '../../core/errors.js';
import type { ArcGraph } from './arcs.js';

export interface NgraphGraph extends ArcGraph {
  /** Projected x of each node (0-based). */
  x: Int32Array;
  /** Projected y of each node (0-based). */
  y: Int32Array;
}

function int32View(bytes: Uint8Array, name: string): Int32Array {
  if (bytes.byteLength % 8 !== 0) throw new EngineError('InvalidInput', `${name}: length ${bytes.byteLength} is not a multiple of 8 (pairs of Int32).`, { path: name });
  // Copy into an aligned buffer (Buffer pool slices may be unaligned); little-endian hosts only.
  const out = new Int32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** Builds the arc graph from the raw bytes of the two files. */
export function parseNgraph(coBytes: Uint8Array, grBytes: Uint8Array, names: { co?: string; gr?: string } = {}): NgraphGraph {
  const coName = names.co ?? 'co.bin';
  const grName = names.gr ?? 'gr.bin';
  const co = int32View(coBytes, coName);
  const gr = int32View(grBytes, grName);
  const n = co.length / 2;
  const x = new Int32Array(n);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = co[2 * i];
    y[i] = co[2 * i + 1];
  }
  const e = gr.length / 2;
  const tail = new Uint32Array(2 * e);
  const head = new Uint32Array(2 * e);
  const weight = new Uint32Array(2 * e);
  for (let k = 0; k < e; k++) {
    const u = gr[2 * k] - 1;
    const v = gr[2 * k + 1] - 1;
    if (u < 0 || u >= n || v < 0 || v >= n) throw new EngineError('InvalidInput', `${grName}: edge ${k} (${u + 1}, ${v + 1}) has a node id outside 1..${n}.`, { path: grName });
    const w = Math.round(Math.hypot(x[v] - x[u], y[v] - y[u]));
    tail[2 * k] = u;
    head[2 * k] = v;
    weight[2 * k] = w;
    tail[2 * k + 1] = v;
    head[2 * k + 1] = u;
    weight[2 * k + 1] = w;
  }
  return { numNodes: n, tail, head, weight, x, y };
}

/** Reads `<base>.co.bin` and `<base>.gr.bin` (give both paths). */
export function readNgraph(coPath: string, grPath: string): NgraphGraph {
  return parseNgraph(readFileSync(coPath), readFileSync(grPath), { co: coPath, gr: grPath });
}
