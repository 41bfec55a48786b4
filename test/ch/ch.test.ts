import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildContractionHierarchy, buildContractionHierarchyWithStats, ChQuery, ContractionHierarchy, ORIGINAL } from '../../src/ch/index.js';
import { Dijkstra } from '../../src/graph/dijkstra.js';
import { readDimacsGr } from '../../src/graph/formats/dimacs.js';
import type { ArcGraph } from '../../src/graph/formats/arcs.js';
import { BinFile, BinWriter } from '../../src/core/binfile.js';
import { EngineError } from '../../src/core/errors.js';
import { Rng } from '../../src/core/rng.js';
import { allPairs, arbGraph, walkSums } from './random-graph.js';

/** Every pair's query on `got` answers as on `want`: distance, node and arc paths, aux where a path is found. */
function expectSameAnswers(got: ContractionHierarchy, want: ContractionHierarchy): void {
  const q = new ChQuery(got);
  const q0 = new ChQuery(want);
  for (let s = 0; s < want.numNodes; s++) {
    for (let t = 0; t < want.numNodes; t++) {
      q.reset().addSource(s).addTarget(t).run();
      q0.reset().addSource(s).addTarget(t).run();
      expect(q.distance()).toBe(q0.distance());
      expect(q.nodePath()).toEqual(q0.nodePath());
      expect(q.arcPath()).toEqual(q0.arcPath());
      if (q0.distance() < Infinity) expect(q.aux()).toBe(q0.aux());
    }
  }
}

const ROME = new URL('../../fixtures/rome99.gr', import.meta.url).pathname;

/** Every pair: CH distance = Dijkstra; the unpacked path is a connected s→t walk of that cost; aux = its aux sum. */
function checkAllPairs(g: ArcGraph, ch: ContractionHierarchy): void {
  const n = g.numNodes;
  const truth = allPairs(g);
  const q = new ChQuery(ch);
  for (let s = 0; s < n; s++) {
    for (let t = 0; t < n; t++) {
      q.reset().addSource(s).addTarget(t).run();
      const d = q.distance();
      expect(d, `${s}->${t}`).toBe(truth[s * n + t]);
      if (d === Infinity) {
        expect(q.arcPath()).toEqual([]);
        expect(q.nodePath()).toEqual([]);
        continue;
      }
      const path = q.arcPath();
      const sums = walkSums(g, s, t, path);
      expect(sums.weight).toBe(d);
      expect(q.aux()).toBe(sums.aux);
      const nodes = q.nodePath();
      expect(nodes.length).toBe(path.length + 1);
      expect(nodes[0]).toBe(s);
      for (let i = 0; i < path.length; i++) expect(nodes[i + 1]).toBe(g.head[path[i]]);
    }
  }
}

describe('contraction hierarchy: random graphs', () => {
  it('equals Dijkstra for all pairs, with valid unpacked paths and aux (zero weights, loops, parallel arcs, one-ways, disconnected parts)', () => {
    fc.assert(fc.property(arbGraph(), (g) => {
      const ch = buildContractionHierarchy(g);
      ch.validate();
      checkAllPairs(g, ch);
    }), { seed: 20240601, numRuns: 250 });
  });

  it('stays exact with tiny witness limits (more shortcuts), without the cache order, and with other update policies', () => {
    fc.assert(fc.property(arbGraph({ maxNodes: 12, maxArcs: 36 }), fc.constantFrom(
      { witnessSettleLimit: 1, simulateSettleLimit: 1 },
      { cacheOrder: false },
      { lazyUpdates: false, neighbourUpdates: true, deletedCoeff: 500 },
      { lazyUpdates: true, neighbourUpdates: true },
      { levelCoeff: 0, hopCoeff: 0 },
    ), (g, opts) => {
      const ch = buildContractionHierarchy(g, opts);
      ch.validate();
      checkAllPairs(g, ch);
    }), { seed: 99, numRuns: 150 });
  });

  it('multi-entry sources/targets with costs: distance = min over entry pairs; path and aux include the used entries', () => {
    const entryArb = fc.array(fc.tuple(fc.nat(), fc.nat(20), fc.nat(20)), { minLength: 1, maxLength: 3 });
    fc.assert(fc.property(arbGraph(), entryArb, entryArb, (g, srcRaw, tgtRaw) => {
      const n = g.numNodes;
      const truth = allPairs(g);
      // Effective entry per node: the first of least cost (what the query keeps).
      const eff = (raw: [number, number, number][]): Map<number, [number, number]> => {
        const m = new Map<number, [number, number]>();
        for (const [v0, c, a] of raw) {
          const v = v0 % n;
          const cur = m.get(v);
          if (!cur || c < cur[0]) m.set(v, [c, a]);
        }
        return m;
      };
      const S = eff(srcRaw);
      const T = eff(tgtRaw);
      let best = Infinity;
      for (const [s, [cs]] of S) for (const [t, [ct]] of T) best = Math.min(best, cs + truth[s * n + t] + ct);
      const ch = buildContractionHierarchy(g);
      const q = new ChQuery(ch).reset();
      for (const [v0, c, a] of srcRaw) q.addSource(v0 % n, c, a);
      for (const [v0, c, a] of tgtRaw) q.addTarget(v0 % n, c, a);
      q.run();
      expect(q.distance()).toBe(best);
      if (best === Infinity) return;
      const s = q.usedSource();
      const t = q.usedTarget();
      const [cs, as] = S.get(s)!;
      const [ct, at] = T.get(t)!;
      const sums = walkSums(g, s, t, q.arcPath());
      expect(cs + sums.weight + ct).toBe(best);
      expect(q.aux()).toBe(as + sums.aux + at);
    }), { seed: 5, numRuns: 250 });
  });

  it('round-trips through BinWriter/BinFile sections (zero-copy views) with identical answers', () => {
    fc.assert(fc.property(arbGraph(), (g) => {
      const ch = buildContractionHierarchy(g);
      const w = new BinWriter(0x43480001, 1);
      ch.toSections(w, 'ch.time.');
      const buf = w.toBuffer(true);
      const back = ContractionHierarchy.fromSections(BinFile.from(buf), 'ch.time.');
      expect(back.rank.buffer).toBe(buf);
      expect(back.numNodes).toBe(ch.numNodes);
      expect(back.hasAux).toBe(ch.hasAux);
      for (const side of ['fwd', 'bwd'] as const) {
        for (const k of ['firstOut', 'head', 'weight', 'aux', 'unpack'] as const) {
          expect(Array.from(back[side][k])).toEqual(Array.from(ch[side][k]));
        }
      }
      expect(Array.from(back.shortcuts)).toEqual(Array.from(ch.shortcuts));
      back.validate();
      expectSameAnswers(back, ch);
    }), { seed: 3, numRuns: 60 });
  });
});

describe('contraction hierarchy: ties and path walking', () => {
  /** A w×h grid, both directions, unit weights: very many equal shortest paths (ties everywhere). */
  function grid(w: number, h: number, weight = 1): ArcGraph {
    const tail: number[] = [];
    const head: number[] = [];
    const add = (a: number, b: number): void => { tail.push(a, b); head.push(b, a); };
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        if (x + 1 < w) add(y * w + x, y * w + x + 1);
        if (y + 1 < h) add(y * w + x, (y + 1) * w + x);
      }
    }
    return {
      numNodes: w * h,
      tail: Uint32Array.from(tail),
      head: Uint32Array.from(head),
      weight: new Uint32Array(tail.length).fill(weight),
      aux: Uint32Array.from(tail, (_, i) => (i * 37) % 11),
    };
  }

  it('a unit grid (ties everywhere): every pair exact, paths walk the search trees to connected walks of that cost', () => {
    for (const [w, h] of [[7, 6], [12, 3], [1, 9]] as const) {
      const g = grid(w, h);
      const ch = buildContractionHierarchy(g);
      ch.validate();
      checkAllPairs(g, ch);
    }
  });

  it('a zero-weight grid: every distance 0, paths still connect (predecessors never loop)', () => {
    const g = grid(5, 5, 0);
    checkAllPairs(g, buildContractionHierarchy(g));
  });

  it('nodePathInto writes what nodePath returns, without allocating an array; too short a buffer gives -1', () => {
    const g = readDimacsGr(ROME);
    const ch = buildContractionHierarchy(g);
    const q = new ChQuery(ch);
    const rng = new Rng(11);
    const buf = new Uint32Array(4096);
    for (let i = 0; i < 300; i++) {
      const s = rng.int(g.numNodes);
      const t = rng.int(g.numNodes);
      q.reset().addSource(s).addTarget(t).run();
      const want = q.nodePath();
      const len = q.nodePathInto(buf);
      expect(len).toBe(want.length);
      expect(Array.from(buf.subarray(0, len))).toEqual(want);
      if (want.length > 1) expect(q.nodePathInto(new Uint32Array(want.length - 1))).toBe(-1);
    }
    q.reset().addSource(0).run(); // no target: nothing found
    expect(q.nodePathInto(buf)).toBe(0);
  });

  it('answers do not depend on the order queries run in (reset leaves no state behind)', () => {
    const g = readDimacsGr(ROME);
    const ch = buildContractionHierarchy(g);
    const rng = new Rng(5);
    const pairs = Array.from({ length: 400 }, () => [rng.int(g.numNodes), rng.int(g.numNodes)] as const);
    const q1 = new ChQuery(ch);
    const first = pairs.map(([s, t]) => { q1.reset().addSource(s).addTarget(t).run(); return [q1.distance(), q1.nodePath().join(',')]; });
    const q2 = new ChQuery(ch);
    for (let i = pairs.length - 1; i >= 0; i--) {
      const [s, t] = pairs[i];
      q2.reset().addSource(s).addTarget(t).run();
      expect([q2.distance(), q2.nodePath().join(',')]).toEqual(first[i]);
    }
  });
});

describe('contraction hierarchy: persisted format', () => {
  /**
   * The v2 unpack words of a v3 hierarchy: per arc [input arc id, ORIGINAL + input head] or
   * [bwd arc u→v, fwd arc v→w] (arc indices at the middle node).
   */
  function toV2(ch: ContractionHierarchy): { f: Uint32Array; b: Uint32Array } {
    const { fwd, bwd, rank, order, shortcuts: sc } = ch;
    const at = (s: typeof fwd, x: number, h: number): number => {
      for (let a = s.firstOut[x]; a < s.firstOut[x + 1]; a++) if (s.head[a] === h) return a;
      throw new Error('half not found');
    };
    const conv = (s: typeof fwd, isFwd: boolean): Uint32Array => {
      const out = new Uint32Array(2 * s.head.length);
      for (let x = 0; x < ch.numNodes; x++) {
        for (let a = s.firstOut[x]; a < s.firstOut[x + 1]; a++) {
          const y = s.head[a];
          const r = s.unpack[a];
          if (r >= ORIGINAL) {
            out[2 * a] = r - ORIGINAL;
            out[2 * a + 1] = ORIGINAL + order[isFwd ? y : x];
            continue;
          }
          const v = rank[sc[3 * r + 2]];
          out[2 * a] = at(bwd, v, isFwd ? x : y);
          out[2 * a + 1] = at(fwd, v, isFwd ? y : x);
        }
      }
      return out;
    };
    return { f: conv(fwd, true), b: conv(bwd, false) };
  }

  /** `ch` written as a version 2 file and opened again (converted on open). */
  function reopenedAsV2(ch: ContractionHierarchy): ContractionHierarchy {
    const v2 = toV2(ch);
    const w = new BinWriter(0x43480001, 1);
    w.addJson('c.meta', { version: 2, numNodes: ch.numNodes, numInputArcs: ch.numInputArcs, hasAux: ch.hasAux });
    w.add('c.rank', ch.rank);
    w.add('c.order', ch.order);
    for (const [tag, side, u] of [['f', ch.fwd, v2.f], ['b', ch.bwd, v2.b]] as const) {
      w.add(`c.${tag}.first`, side.firstOut);
      w.add(`c.${tag}.head`, side.head);
      w.add(`c.${tag}.w`, side.weight);
      w.add(`c.${tag}.aux`, side.aux);
      w.add(`c.${tag}.unpack`, u);
    }
    return ContractionHierarchy.fromSections(BinFile.from(w.toBuffer(true)), 'c.');
  }

  it('opens version 2 files (two-word unpack entries), converting them: same answers and paths', () => {
    fc.assert(fc.property(arbGraph(), (g) => {
      const ch = buildContractionHierarchy(g);
      const back = reopenedAsV2(ch);
      back.validate();
      expect(Array.from(back.fwd.unpack)).toEqual(Array.from(ch.fwd.unpack));
      expect(Array.from(back.bwd.unpack)).toEqual(Array.from(ch.bwd.unpack));
      expect(Array.from(back.shortcuts)).toEqual(Array.from(ch.shortcuts));
      expectSameAnswers(back, ch);
    }), { seed: 8, numRuns: 60 });
  });

  it('converts a version 2 file of a real graph to the layout a build writes (rome99): the same table, the same answers', () => {
    const ch = buildContractionHierarchy(readDimacsGr(ROME));
    const back = reopenedAsV2(ch);
    expect(back.numShortcuts).toBeGreaterThan(1000);
    expect(Array.from(back.shortcuts)).toEqual(Array.from(ch.shortcuts));
    expect(Array.from(back.fwd.unpack)).toEqual(Array.from(ch.fwd.unpack));
    const q = new ChQuery(back);
    const q0 = new ChQuery(ch);
    const rng = new Rng(7);
    for (let i = 0; i < 300; i++) {
      const s = rng.int(ch.numNodes);
      const t = rng.int(ch.numNodes);
      q.reset().addSource(s).addTarget(t).run();
      q0.reset().addSource(s).addTarget(t).run();
      expect(q.distance()).toBe(q0.distance());
      expect(q.nodePath()).toEqual(q0.nodePath());
    }
  });

  it('lays the shortcut entries out depth first: a first half not placed before its shortcut follows it', () => {
    const ch = buildContractionHierarchy(readDimacsGr(ROME));
    const sc = ch.shortcuts;
    let next = 0;
    let shortcutHalves = 0;
    for (let e = 0; e < ch.numShortcuts; e++) {
      const a = sc[3 * e];
      if (a >= ORIGINAL) continue;
      shortcutHalves++;
      if (a === e + 1) next++;
      else expect(a, `entry ${e}`).toBeLessThan(e);
      // middle nodes strictly decrease down the halves (what loading checks)
      expect(ch.rank[sc[3 * a + 2]]).toBeLessThan(ch.rank[sc[3 * e + 2]]);
    }
    expect(next).toBeGreaterThan(shortcutHalves / 2);
  });

  it('validate() catches a shortcut entry whose middle node or halves were changed; checkShape() a forward reference', () => {
    const g = readDimacsGr(ROME);
    const ch = buildContractionHierarchy(g);
    const sc = ch.shortcuts;
    const e = 0; // the first entry: the highest middle node, its halves are shortcuts laid out after it
    for (const k of [0, 1, 2]) {
      const keep = sc[3 * e + k];
      sc[3 * e + k] = k === 2 ? ch.order[0] : keep ^ 1;
      expect(() => ch.validate(), `word ${k}`).toThrow(/invariant|damaged/);
      sc[3 * e + k] = keep;
    }
    ch.validate();
    let r = 0;
    while (sc[3 * r] >= ORIGINAL) r++; // an entry whose first half is a shortcut
    const keep = sc[3 * r];
    sc[3 * r] = r; // refers to itself: unpacking would not end
    expect(() => ch.checkShape()).toThrow(/damaged/);
    sc[3 * r] = keep;
  });
});

describe('contraction hierarchy: rome99', () => {
  const g = readDimacsGr(ROME);
  // A second metric to carry along: a deterministic pseudo-random value per arc.
  g.aux = Uint32Array.from(g.weight, (_, i) => (i * 7919) % 1000);
  const { ch, stats } = buildContractionHierarchyWithStats(g);

  it('builds a valid hierarchy', () => {
    ch.validate();
    expect(stats.normalizedArcs).toBe(8859);
    expect(ch.numArcs).toBe(stats.chArcs);
    expect(ch.numArcs).toBeLessThan(3 * stats.normalizedArcs);
  });

  it('equals Dijkstra on 3,000 random pairs; paths connect, sum to the distance and give the aux', () => {
    const rng = new Rng(1999);
    const d = new Dijkstra(g);
    const q = new ChQuery(ch);
    let checked = 0;
    for (let i = 0; i < 3000; i++) {
      const s = rng.int(g.numNodes);
      const t = rng.int(g.numNodes);
      const want = d.oneToOne(s, t);
      q.reset().addSource(s).addTarget(t).run();
      expect(q.distance()).toBe(want);
      const sums = walkSums(g, s, t, q.arcPath());
      expect(sums.weight).toBe(want);
      expect(q.aux()).toBe(sums.aux);
      checked++;
    }
    expect(checked).toBe(3000);
  });

  it('equals one-to-all Dijkstra for every target of 20 sources', () => {
    const rng = new Rng(7);
    const d = new Dijkstra(g);
    const q = new ChQuery(ch);
    for (let i = 0; i < 20; i++) {
      const s = rng.int(g.numNodes);
      const all = d.oneToAll(s);
      for (let t = 0; t < g.numNodes; t++) {
        q.reset().addSource(s).addTarget(t).run();
        if (q.distance() !== all[t]) expect(q.distance(), `${s}->${t}`).toBe(all[t]);
      }
    }
  });
});

describe('contraction hierarchy: API edges', () => {
  const g: ArcGraph = {
    numNodes: 4,
    tail: Uint32Array.from([0, 1, 2]),
    head: Uint32Array.from([1, 2, 0]),
    weight: Uint32Array.from([1, 2, 3]),
  };

  it('works without aux (aux() sums entry aux only)', () => {
    const ch = buildContractionHierarchy(g);
    expect(ch.hasAux).toBe(false);
    const q = new ChQuery(ch);
    q.reset().addSource(0, 0, 5).addTarget(2, 0, 7).run();
    expect(q.distance()).toBe(3);
    expect(q.aux()).toBe(12);
    expect(q.arcPath()).toEqual([0, 1]);
    expect(q.nodePath()).toEqual([0, 1, 2]);
    q.reset().addSource(3).addTarget(0).run();
    expect(q.distance()).toBe(Infinity);
    expect(q.found()).toBe(false);
    expect(Number.isNaN(q.aux())).toBe(true);
  });

  it('costs are int32: a fractional or too large entry cost is refused, a path reaching 2^31 − 1 is TooBig unless a cheaper one exists', () => {
    const q = new ChQuery(buildContractionHierarchy(g));
    expect(() => q.reset().addSource(0, 0.5)).toThrow(expect.objectContaining({ code: 'InvalidInput' }));
    expect(() => q.reset().addSource(0, 0x7fffffff)).toThrow(expect.objectContaining({ code: 'InvalidInput' }));
    // 0x7ffffffb + 1 + 2 = 2^31 − 2: the largest cost a path may have
    q.reset().addSource(0, 0x7ffffffb).addTarget(2).run();
    expect(q.distance()).toBe(0x7ffffffe);
    expect(q.nodePath()).toEqual([0, 1, 2]);
    expect(() => q.reset().addSource(0, 0x7ffffffc).addTarget(2).run()).toThrow(expect.objectContaining({ code: 'TooBig' }));
    expect(q.found()).toBe(false);
    // the same sum dropped, but a cheaper path found: the answer stands
    q.reset().addSource(0, 0x7ffffffc).addSource(1, 4).addTarget(2).run();
    expect(q.distance()).toBe(6);
    expect(q.usedSource()).toBe(1);
    // no path at all stays "not found", not TooBig
    q.reset().addSource(3, 0x7ffffffe).addTarget(0).run();
    expect(q.distance()).toBe(Infinity);
  });

  it('source = target gives cost 0 and an empty path', () => {
    const q = new ChQuery(buildContractionHierarchy(g));
    q.reset().addSource(1).addTarget(1).run();
    expect(q.distance()).toBe(0);
    expect(q.arcPath()).toEqual([]);
    expect(q.nodePath()).toEqual([1]);
  });

  it('rejects bad input with InvalidInput', () => {
    const q = new ChQuery(buildContractionHierarchy(g));
    expect(() => q.reset().addSource(4)).toThrow(EngineError);
    expect(() => q.reset().addSource(0, -1)).toThrow(/non-negative/);
    expect(() => buildContractionHierarchy({ ...g, head: Uint32Array.from([1, 9, 0]) })).toThrow(/outside/);
    expect(() => buildContractionHierarchy({ ...g, weight: Uint32Array.from([1, 0xffffffff, 3]) })).toThrow(/weight/);
    q.reset().addSource(0).addTarget(1).run();
    expect(() => q.addSource(2)).toThrow(/reset/);
  });

  it('build honours an aborted signal and reports progress', () => {
    const ctl = new AbortController();
    ctl.abort();
    const big = readDimacsGr(ROME);
    const err = (() => { try { buildContractionHierarchy(big, { signal: ctl.signal }); } catch (e) { return e; } })() as EngineError;
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('Cancelled');
    const phases: number[] = [];
    buildContractionHierarchy(big, { onProgress: (e) => phases.push(e.done) });
    expect(phases.length).toBeGreaterThan(1);
    expect(phases[phases.length - 1]).toBe(big.numNodes);
  });
});
