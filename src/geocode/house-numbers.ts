/**
 * Placing a house number that has no address point of its own, from the street's known numbers
 * (address points projected on the street's chains: chain, measure along it, signed side offset,
 * distance to it).
 *
 * Two predictors place a number n:
 *
 * - **same side**: the known numbers of n's parity only — interpolated between the nearest below
 *   and above (along their chain when they share one), else past the last of them by at most a
 *   slack (max(6, 20 % of the highest)): extrapolated along the chain with the measure-per-number
 *   slope fitted on that chain's numbers of that side (least squares, |r| ≥ 0.9), clamped to the
 *   chain's ends, or the last known point itself when there is no good fit;
 * - **both sides**: the same with all known numbers (streets numbered consecutively, or sides in step).
 *
 * Which one to trust is decided locally, by leave-one-out on the K known numbers closest in value
 * to n: each of them is predicted by both predictors without it, and the errors summed (capped).
 * When the predictors disagree, the result is their blend weighted by 1/error² (the better one
 * dominates; two equally good ones give the middle). Extrapolating the *other* side's numbers is
 * allowed only when the both-sides predictor wins that comparison (the sides are in step there):
 * in towns where the two sides of a street drift apart (Monaco) it compounds the drift.
 *
 * Numbers far outside the known ones: the known number closest in value (same parity first,
 * within max(50, n/2)), extrapolated from along its chain under the same conditions.
 */
import { haversine } from '../core/geo.js';
import type { GeocodeIndex } from './geocode-index.js';
import { lineLength, pointAtMeasure, type Line } from './interpolate.js';

export interface NumberPlacement {
  lat: number;
  lon: number;
  /**
   * between: interpolated between two known numbers; beyond: past the known numbers (at, or
   * extrapolated from, the last of them); nearest: at the known number closest in value.
   */
  how: 'between' | 'beyond' | 'nearest';
  /** A reliable interpolation: a bracket ≤ 400 m long (both brackets when blended). */
  tight: boolean;
  /** Address indexes used (−1: none); `below` is the anchor when `how` is not 'between'. */
  below: number;
  above: number;
}

/** Brackets wider than this many numbers or metres are not interpolated. */
const MAX_NUMBER_SPAN = 200;
const MAX_BRACKET_M = 1500;
/** Interpolations over brackets at most this long count as tight (Good). */
const TIGHT_M = 400;
/** Known points farther than this from their chain are not placed along it. */
const ON_CHAIN_M = 120;
/** Leave-one-out: this many known numbers closest in value, errors capped at this many metres. */
const LOCAL_K = 4;
const LOCAL_CAP_M = 300;
/** Extrapolation needs a measure-vs-number correlation at least this strong. */
const MIN_FIT_R = 0.9;

export class NumberPlacer {
  constructor(private readonly idx: GeocodeIndex) {}

  /**
   * Where number n (absent from the street's address points) most likely is, or null when the
   * street has no known numbers (or none close enough in value).
   */
  place(street: number, n: number): NumberPlacement | null {
    const idx = this.idx;
    const a0 = idx.stAddrOff[street], a1 = idx.stAddrOff[street + 1];
    if (a1 <= a0) return null;
    let errs: { same: number; any: number } | null | undefined;
    const local = () => (errs === undefined ? (errs = this.localErrors(a0, a1, n)) : errs);
    const inStep = () => { const e = local(); return e !== null && e.any < e.same; };
    const ps = this.predict(a0, a1, n, true, -1, true);
    const pa = this.predict(a0, a1, n, false, -1, inStep);
    if (ps && pa && (ps.lat !== pa.lat || ps.lon !== pa.lon)) {
      const e = local();
      if (!e) return ps;
      const ws = 1 / Math.max(1, e.same) ** 2, wa = 1 / Math.max(1, e.any) ** 2;
      const f = wa / (ws + wa);
      return { ...(f > 0.5 ? pa : ps), lat: ps.lat + f * (pa.lat - ps.lat), lon: ps.lon + f * (pa.lon - ps.lon), tight: ps.tight && pa.tight };
    }
    const p = ps ?? pa;
    if (p) return p;
    // far outside the known numbers
    const near = this.nearest(a0, a1, n);
    if (near && ((idx.adNum[near.below] - n) % 2 === 0 || inStep())) {
      const q = this.extrapolate(a0, a1, near.below, n, (idx.adNum[near.below] - n) % 2 === 0 ? n % 2 : -1);
      if (q) return { lat: q.lat, lon: q.lon, how: 'beyond', tight: false, below: near.below, above: -1 };
    }
    return near;
  }

  /** Every predictor's placement of n on the street (diagnostics: bench/geocode/heldout.ts). */
  predictions(street: number, n: number): { name: string; p: NumberPlacement }[] {
    const idx = this.idx;
    const a0 = idx.stAddrOff[street], a1 = idx.stAddrOff[street + 1];
    const out: { name: string; p: NumberPlacement }[] = [];
    if (a1 <= a0) return out;
    for (const same of [true, false]) {
      for (const ex of [false, true]) {
        const p = this.predict(a0, a1, n, same, -1, () => ex);
        if (p) out.push({ name: `${same ? 'same' : 'both'}-${ex ? 'extrapolated' : 'clamped'}`, p });
      }
    }
    const near = this.nearest(a0, a1, n);
    if (near) out.push({ name: 'nearest', p: near });
    return out;
  }

  /**
   * Prediction of n from the known numbers of n's parity (`same`) or of both, `skip` left out:
   * between the nearest below and above, else past the last known number by at most the slack
   * (extrapolated when `extrapolate()` allows it and the fit is good, else the last point).
   */
  private predict(a0: number, a1: number, n: number, same: boolean, skip: number, extrapolate: boolean | (() => boolean)): NumberPlacement | null {
    const idx = this.idx;
    let below = -1, above = -1, lo = -1, hi = -1;
    for (let k = a0; k < a1; k++) {
      const v = idx.adNum[k];
      if (v === skip || v === n || (same && (v - n) % 2 !== 0)) continue;
      if (lo < 0) lo = k;
      hi = k;
      if (v < n) below = k;
      else if (above < 0) above = k;
    }
    if (lo < 0) return null;
    if (below >= 0 && above >= 0) return this.between(below, above, n);
    const maxN = idx.adNum[hi], minN = idx.adNum[lo];
    const slack = Math.max(6, Math.round(0.2 * maxN));
    let end = -1;
    if (n > maxN && n - maxN <= slack) end = hi;
    else if (n < minN && minN - n <= slack) end = lo;
    if (end < 0) return null;
    if (typeof extrapolate === 'function' ? extrapolate() : extrapolate) {
      const p = this.extrapolate(a0, a1, end, n, same ? n % 2 : -1);
      if (p) return { lat: p.lat, lon: p.lon, how: 'beyond', tight: false, below: end, above: -1 };
    }
    return { lat: idx.adLat[end], lon: idx.adLon[end], how: 'beyond', tight: false, below: end, above: -1 };
  }

  /** Interpolation between known numbers `below` and `above`, or null when the bracket is too wide. */
  private between(below: number, above: number, n: number): NumberPlacement | null {
    const idx = this.idx;
    const nb = idx.adNum[below], na = idx.adNum[above];
    if (na - nb > MAX_NUMBER_SPAN) return null;
    const span = haversine(idx.adLat[below], idx.adLon[below], idx.adLat[above], idx.adLon[above]);
    if (span > MAX_BRACKET_M) return null;
    const t = (n - nb) / (na - nb);
    let lat: number, lon: number;
    const cb = idx.adChain[below], ca = idx.adChain[above];
    if (cb >= 0 && cb === ca && idx.adDist[below] <= ON_CHAIN_M && idx.adDist[above] <= ON_CHAIN_M) {
      // along the chain by the projected positions, side offset interpolated when both are on one side
      const line: Line = { lat: idx.ptLat, lon: idx.ptLon, start: idx.chainOff[cb], end: idx.chainOff[cb + 1] };
      const m = idx.adMeasure[below] + t * (idx.adMeasure[above] - idx.adMeasure[below]);
      const ob = idx.adOffset[below], oa = idx.adOffset[above];
      const p = pointAtMeasure(line, m, Math.sign(ob) === Math.sign(oa) ? ob + t * (oa - ob) : 0);
      lat = p.lat; lon = p.lon;
    } else {
      lat = idx.adLat[below] + t * (idx.adLat[above] - idx.adLat[below]);
      lon = idx.adLon[below] + t * (idx.adLon[above] - idx.adLon[below]);
    }
    return { lat, lon, how: 'between', tight: span <= TIGHT_M, below, above };
  }

  /**
   * Leave-one-out errors (summed, each capped) of the same-side predictor and the both-sides one
   * (which does not extrapolate here) on the K known numbers closest in value to n that both can
   * place; null when there is none.
   */
  private localErrors(a0: number, a1: number, n: number): { same: number; any: number } | null {
    const idx = this.idx;
    const nums: number[] = [];
    for (let k = a0; k < a1; k++) if (k === a0 || idx.adNum[k] !== idx.adNum[k - 1]) nums.push(idx.adNum[k]);
    nums.sort((x, y) => Math.abs(x - n) - Math.abs(y - n) || x - y);
    let es = 0, ea = 0, used = 0;
    for (let i = 0; i < nums.length && used < LOCAL_K; i++) {
      const t = nums[i];
      const ps = this.predict(a0, a1, t, true, t, true);
      const pa = this.predict(a0, a1, t, false, t, false);
      if (!ps || !pa) continue;
      let e1 = LOCAL_CAP_M, e2 = LOCAL_CAP_M;
      for (let k = a0; k < a1; k++) {
        if (idx.adNum[k] !== t) continue;
        e1 = Math.min(e1, haversine(ps.lat, ps.lon, idx.adLat[k], idx.adLon[k]));
        e2 = Math.min(e2, haversine(pa.lat, pa.lon, idx.adLat[k], idx.adLon[k]));
      }
      es += e1; ea += e2; used++;
    }
    return used > 0 ? { same: es, any: ea } : null;
  }

  /**
   * Number n placed along `end`'s chain from `end` with the measure-per-number slope of the known
   * numbers on that chain (least squares; those of parity `parity` when it is given and they
   * suffice, else all), clamped to the chain; null without a good fit.
   */
  private extrapolate(a0: number, a1: number, end: number, n: number, parity = -1): { lat: number; lon: number } | null {
    const idx = this.idx;
    const ch = idx.adChain[end];
    if (ch < 0 || idx.adDist[end] > ON_CHAIN_M) return null;
    const fit = (par: number): { r: number; slope: number } | null => {
      let sn = 0, sm = 0, snn = 0, snm = 0, smm = 0, c = 0;
      for (let k = a0; k < a1; k++) {
        if (idx.adChain[k] !== ch || idx.adDist[k] > ON_CHAIN_M || (par >= 0 && idx.adNum[k] % 2 !== par)) continue;
        const x = idx.adNum[k], y = idx.adMeasure[k];
        sn += x; sm += y; snn += x * x; snm += x * y; smm += y * y; c++;
      }
      const vn = snn - (sn * sn) / c, vm = smm - (sm * sm) / c, cov = snm - (sn * sm) / c;
      return c >= 2 && vn > 0 && vm > 0 ? { r: cov / Math.sqrt(vn * vm), slope: cov / vn } : null;
    };
    const f = (parity >= 0 ? fit(parity) : null) ?? fit(-1);
    if (!f || Math.abs(f.r) < MIN_FIT_R) return null;
    const line: Line = { lat: idx.ptLat, lon: idx.ptLon, start: idx.chainOff[ch], end: idx.chainOff[ch + 1] };
    const m = Math.max(0, Math.min(lineLength(line), idx.adMeasure[end] + f.slope * (n - idx.adNum[end])));
    return pointAtMeasure(line, m, idx.adOffset[end]);
  }

  /** The known number closest in value (same parity first) when it is not too far in value. */
  private nearest(a0: number, a1: number, n: number): NumberPlacement | null {
    const idx = this.idx;
    let best = -1, bd = Infinity;
    for (let k = a0; k < a1; k++) {
      const d = Math.abs(idx.adNum[k] - n) + ((idx.adNum[k] - n) % 2 !== 0 ? 0.5 : 0);
      if (d < bd) { bd = d; best = k; }
    }
    if (best < 0 || bd > Math.max(50, 0.5 * n)) return null;
    return { lat: idx.adLat[best], lon: idx.adLon[best], how: 'nearest', tight: false, below: best, above: -1 };
  }
}
