/** Granular neighbour lists equal a plain reference: every other job by (correlation, id), the k first. */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { BIG, buildProblem } from '../../src/vrp/model.js';
import { buildNeighbours } from '../../src/vrp/neighbours.js';
import { randomInstance } from './gen.js';

describe('neighbour lists', () => {
  it('equal the reference on random instances (windows, excluded jobs, k ≥ J)', () => {
    const rng = new Rng(2);
    for (let seed = 1; seed <= 40; seed++) {
      const pb = buildProblem(randomInstance(700 + seed, { stops: [5, 300] }));
      const J = pb.J;
      const excluded = new Uint8Array(J);
      for (let u = 0; u < J; u++) if (rng.chance(0.1)) excluded[u] = 1;
      const k = [1, 8, 40, J + 5][seed % 4];
      const nb = buildNeighbours(pb, k, excluded);
      // the reference: the same correlation, written out
      const C = pb.cost[0], T = pb.time[0];
      let sc = 0, st = 0;
      const step = Math.max(1, Math.floor(J / 200));
      for (let a = 0; a < J; a += step) for (let b = 0; b < J; b += step) {
        const c = C[pb.outRow[a] + pb.inPl[b]], t = T[pb.outRow[a] + pb.inPl[b]];
        if (c < 1e9 && t < 1e9) { sc += c; st += t; }
      }
      const ratio = st > 0 ? sc / st : 1;
      const dir = (a: number, b: number): number => {
        const ab = pb.outRow[a] + pb.inPl[b];
        let p = C[ab];
        if (pb.hasTime) {
          const t = T[ab];
          if (pb.nL[a] < BIG && pb.nE[b] > -BIG) p += 0.2 * ratio * Math.max(0, pb.nE[b] - pb.nD[a] - t - pb.nL[a]);
          if (pb.nE[a] > -BIG && pb.nL[b] < BIG) p += ratio * Math.max(0, pb.nE[a] + pb.nD[a] + t - pb.nL[b]);
        }
        return p;
      };
      const kk = nb.k;
      for (let u = 0; u < J; u++) {
        const got = Array.from(nb.list.subarray(u * kk, u * kk + kk)).filter((x) => x >= 0);
        if (excluded[u]) { expect(got).toEqual([]); continue; }
        const want = Array.from({ length: J }, (_, v) => v).filter((v) => v !== u && !excluded[v])
          .map((v) => ({ v, p: Math.min(dir(u, v), dir(v, u)) }))
          .sort((x, y) => x.p - y.p || x.v - y.v).slice(0, kk).map((x) => x.v);
        expect(got).toEqual(want);
      }
    }
  });
});
