/**
 * Readers for the 9th DIMACS Implementation Challenge shortest-path formats.
 *
 *  `.gr`:  `c` comment lines, one `p sp <nodes> <arcs>` line, then `a <u> <v> <w>` lines (1-based ids).
 *  `.co`:  `p aux sp co <nodes>`, then `v <id> <x> <y>` lines (DIMACS convention: x = lon·1e6, y = lat·1e6).
 *
 * Every arc line is kept (duplicates and loops too: the kernels reduce them), in file order, so
 * arc id = index of the `a` line. Parsing works on the raw bytes (no per-line strings).
 */
import { readFileSync } from 'node:fs';
import { EngineError } from '../../core/errors.js';
import type { ArcGraph } from './arcs.js';

/** A byte cursor that reads whitespace-separated tokens and integers. */
class Cursor {
  i = 0;
  line = 1;
  constructor(readonly b: Uint8Array, readonly path: string) {}

  /** Skips spaces/tabs/CR (not newlines). */
  skipBlanks(): void {
    const b = this.b;
    let i = this.i;
    while (i < b.length && (b[i] === 32 || b[i] === 9 || b[i] === 13)) i++;
    this.i = i;
  }

  skipLine(): void {
    const b = this.b;
    let i = this.i;
    while (i < b.length && b[i] !== 10) i++;
    if (i < b.length) {
      i++;
      this.line++;
    }
    this.i = i;
  }

  int(what: string): number {
    this.skipBlanks();
    const b = this.b;
    let i = this.i;
    let neg = false;
    if (b[i] === 45) {
      neg = true;
      i++;
    }
    const start = i;
    let v = 0;
    while (i < b.length) {
      const c = b[i] - 48;
      if (c < 0 || c > 9) break;
      v = v * 10 + c;
      i++;
    }
    if (i === start) throw new EngineError('InvalidInput', `${this.path}:${this.line}: expected ${what}.`, { path: this.path });
    this.i = i;
    return neg ? -v : v;
  }

  word(): string {
    this.skipBlanks();
    const b = this.b;
    const s = this.i;
    let i = s;
    while (i < b.length && b[i] > 32) i++;
    this.i = i;
    let w = '';
    for (let k = s; k < i; k++) w += String.fromCharCode(b[k]);
    return w;
  }
}

function bytesOf(src: string | Uint8Array, isPath: boolean): Uint8Array {
  if (typeof src !== 'string') return src;
  return isPath ? readFileSync(src) : new TextEncoder().encode(src);
}

/** Parses DIMACS `.gr` text (bytes or string). */
export function parseDimacsGr(src: string | Uint8Array, name = 'input.gr'): ArcGraph {
  const c = new Cursor(bytesOf(src, false), name);
  const b = c.b;
  let n = -1;
  let m = -1;
  let tail = new Uint32Array(0);
  let head = new Uint32Array(0);
  let weight = new Uint32Array(0);
  let k = 0;
  while (c.i < b.length) {
    c.skipBlanks();
    const ch = b[c.i];
    if (ch === 97 /* a */) {
      c.i++;
      if (n < 0) throw new EngineError('InvalidInput', `${name}:${c.line}: arc line before the "p sp" line.`, { path: name });
      const u = c.int('tail id');
      const v = c.int('head id');
      const w = c.int('weight');
      if (u < 1 || u > n || v < 1 || v > n) throw new EngineError('InvalidInput', `${name}:${c.line}: node id out of 1..${n}.`, { path: name });
      if (w < 0 || w > 0xffffffff) throw new EngineError('InvalidInput', `${name}:${c.line}: weight ${w} is not a 32-bit unsigned integer.`, { path: name });
      if (k === tail.length) {
        const cap = Math.max(16, k * 2);
        const t2 = new Uint32Array(cap); t2.set(tail); tail = t2;
        const h2 = new Uint32Array(cap); h2.set(head); head = h2;
        const w2 = new Uint32Array(cap); w2.set(weight); weight = w2;
      }
      tail[k] = u - 1;
      head[k] = v - 1;
      weight[k] = w;
      k++;
      c.skipLine();
    } else if (ch === 112 /* p */) {
      c.i++;
      const kind = c.word();
      if (kind !== 'sp') throw new EngineError('InvalidInput', `${name}:${c.line}: expected "p sp <nodes> <arcs>", got "p ${kind}".`, { path: name });
      n = c.int('node count');
      m = c.int('arc count');
      tail = new Uint32Array(m);
      head = new Uint32Array(m);
      weight = new Uint32Array(m);
      c.skipLine();
    } else {
      c.skipLine(); // comments, blank lines
    }
  }
  if (n < 0) throw new EngineError('InvalidInput', `${name}: no "p sp" line.`, { path: name });
  if (k !== tail.length) {
    tail = tail.slice(0, k);
    head = head.slice(0, k);
    weight = weight.slice(0, k);
  }
  return { numNodes: n, tail, head, weight };
}

/** Reads a DIMACS `.gr` file. */
export function readDimacsGr(path: string): ArcGraph {
  return parseDimacsGr(readFileSync(path), path);
}

export interface DimacsCoordinates {
  numNodes: number;
  /** Raw integer x per node (0-based node id). DIMACS convention: longitude · 1e6. */
  x: Int32Array;
  /** Raw integer y per node. DIMACS convention: latitude · 1e6. */
  y: Int32Array;
}

/** Parses DIMACS `.co` text. */
export function parseDimacsCo(src: string | Uint8Array, name = 'input.co'): DimacsCoordinates {
  const c = new Cursor(bytesOf(src, false), name);
  const b = c.b;
  let n = -1;
  let x = new Int32Array(0);
  let y = new Int32Array(0);
  while (c.i < b.length) {
    c.skipBlanks();
    const ch = b[c.i];
    if (ch === 118 /* v */) {
      c.i++;
      if (n < 0) throw new EngineError('InvalidInput', `${name}:${c.line}: "v" line before the "p" line.`, { path: name });
      const id = c.int('node id');
      if (id < 1 || id > n) throw new EngineError('InvalidInput', `${name}:${c.line}: node id out of 1..${n}.`, { path: name });
      x[id - 1] = c.int('x');
      y[id - 1] = c.int('y');
      c.skipLine();
    } else if (ch === 112 /* p */) {
      c.i++;
      // "p aux sp co <n>": the count is the last token of the line.
      let last = -1;
      for (;;) {
        c.skipBlanks();
        if (c.i >= b.length || b[c.i] === 10) break;
        const w = c.word();
        if (/^\d+$/.test(w)) last = Number(w);
      }
      if (last < 0) throw new EngineError('InvalidInput', `${name}:${c.line}: "p" line without a node count.`, { path: name });
      n = last;
      x = new Int32Array(n);
      y = new Int32Array(n);
      c.skipLine();
    } else {
      c.skipLine();
    }
  }
  if (n < 0) throw new EngineError('InvalidInput', `${name}: no "p" line.`, { path: name });
  return { numNodes: n, x, y };
}

/** Reads a DIMACS `.co` file. */
export function readDimacsCo(path: string): DimacsCoordinates {
  return parseDimacsCo(readFileSync(path), path);
}

/** Degrees from DIMACS micro-degree coordinates (x = lon·1e6, y = lat·1e6). */
export function dimacsLatLon(co: DimacsCoordinates): { lat: Float64Array; lon: Float64Array } {
  const lat = new Float64Array(co.numNodes);
  const lon = new Float64Array(co.numNodes);
  for (let i = 0; i < co.numNodes; i++) {
    lat[i] = co.y[i] / 1e6;
    lon[i] = co.x[i] / 1e6;
  }
  return { lat, lon };
}
