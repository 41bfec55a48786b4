import { describe, expect, it } from 'vitest';
import { buildCsr, normalizeArcs, validateArcGraph, type ArcGraph } from '../../src/graph/formats/arcs.js';
import { dimacsLatLon, parseDimacsCo, parseDimacsGr, readDimacsGr } from '../../src/graph/formats/dimacs.js';
import { parseNgraph } from '../../src/graph/formats/ngraph.js';
import { EngineError } from '../../src/core/errors.js';

const ROME = new URL('../../fixtures/rome99.gr', import.meta.url).pathname;

describe('DIMACS .gr', () => {
  it('parses header, comments and arcs (1-based → 0-based), keeping duplicates in file order', () => {
    const g = parseDimacsGr('c hello\np sp 3 4\n\na 1 2 5\r\na 2 3 7\na 1 2 3\nc mid\na 3 3 1\n');
    expect(g.numNodes).toBe(3);
    expect(Array.from(g.tail)).toEqual([0, 1, 0, 2]);
    expect(Array.from(g.head)).toEqual([1, 2, 1, 2]);
    expect(Array.from(g.weight)).toEqual([5, 7, 3, 1]);
  });

  it('reads the rome99 fixture', () => {
    const g = readDimacsGr(ROME);
    expect(g.numNodes).toBe(3353);
    expect(g.tail.length).toBe(8870);
    for (let a = 0; a < g.tail.length; a++) expect(g.weight[a]).toBeGreaterThan(0);
  });

  it('rejects arcs before the header and ids out of range, with the line number', () => {
    expect(() => parseDimacsGr('a 1 2 3\n')).toThrow(/before the "p sp" line/);
    const err = (() => { try { parseDimacsGr('p sp 2 1\na 1 3 4\n', 'x.gr'); } catch (e) { return e; } })() as EngineError;
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('InvalidInput');
    expect(err.message).toMatch(/x\.gr:2/);
    expect(() => parseDimacsGr('c only comments\n')).toThrow(/no "p sp" line/);
    expect(() => parseDimacsGr('p max 2 1\n')).toThrow(/expected "p sp/);
  });
});

describe('DIMACS .co', () => {
  it('parses coordinates (negative too) and converts micro-degrees', () => {
    const co = parseDimacsCo('c x\np aux sp co 2\nv 2 -8640505 41165981\nv 1 100 -200\n');
    expect(co.numNodes).toBe(2);
    expect(Array.from(co.x)).toEqual([100, -8640505]);
    expect(Array.from(co.y)).toEqual([-200, 41165981]);
    const { lat, lon } = dimacsLatLon(co);
    expect(lat[1]).toBeCloseTo(41.165981, 9);
    expect(lon[1]).toBeCloseTo(-8.640505, 9);
  });
});

describe('ngraph .co.bin / .gr.bin', () => {
  it('builds both directions with Math.round(hypot) weights (RoutingKit protocol)', () => {
    const co = new Int32Array([0, 0, 3, 4, 3, 5, -1, -1]);
    const gr = new Int32Array([1, 2, 2, 3, 4, 1]);
    const g = parseNgraph(new Uint8Array(co.buffer), new Uint8Array(gr.buffer));
    expect(g.numNodes).toBe(4);
    expect(Array.from(g.tail)).toEqual([0, 1, 1, 2, 3, 0]);
    expect(Array.from(g.head)).toEqual([1, 0, 2, 1, 0, 3]);
    expect(Array.from(g.weight)).toEqual([5, 5, 1, 1, 1, 1]); // hypot(1,1) = 1.414 → 1
    expect(Array.from(g.x)).toEqual([0, 3, 3, -1]);
  });

  it('rejects bad lengths and ids', () => {
    expect(() => parseNgraph(new Uint8Array(6), new Uint8Array(8))).toThrow(/multiple of 8/);
    const co = new Int32Array([0, 0]);
    const gr = new Int32Array([1, 2]);
    expect(() => parseNgraph(new Uint8Array(co.buffer), new Uint8Array(gr.buffer))).toThrow(/outside 1\.\.1/);
  });
});

describe('arc normalisation', () => {
  const g: ArcGraph = {
    numNodes: 3,
    tail: Uint32Array.from([0, 0, 1, 0, 2, 0, 1]),
    head: Uint32Array.from([1, 1, 2, 1, 2, 2, 0]),
    weight: Uint32Array.from([5, 3, 4, 3, 1, 9, 2]),
  };

  it('drops loops, keeps the cheapest parallel arc (ties: lower id), sorted by (tail, head)', () => {
    expect(Array.from(normalizeArcs(g))).toEqual([1, 5, 6, 2]);
  });

  it('builds forward and reverse CSR with input arc ids', () => {
    const f = buildCsr(g);
    expect(Array.from(f.firstOut)).toEqual([0, 2, 4, 4]);
    expect(Array.from(f.adj)).toEqual([1, 2, 0, 2]);
    expect(Array.from(f.arcId)).toEqual([1, 5, 6, 2]);
    const r = buildCsr(g, { reverse: true });
    expect(Array.from(r.firstOut)).toEqual([0, 1, 2, 4]);
    expect(Array.from(r.adj)).toEqual([1, 0, 0, 1]);
  });

  it('validates array lengths and node ids', () => {
    expect(() => validateArcGraph({ ...g, head: new Uint32Array(2) })).toThrow(/same length/);
    expect(() => validateArcGraph({ ...g, numNodes: 2 })).toThrow(/outside 0\.\.1/);
  });
});
