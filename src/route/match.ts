/**
 * Map matching: GPS fixes → positions on the road graph, with a hidden Markov model (Newson &
 * Krumm 2009, the model OSRM's `/match` uses).
 *
 * - States: for each fix, the roads within `radiusM` ({@link Snapper.candidates}, one per edge).
 * - Emission: a Gaussian on the fix's distance to the candidate (σ = `sigmaM`, 14 m: the RMS
 *   distance of 10 m noise per axis).
 * - Transition: an exponential on |route distance − great-circle distance| between consecutive
 *   fixes (β = `betaM`): a vehicle drives roughly as the crow flies between close fixes, so a
 *   candidate pair that needs a detour is unlikely. A pair that needs more than `maxSpeedMps` is
 *   impossible. A candidate slightly *behind* on the same road (within 2σ) is reached at that
 *   distance, not around the block: GPS noise along a one-way street is not a U-turn.
 * - Viterbi in log space over a track ({@link matchTrack}); a live position is the match of a
 *   vehicle's last few fixes (ops/live/state.ts).
 * - Stays: ≥ 4 consecutive fixes within 2.5σ of their running mean are a vehicle standing still,
 *   matched once at their mean (the noise of n fixes is σ/√n), each fix then on that road.
 * - Thinning: a fix within 2σ of the last one kept is matched afterwards, onto that one's road
 *   (between such close fixes the noise is larger than the movement).
 * - Breaks: a fix with no road within the radius is left unmatched. When no candidate of a fix
 *   can be reached from the previous layer, the fix is held as a possible jump: if the next fix
 *   is reachable from before it and not from it, it was an outlier (unmatched); otherwise the
 *   track really broke there (a long gap, a ferry) and a new chain starts.
 *
 * Kernel code: knows the graph, the snapper and the router, nothing of records or services.
 */
import { haversine } from '../core/geo.js';
import type { Snap, Snapper } from '../graph/snap.js';
import type { Router } from './router.js';

export interface Fix {
  lat: number;
  lon: number;
  /** Milliseconds (any epoch); non-decreasing along a track. */
  ts: number;
  /** This fix's own noise (m), when it is known to differ from the track's (the mean of a stay). */
  sigma?: number;
}

/** The noise of a stay's mean is σ/√n, but no better than this (the parked van is somewhere on the kerb). */
const STAY_SIGMA_MIN_M = 3;

export interface MatchOptions {
  /**
   * GPS noise, metres: σ of the emission over a fix's distance to the road. Default 14, the RMS
   * distance of a fix with 10 m of noise on each axis (what phones and trackers give in a city).
   */
  sigmaM?: number;
  /** Transition scale, metres (β). Default 20. */
  betaM?: number;
  /** Candidate search radius, metres. Default max(50, 4σ). */
  radiusM?: number;
  /** Candidates per fix. Default 8. */
  candidates?: number;
  /** Fastest plausible speed between fixes, m/s. Default 55 (198 km/h). */
  maxSpeedMps?: number;
}

export interface MatchedFix {
  /** The position on the road, or null: no road within the radius, or an outlier (a GPS jump). */
  snap: Snap | null;
  /** Chain number: a new chain starts where the track broke (0 for the first). */
  chain: number;
}

interface Params { sigma: number; beta: number; radius: number; k: number; vmax: number }

function params(o: MatchOptions): Params {
  const sigma = o.sigmaM ?? 14;
  const beta = o.betaM ?? 20;
  const vmax = o.maxSpeedMps ?? 55;
  if (!(sigma > 0) || !(beta > 0) || !(vmax > 0)) throw new RangeError('match: sigmaM, betaM and maxSpeedMps must be positive');
  return { sigma, beta, radius: o.radiusM ?? Math.max(50, 4 * sigma), k: Math.max(1, Math.floor(o.candidates ?? 8)), vmax };
}

/** One fix's layer: its candidates, their best log-probabilities and back-pointers. */
interface Layer {
  fix: Fix;
  cands: Snap[];
  score: Float64Array;
  /** Index into the previous kept layer's candidates, -1 at a chain start. */
  back: Int32Array;
  /** Index of the previous kept layer (-1 at a chain start). */
  prev: number;
  chain: number;
}

/** The HMM step: candidates, emission, transitions. */
class Stepper {
  readonly p: Params;
  constructor(readonly snapper: Snapper, readonly router: Router, opts: MatchOptions) {
    this.p = params(opts);
  }

  candidates(f: Fix): Snap[] {
    return this.snapper.candidates(f.lat, f.lon, this.p.radius, this.p.k);
  }

  emission(c: Snap, sigma = this.p.sigma): number {
    const z = c.distanceM / sigma;
    return -0.5 * z * z;
  }

  /** Route distance (metres) from one candidate to another, Infinity when not drivable. */
  private routeM(a: Snap, b: Snap): number {
    if (a.edge === b.edge) {
      const d = haversine(a.lat, a.lon, b.lat, b.lon);
      if (d <= 2 * this.p.sigma) return d;
    }
    const r = this.router.route(a, b, 'distance');
    return r.found ? r.lengthCm / 100 : Infinity;
  }

  /**
   * Scores `cands` of fix `f` from layer `from` (transition + emission); false when none is
   * reachable. Fills score/back.
   */
  link(from: Layer, f: Fix, cands: Snap[], score: Float64Array, back: Int32Array): boolean {
    const gc = haversine(from.fix.lat, from.fix.lon, f.lat, f.lon);
    const dt = Math.max(1, (f.ts - from.fix.ts) / 1000);
    const reach = this.p.vmax * dt + 2 * this.p.sigma;
    // into or out of a stay the vehicle may have manoeuvred (parked, turned round): its well-known position counts more than the way
    const beta = f.sigma !== undefined || from.fix.sigma !== undefined ? this.p.beta * STAY_BETA_FACTOR : this.p.beta;
    let any = false;
    for (let j = 0; j < cands.length; j++) {
      let best = -Infinity, arg = -1;
      for (let i = 0; i < from.cands.length; i++) {
        const s = from.score[i];
        if (s === -Infinity) continue;
        const d = this.routeM(from.cands[i], cands[j]);
        if (!(d <= reach)) continue;
        const v = s - Math.abs(d - gc) / beta;
        if (v > best) { best = v; arg = i; }
      }
      if (arg >= 0) { any = true; score[j] = best + this.emission(cands[j], f.sigma); back[j] = arg; } else { score[j] = -Infinity; back[j] = -1; }
    }
    // relative scores only: keep them near 0 over a day of fixes
    if (any) { const m = score[argmax(score)]; for (let j = 0; j < score.length; j++) score[j] -= m; }
    return any;
  }

  start(f: Fix, cands: Snap[], chain: number): Layer {
    const score = new Float64Array(cands.length);
    for (let j = 0; j < cands.length; j++) score[j] = this.emission(cands[j], f.sigma);
    return { fix: f, cands, score, back: new Int32Array(cands.length).fill(-1), prev: -1, chain };
  }
}

function argmax(a: Float64Array): number {
  let k = -1, b = -Infinity;
  for (let i = 0; i < a.length; i++) if (a[i] > b) { b = a[i]; k = i; }
  return k;
}

/**
 * Matches a whole track (fixes in time order). One result per fix, in order. Fixes out of time
 * order are the caller's to refuse; here a fix earlier than the one before counts as 1 s after it.
 */
export function matchTrack(snapper: Snapper, router: Router, fixes: readonly Fix[], opts: MatchOptions = {}): MatchedFix[] {
  const st = new Stepper(snapper, router, opts);
  // stays: a vehicle standing still is matched once, at the mean of its fixes (n fixes: noise σ/√n)
  const stays = findStays(fixes, STAY_RADIUS_SIGMAS * st.p.sigma);
  if (stays.length === 0) return matchFixes(st, fixes);
  const obs: Fix[] = [];
  const obsOf = new Int32Array(fixes.length);
  let k = 0;
  for (let t = 0; t < fixes.length;) {
    if (k < stays.length && stays[k].a === t) {
      const s = stays[k++];
      obsOf.fill(obs.length, s.a, s.b + 1);
      obs.push({ lat: s.lat, lon: s.lon, ts: fixes[s.b].ts, sigma: Math.max(STAY_SIGMA_MIN_M, st.p.sigma / Math.sqrt(s.b - s.a + 1)) });
      t = s.b + 1;
    } else {
      obsOf[t] = obs.length;
      obs.push(fixes[t++]);
    }
  }
  const m = matchFixes(st, obs);
  return fixes.map((f, t) => {
    const o = m[obsOf[t]];
    if (o.snap === null || obs[obsOf[t]] === f) return o;
    // a fix of a stay: on the stay's road, where it projects
    const own = st.candidates(f).find((c) => c.edge === o.snap!.edge);
    return { snap: own ?? o.snap, chain: o.chain };
  });
}

/**
 * Into or out of a stay the transition is this many times more forgiving: a van parking, turning
 * round or leaving a car park drives a way the straight line does not tell, while the stay's mean
 * says well where it stood (simulated Porto days: 96.3 → 98.9 % of one day's fixes on the right road).
 */
const STAY_BETA_FACTOR = 6;

/** A stay's fixes lie within this many σ of their running mean. */
const STAY_RADIUS_SIGMAS = 2.5;
/** Fixes a stay needs (fewer: a vehicle slowing down). */
const STAY_MIN_FIXES = 4;

/** Runs of ≥ STAY_MIN_FIXES fixes within `r` of their running mean: [a, b] and the mean. */
function findStays(fixes: readonly Fix[], r: number): { a: number; b: number; lat: number; lon: number }[] {
  const out: { a: number; b: number; lat: number; lon: number }[] = [];
  let a = 0;
  while (a < fixes.length) {
    let sLat = fixes[a].lat, sLon = fixes[a].lon, n = 1, b = a;
    while (b + 1 < fixes.length && haversine(fixes[b + 1].lat, fixes[b + 1].lon, sLat / n, sLon / n) <= r) {
      b++;
      sLat += fixes[b].lat; sLon += fixes[b].lon; n++;
    }
    if (n >= STAY_MIN_FIXES) { out.push({ a, b, lat: sLat / n, lon: sLon / n }); a = b + 1; } else a++;
  }
  return out;
}

function matchFixes(st: Stepper, fixes: readonly Fix[]): MatchedFix[] {
  /** Layer per fix (null: unmatched). */
  const layers: (Layer | null)[] = new Array(fixes.length).fill(null);
  let last = -1; // last kept layer
  let held = -1; // a chain start that may be an outlier, and the layer before it
  let beforeHeld = -1;
  let chain = 0;
  /** A fix within 2σ of the last kept one is matched after the others, onto that one's road (Newson & Krumm's thinning: between such close fixes the noise is the movement). */
  const nearOf = new Int32Array(fixes.length).fill(-1);
  for (let t = 0; t < fixes.length; t++) {
    const f = fixes[t];
    // (a stay's mean is never thinned away: it knows better where the vehicle is than any one fix)
    if (last >= 0 && held < 0 && f.sigma === undefined && haversine(f.lat, f.lon, fixes[last].lat, fixes[last].lon) < 2 * st.p.sigma) { nearOf[t] = last; continue; }
    const cands = st.candidates(f);
    if (cands.length === 0) continue;
    if (last < 0) { layers[t] = st.start(f, cands, chain); last = t; continue; }
    const score = new Float64Array(cands.length), back = new Int32Array(cands.length);
    if (st.link(layers[last]!, f, cands, score, back)) {
      if (held >= 0 && beforeHeld >= 0) {
        // the held jump was followed by a consistent fix: the break was real
        held = -1; beforeHeld = -1;
      }
      layers[t] = { fix: f, cands, score, back, prev: last, chain: layers[last]!.chain };
      last = t;
      continue;
    }
    // not reachable from the last layer: was that layer a jump?
    if (held === last && beforeHeld >= 0) {
      const s2 = new Float64Array(cands.length), b2 = new Int32Array(cands.length);
      if (st.link(layers[beforeHeld]!, f, cands, s2, b2)) {
        layers[held] = null; // the outlier
        layers[t] = { fix: f, cands, score: s2, back: b2, prev: beforeHeld, chain: layers[beforeHeld]!.chain };
        chain = layers[beforeHeld]!.chain;
        last = t; held = -1; beforeHeld = -1;
        continue;
      }
    }
    beforeHeld = last;
    held = t;
    chain++;
    layers[t] = st.start(f, cands, chain);
    last = t;
  }
  // backtrack each chain from its last layer
  const out: MatchedFix[] = fixes.map(() => ({ snap: null, chain: -1 }));
  let t = fixes.length - 1;
  while (t >= 0) {
    const L = layers[t];
    if (L === null) { t--; continue; }
    // the chain's last layer: follow back-pointers to its start
    let j = argmax(L.score);
    let cur: number = t;
    let lowest = t;
    while (cur >= 0 && j >= 0) {
      const layer = layers[cur]!;
      out[cur] = { snap: layer.cands[j], chain: layer.chain };
      lowest = cur;
      const nj = layer.back[j];
      cur = layer.prev;
      j = nj;
    }
    t = lowest - 1;
  }
  for (let t = 0; t < fixes.length; t++) {
    const k = nearOf[t];
    const at = k >= 0 ? out[k].snap : null;
    if (at === null) continue;
    const mine = st.candidates(fixes[t]).find((c) => c.edge === at.edge);
    out[t] = { snap: mine ?? at, chain: out[k].chain };
  }
  return out;
}
