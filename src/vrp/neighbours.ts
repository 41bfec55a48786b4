/**
 * Granular neighbourhoods: for each job, its k most "correlated" jobs. Correlation is the
 * objective's arc cost plus, when time windows matter, penalties for the waiting and the
 * lateness that visiting one right after the other would cause (Vidal et al. 2013's measure,
 * the smaller of both directions). Time penalties are converted to cost units with the
 * matrices' mean cost/time ratio. O(J²) time (each unordered pair once), O(J·k) memory; no J×J
 * arrays.
 */
import { cancelledError } from '../core/cancel.js';
import type { Problem } from './model.js';
import { BIG, UNREACHABLE } from './model.js';

export interface Neighbours {
  k: number;
  /** list[u*k .. u*k+k-1]: neighbours of u, closest first (-1 padding when fewer jobs). */
  list: Int32Array;
}

/**
 * The neighbour lists of every job. `cancelled` (optional) is read between blocks of rows (O(J²)
 * takes seconds at 10,000 jobs): once it says so, Cancelled is thrown.
 */
export function buildNeighbours(pb: Problem, k: number, excluded?: Uint8Array, cancelled?: () => boolean): Neighbours {
  const J = pb.J;
  k = Math.max(1, Math.min(k, Math.max(1, J - 1)));
  const list = new Int32Array(J * k).fill(-1);
  const C = pb.cost[0];
  const T = pb.time[0];
  // cost per time unit, for the time-window terms
  let sc = 0;
  let st = 0;
  const step = Math.max(1, Math.floor(J / 200));
  for (let a = 0; a < J; a += step) for (let b = 0; b < J; b += step) {
    const c = C[pb.outRow[a] + pb.inPl[b]];
    const t = T[pb.outRow[a] + pb.inPl[b]];
    if (c < UNREACHABLE && t < UNREACHABLE) { sc += c; st += t; }
  }
  const ratio = st > 0 ? sc / st : 1;
  const useTime = pb.hasTime;
  // an imported binding read in the loop can cost a getter call (CommonJS-style transforms such as tsx's in worker threads)
  const big = BIG;
  const gWT = 0.2 * ratio;
  const gTW = 1.0 * ratio;
  // locals, not property loads, in the O(J²) loop (the problem object's shape varies between threads)
  const nE = pb.nE, nL = pb.nL, nD = pb.nD, outRow = pb.outRow, inPl = pb.inPl;
  // Each unordered pair once: blocks of jobs against blocks (upper triangle), the correlation (the
  // smaller of both directions) offered to both jobs' bounded max-heaps of their k best so far,
  // ordered by (correlation, id) as the lists are. Blocks keep the matrix reads contiguous.
  const hk = new Float64Array(J * k);
  const hi = new Int32Array(J * k);
  const hn = new Int32Array(J);
  /** (p1, v1) ranks after (p2, v2): a larger correlation, or equal and a larger id. */
  const gt = (p1: number, v1: number, p2: number, v2: number): boolean => p1 > p2 || (p1 === p2 && v1 > v2);
  /** Offers v (correlation p) to u's heap of its k best: a max-heap on (p, id), the worst at the root. */
  const offer = (u: number, p: number, v: number): void => {
    const o = u * k;
    const n = hn[u];
    let c: number;
    if (n < k) {
      c = n;
      hn[u] = n + 1;
      while (c > 0) {
        const par = (c - 1) >> 1;
        if (!gt(p, v, hk[o + par], hi[o + par])) break;
        hk[o + c] = hk[o + par]; hi[o + c] = hi[o + par];
        c = par;
      }
    } else {
      c = 0;
      for (;;) {
        const l = 2 * c + 1;
        if (l >= n) break;
        const r = l + 1;
        const m = r < n && gt(hk[o + r], hi[o + r], hk[o + l], hi[o + l]) ? r : l;
        if (!gt(hk[o + m], hi[o + m], p, v)) break;
        hk[o + c] = hk[o + m]; hi[o + c] = hi[o + m];
        c = m;
      }
    }
    hk[o + c] = p; hi[o + c] = v;
  };
  /** Whether (p, v) would enter u's heap (not full, or better than the worst kept at its root). */
  const wanted = (u: number, p: number, v: number): boolean => {
    if (hn[u] < k) return true;
    const w = hk[u * k];
    return p < w || (p === w && v < hi[u * k]);
  };
  const B = 128;
  for (let u0 = 0; u0 < J; u0 += B) {
    if (cancelled?.()) throw cancelledError();
    const u1 = Math.min(J, u0 + B);
    for (let v0 = u0; v0 < J; v0 += B) {
      const v1 = Math.min(J, v0 + B);
      for (let u = u0; u < u1; u++) {
        if (excluded && excluded[u]) continue;
        const rowU = outRow[u], inU = inPl[u];
        const eu = nE[u], lu = nL[u], du = nD[u];
        for (let v = v0 === u0 ? u + 1 : v0; v < v1; v++) {
          if (excluded && excluded[v]) continue;
          const uv = rowU + inPl[v], vu = outRow[v] + inU;
          let a = C[uv], b = C[vu];
          if (useTime) {
            const ev = nE[v], lv = nL[v], dv = nD[v];
            // u then v: waiting for v's opening, or v's closing missed
            if (lu < big && ev > -big) { const w = ev - du - T[uv] - lu; if (w > 0) a += gWT * w; }
            if (eu > -big && lv < big) { const tw = eu + du + T[uv] - lv; if (tw > 0) a += gTW * tw; }
            // v then u
            if (lv < big && eu > -big) { const w = eu - dv - T[vu] - lv; if (w > 0) b += gWT * w; }
            if (ev > -big && lu < big) { const tw = ev + dv + T[vu] - lu; if (tw > 0) b += gTW * tw; }
          }
          const p = a < b ? a : b;
          if (wanted(u, p, v)) offer(u, p, v);
          if (wanted(v, p, u)) offer(v, p, u);
        }
      }
    }
  }
  for (let u = 0; u < J; u++) {
    const n = hn[u], o = u * k;
    const order = Array.from({ length: n }, (_, x) => x).sort((x, y) => hk[o + x] - hk[o + y] || hi[o + x] - hi[o + y]);
    for (let x = 0; x < n; x++) list[o + x] = hi[o + order[x]];
  }
  return { k, list };
}
