/**
 * Granular neighbourhoods: for each job, its k most "correlated" jobs. Correlation is the
 * objective's arc cost plus, when time windows matter, penalties for the waiting and the
 * lateness that visiting one right after the other would cause (Vidal et al. 2013's measure,
 * the smaller of both directions). Time penalties are converted to cost units with the
 * matrices' mean cost/time ratio. O(J²) time, O(J·k) memory; no J×J arrays.
 */
import type { Problem } from './model.js';
import { BIG, UNREACHABLE } from './model.js';

export interface Neighbours {
  k: number;
  /** list[u*k .. u*k+k-1]: neighbours of u, closest first (-1 padding when fewer jobs). */
  list: Int32Array;
}

export function buildNeighbours(pb: Problem, k: number, excluded?: Uint8Array): Neighbours {
  const J = pb.J;
  k = Math.max(1, Math.min(k, Math.max(1, J - 1)));
  const list = new Int32Array(J * k).fill(-1);
  const C = pb.cost[0];
  const T = pb.time[0];
  const N = pb.N;
  const NN = J + 2 * pb.V;
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
  const gWT = 0.2 * ratio;
  const gTW = 1.0 * ratio;
  const prox = new Float64Array(J);
  const idx = new Int32Array(J);
  const nE = pb.nE, nL = pb.nL, nD = pb.nD;
  const dir = (a: number, b: number): number => {
    const ab = pb.outRow[a] + pb.inPl[b];
    let p = C[ab];
    if (useTime) {
      const t = T[ab];
      const ea = nE[a], la = nL[a], eb = nE[b], lb = nL[b];
      if (la < BIG && eb > -BIG) { const w = eb - nD[a] - t - la; if (w > 0) p += gWT * w; }
      if (ea > -BIG && lb < BIG) { const tw = ea + nD[a] + t - lb; if (tw > 0) p += gTW * tw; }
    }
    return p;
  };
  void NN;
  // Rows in blocks: for a block of jobs u, one pass over every v reads v's row at the block's
  // columns (contiguous) and the block's rows at v's column — no J strided column walks per job,
  // which on a 10,000-job matrix cost a cache miss per pair.
  const B = 64;
  const blockProx = new Float64Array(B * J);
  for (let u0 = 0; u0 < J; u0 += B) {
    const ub = Math.min(B, J - u0);
    for (let v = 0; v < J; v++) {
      const skipV = excluded !== undefined && excluded[v] === 1;
      for (let i = 0; i < ub; i++) {
        const u = u0 + i;
        if (v === u || skipV) { blockProx[i * J + v] = NaN; continue; }
        const a = dir(u, v);
        const b = dir(v, u);
        blockProx[i * J + v] = a < b ? a : b;
      }
    }
    for (let i = 0; i < ub; i++) {
      const u = u0 + i;
      if (excluded && excluded[u]) continue;
      let m = 0;
      const o = i * J;
      for (let v = 0; v < J; v++) {
        const p = blockProx[o + v];
        if (p !== p) continue; // NaN: self or excluded
        prox[m] = p;
        idx[m] = v;
        m++;
      }
      const kk = Math.min(k, m);
      selectSmallest(prox, idx, m, kk);
      // sort the first kk by (prox, id)
      const order = Array.from({ length: kk }, (_, x) => x).sort((x, y) => prox[x] - prox[y] || idx[x] - idx[y]);
      for (let x = 0; x < kk; x++) list[u * k + x] = idx[order[x]];
    }
  }
  return { k, list };
}

/** Partial quickselect: moves the kk smallest (by key, then id) of key[0..m) to the front. */
function selectSmallest(key: Float64Array, id: Int32Array, m: number, kk: number): void {
  if (kk >= m) return;
  let lo = 0;
  let hi = m - 1;
  const less = (i: number, j: number): boolean => key[i] < key[j] || (key[i] === key[j] && id[i] < id[j]);
  const swap = (i: number, j: number): void => {
    const a = key[i]; key[i] = key[j]; key[j] = a;
    const b = id[i]; id[i] = id[j]; id[j] = b;
  };
  while (hi > lo) {
    // median of three pivot, deterministic
    const mid = (lo + hi) >> 1;
    if (less(mid, lo)) swap(mid, lo);
    if (less(hi, lo)) swap(hi, lo);
    if (less(hi, mid)) swap(hi, mid);
    swap(mid, hi);
    let store = lo;
    for (let i = lo; i < hi; i++) if (less(i, hi)) swap(i, store++);
    swap(store, hi);
    if (store === kk) return;
    if (store < kk) lo = store + 1;
    else hi = store - 1;
  }
}
