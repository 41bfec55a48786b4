/**
 * A simulated drive along a road path, for the map matcher's tests and the live-day bench: the
 * path's polyline timed piece by piece (each piece's own travel time × a factor), sampled every
 * few seconds with Gaussian GPS noise. Each sample keeps its truth (the edge driven, the true
 * position), so a matcher can be scored against it.
 */
import { metresPerDegree } from '../../src/core/geo.js';
import type { Rng } from '../../src/core/rng.js';
import type { RoadGraph } from '../../src/graph/road-graph.js';
import type { RouteGeometry } from '../../src/route/geometry.js';

export interface DriveSample {
  /** Noisy fix. */
  lat: number;
  lon: number;
  ts: number;
  /** Truth. */
  trueLat: number;
  trueLon: number;
  edge: number;
}

/**
 * Samples a drive along `geo` starting at `t0` (ms): pieces take their time × `slow`, a fix every
 * `everyS` seconds (the first at t0), noise σ = `sigmaM` metres. Returns the samples and the
 * arrival time.
 */
export function sampleDrive(g: RoadGraph, geo: RouteGeometry, o: { t0: number; everyS: number; sigmaM: number; rng: Rng; slow?: number; firstAt?: number }): { samples: DriveSample[]; endTs: number } {
  const slow = o.slow ?? 1;
  const n = geo.lat.length;
  // time at each polyline point: a piece's time spread by length over its points
  const tAt = new Float64Array(n);
  const pieces = geo.pieces;
  const edgeOfPoint = new Int32Array(n).fill(-1);
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k];
    const a = p.firstPoint, b = k + 1 < pieces.length ? pieces[k + 1].firstPoint : n - 1;
    let len = 0;
    for (let i = a; i < b; i++) len += seg(geo, i);
    let acc = 0;
    for (let i = a; i < b; i++) {
      edgeOfPoint[i] = g.arcEdge[p.arc] >>> 1;
      tAt[i] = (k === 0 && i === a ? 0 : tAt[i]);
      const d = seg(geo, i);
      tAt[i + 1] = tAt[a] + (len > 0 ? (p.timeMs * slow * (acc + d)) / len : 0);
      acc += d;
    }
  }
  const total = tAt[n - 1];
  const samples: DriveSample[] = [];
  const step = o.everyS * 1000;
  let i = 0;
  for (let t = o.firstAt ?? 0; t <= total; t += step) {
    while (i < n - 2 && tAt[i + 1] < t) i++;
    const span = tAt[i + 1] - tAt[i];
    const f = span > 0 ? Math.min(1, Math.max(0, (t - tAt[i]) / span)) : 0;
    const la = geo.lat[i] + f * (geo.lat[i + 1] - geo.lat[i]);
    const lo = geo.lon[i] + f * (geo.lon[i + 1] - geo.lon[i]);
    const { kx, ky } = metresPerDegree(la);
    samples.push({
      lat: la + (o.rng.normal() * o.sigmaM) / ky, lon: lo + (o.rng.normal() * o.sigmaM) / kx, ts: o.t0 + t,
      trueLat: la, trueLon: lo, edge: edgeOfPoint[Math.min(i, n - 2)],
    });
  }
  return { samples, endTs: o.t0 + total };
}

function seg(geo: RouteGeometry, i: number): number {
  const { kx, ky } = metresPerDegree(geo.lat[i]);
  const dx = (geo.lon[i + 1] - geo.lon[i]) * kx, dy = (geo.lat[i + 1] - geo.lat[i]) * ky;
  return Math.sqrt(dx * dx + dy * dy);
}
