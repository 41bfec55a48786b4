/**
 * A dispatch day, simulated (issue #24, bench/live.ts): a plan made at 07:30 is driven with noise —
 * each leg × U(0.8, 1.4) with a rush-hour bias, each service × U(0.7, 1.5) — while orders come in,
 * some are cancelled and one van breaks down at noon; vans send a GPS fix every 10 s with 10 m noise.
 * A policy decides what the dispatcher does about it: keep the plan (static), re-plan from scratch
 * at every event, or re-dispatch live (the previous plan as the start, a cost for moving stops).
 *
 * Everything goes through the service as a client would: the plan is a Dispatch, the fixes are
 * TrackPoints named after the vans, a re-plan is a Redispatch of the stored route (its latency
 * includes the store). The random draws of a leg or a service depend only on (seed, from, to) or
 * (seed, stop), so every policy meets the same day.
 */
import { Rng } from '../../src/core/rng.js';
import { haversine, metresPerDegree } from '../../src/core/geo.js';
import type { Engine } from '../../src/engine.js';
import type { Snap } from '../../src/graph/snap.js';
import { routeGeometry } from '../../src/route/geometry.js';
import { matchTrack } from '../../src/route/match.js';
import { Router } from '../../src/route/router.js';
import { detectVisits } from '../../src/route/visits.js';
import { minDwellMs, VISIT_RADIUS_M } from '../../src/ops/live/state.js';
import { dateToSeconds } from '../../src/records/index.js';
import type { Account } from '../../src/store/types.js';
import type { Service } from '../../src/service/service.js';
import { sampleDrive } from './drive.js';
import { makePortoSpec } from './porto-spec.js';

export type Policy = 'static' | 'scratch' | 'live';

export interface DayOptions {
  seed: number;
  stops: number;
  vans: number;
  policy: Policy;
  /** Share of the orders that come in during the day (0.1). */
  newShare?: number;
  /** Share of the orders cancelled during the day (0.05). */
  cancelShare?: number;
  /** Re-plans also every this many seconds (default 3600; 0 = at events only). */
  replanEveryS?: number;
  /** Redispatch's MinimumOptimization. */
  effort?: number;
  /** Stop the day at this hour (latency runs on large days); the day's figures then stop there too. */
  untilHour?: number;
}

export interface DayFigures {
  policy: Policy;
  seed: number;
  windowed: number;
  windowsKept: number;
  orders: number;
  served: number;
  km: number;
  churn: number;
  replans: number;
  latencyMs: number[];
  /** Fixes on the right road (the true edge, or an edge of the true path within 30 m of the truth). */
  matched: number;
  fixes: number;
  /** The same over the fixes taken while driving. */
  matchedDriving: number;
  fixesDriving: number;
  visits: number;
  missed: number;
  falseVisits: number;
}

interface Stop { name: string; lat: number; lon: number; wait: number; open: number | null; close: number | null; snap: Snap }
interface TrueVisit { stop: string; arrive: number; start: number; end: number }
interface Van {
  name: string;
  at: { lat: number; lon: number; snap: Snap };
  t: number;
  queue: string[];
  lost: boolean;
  fixes: { lat: number; lon: number; ts: number; edge: number; pathEdges: Set<number>; trueLat: number; trueLon: number; dwell?: boolean }[];
  sent: number;
  km: number;
  lastEdge: number;
  visits: TrueVisit[];
}

/** A day in the past (track points in the future are refused): makePortoSpec's 2026-12-01 moved to it. */
const DAY = '2026-11-02';
const at = (h: number, m = 0): number => dateToSeconds(`${DAY}T${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00`)!;
const iso = (s: number): string => new Date(Math.round(s) * 1000).toISOString().slice(0, 19);

/** A uniform draw in [lo, hi) fixed by the key (the same for every policy). */
function draw(seed: number, key: string, lo: number, hi: number): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return lo + (hi - lo) * new Rng(h >>> 0).next();
}

/** Rush hours slow every leg that starts in them. */
function rush(t: number): number {
  return (t >= at(7, 30) && t < at(9, 30)) || (t >= at(16, 30) && t < at(18, 30)) ? 1.25 : 1;
}

export async function simulateDay(engine: Engine, service: Service, account: Account, o: DayOptions): Promise<DayFigures> {
  const ds = engine.dataset;
  const router = new Router(ds.graph, ds.snapper, ds.chTime, ds.chDist);
  const spec = JSON.parse(JSON.stringify(makePortoSpec(engine, { name: 'day', stops: o.stops, vehicles: o.vans, timeLimitS: 0, waitS: 300 }, o.seed)).replaceAll('2026-12-01', DAY)) as any;
  const rng = new Rng(o.seed * 7919 + 17);
  // service times vary per stop (2–8 min planned)
  for (const l of spec.Locations) l.Wait = 120 + rng.int(361);
  // orders that come in during the day, with their time; cancellations among the others
  const all = spec.Locations as any[];
  const nNew = Math.round(all.length * (o.newShare ?? 0.1));
  const order = rng.shuffle(all.map((_, i) => i));
  const incoming = new Map<string, number>(); // name → when it comes in
  for (const i of order.slice(0, nNew)) {
    const t = at(9) + rng.int(5 * 3600);
    incoming.set(all[i].Name, t);
    if (all[i].TimeConstraintArrival) {
      // its window opens an hour after it comes in at the earliest
      const open = Math.max(dateToSeconds(all[i].TimeConstraintArrival)!, t + 3600);
      all[i].TimeConstraintArrival = iso(open);
      all[i].TimeConstraintDeparture = iso(open + 7200);
    }
  }
  const nCancel = Math.round(all.length * (o.cancelShare ?? 0.05));
  const cancelAt = new Map<string, number>();
  for (const i of order.slice(nNew, nNew + nCancel)) cancelAt.set(all[i].Name, at(9) + rng.int(6 * 3600));
  const stops = new Map<string, Stop>();
  for (const l of all) {
    stops.set(l.Name, {
      name: l.Name, lat: l.LatLong.Latitude, lon: l.LatLong.Longitude, wait: l.Wait,
      open: dateToSeconds(l.TimeConstraintArrival), close: dateToSeconds(l.TimeConstraintDeparture),
      snap: ds.snapper.snap(l.LatLong.Latitude, l.LatLong.Longitude),
    });
  }
  const lostVan = spec.Vehicles[2].Name;

  // ---- the plan at 07:30: the orders known then
  const initial = { ...spec, MinimumOptimization: 4, Locations: all.filter((l) => !incoming.has(l.Name)) };
  const first = await service.execute(account, 'Dispatch', initial, {});
  if (first.kind !== 'result') throw new Error(`dispatch refused: ${JSON.stringify(first)}`);
  const routeId = first.routeId!;
  const vans: Van[] = spec.Vehicles.map((v: any) => {
    const s = ds.snapper.snap(v.StartLocation.LatLong.Latitude, v.StartLocation.LatLong.Longitude);
    return { name: v.Name, at: { lat: s.lat, lon: s.lon, snap: s }, t: at(7, 30), queue: [], lost: false, fixes: [], sent: 0, km: 0, lastEdge: -1, visits: [] };
  });
  const byName = new Map(vans.map((v) => [v.name, v]));
  const served = new Set<string>();
  const takeQueues = (result: any): void => {
    for (const it of result.Items ?? []) {
      const v = byName.get(it.Vehicle?.Name);
      if (!v) continue;
      v.queue = (it.Locations ?? []).filter((l: any) => l.LocationType !== 'Start' && l.LocationType !== 'Finish' && stops.has(l.Name)).map((l: any) => l.Name).filter((n: string) => !served.has(n));
    }
  };
  takeQueues(first.result);
  const cancelled = new Set<string>();

  // ---- driving
  const drive = (v: Van, to: Stop): void => {
    const p = router.route(v.at.snap, to.snap, 'time', true);
    if (!p.found) { v.t += 60; v.at = { lat: to.snap.lat, lon: to.snap.lon, snap: to.snap }; return; }
    const factor = draw(o.seed, `${v.at.lat.toFixed(5)},${v.at.lon.toFixed(5)}>${to.name}`, 0.8, 1.4) * rush(v.t);
    const geo = routeGeometry(ds.graph, v.at.snap, p.arcs!, to.snap);
    const pathEdges = new Set(geo.pieces.map((pc) => ds.graph.arcEdge[pc.arc] >>> 1));
    const first = Math.ceil(v.t / 10) * 10 - v.t; // fixes on the 10 s grid
    const { samples, endTs } = sampleDrive(ds.graph, geo, { t0: v.t * 1000, everyS: 10, sigmaM: 10, rng, slow: factor, firstAt: first * 1000 });
    for (const s of samples) v.fixes.push({ lat: s.lat, lon: s.lon, ts: s.ts, edge: s.edge, pathEdges, trueLat: s.trueLat, trueLon: s.trueLon });
    v.t = endTs / 1000;
    v.km += p.lengthCm / 1e5;
    v.lastEdge = geo.pieces.length ? ds.graph.arcEdge[geo.pieces[geo.pieces.length - 1].arc] >>> 1 : -1;
    v.at = { lat: to.snap.lat, lon: to.snap.lon, snap: to.snap };
  };
  const dwell = (v: Van, s: Stop, from: number, to: number): void => {
    const { kx, ky } = metresPerDegree(s.snap.lat);
    // standing at the end of its way in: on the stop's road, or on the road it came by where they meet
    const edges = new Set([s.snap.edge, v.lastEdge]);
    for (let t = Math.ceil(from / 10) * 10; t <= to; t += 10) {
      v.fixes.push({ lat: s.snap.lat + (rng.normal() * 10) / ky, lon: s.snap.lon + (rng.normal() * 10) / kx, ts: t * 1000, edge: s.snap.edge, pathEdges: edges, trueLat: s.snap.lat, trueLon: s.snap.lon, dwell: true });
    }
  };
  /** Runs the van's activities that start before `until` (each to its end). */
  const advance = (v: Van, until: number): void => {
    while (!v.lost && v.t < until && v.queue.length) {
      const name = v.queue.shift()!;
      if (cancelled.has(name) || served.has(name)) continue;
      const s = stops.get(name)!;
      drive(v, s);
      const arrive = v.t;
      const start = s.open !== null ? Math.max(arrive, s.open) : arrive;
      const service = s.wait * draw(o.seed, `service:${name}`, 0.7, 1.5);
      dwell(v, s, arrive, start + service);
      v.t = start + service;
      served.add(name);
      v.visits.push({ stop: name, arrive, start, end: v.t });
    }
  };
  const flush = async (until: number): Promise<void> => {
    for (const v of vans) {
      const pts = [];
      while (v.sent < v.fixes.length && v.fixes[v.sent].ts <= until * 1000) {
        const f = v.fixes[v.sent++];
        pts.push({ Latitude: f.lat, Longitude: f.lon, TimeStamp: iso(f.ts / 1000) + 'Z' });
      }
      for (let i = 0; i < pts.length; i += 5000) {
        const r = await service.execute(account, 'TrackPoints', { Account: v.name, TrackPoints: pts.slice(i, i + 5000) }, {});
        if (r.kind !== 'result') throw new Error(`track points refused: ${JSON.stringify(r)}`);
      }
    }
  };

  // ---- the day's events
  type Ev = { t: number; kind: 'order' | 'cancel' | 'lost' | 'tick'; name?: string };
  const events: Ev[] = [];
  for (const [name, t] of incoming) events.push({ t, kind: 'order', name });
  for (const [name, t] of cancelAt) events.push({ t, kind: 'cancel', name });
  events.push({ t: at(12), kind: 'lost', name: lostVan });
  const every = o.replanEveryS ?? 3600;
  if (every > 0 && o.policy !== 'static') for (let t = at(8, 30); t < at(18); t += every) events.push({ t, kind: 'tick' });
  events.sort((a, b) => a.t - b.t);
  if (o.untilHour !== undefined) events.splice(0, events.length, ...events.filter((e) => e.t < at(o.untilHour!)));
  const latency: number[] = [];
  let churn = 0, replans = 0;
  let newOrders: any[] = [], newCancels: string[] = [], newLost: string[] = [];
  for (let k = 0; k < events.length; k++) {
    const e = events[k];
    let t = e.t;
    if (e.kind === 'lost') {
      // it breaks down once the work in hand at noon is over
      const v = byName.get(e.name!)!;
      advance(v, t);
      t = Math.max(t, v.t);
      for (const w of vans) advance(w, t);
      v.lost = true;
      v.queue = [];
      newLost.push(v.name);
    } else {
      for (const v of vans) advance(v, t);
      if (e.kind === 'order') newOrders.push(all.find((l) => l.Name === e.name));
      if (e.kind === 'cancel' && !served.has(e.name!)) {
        cancelled.add(e.name!);
        newCancels.push(e.name!);
        for (const v of vans) v.queue = v.queue.filter((n) => n !== e.name);
      }
    }
    if (o.policy === 'static') continue;
    // events at the same instant go in one re-plan
    if (k + 1 < events.length && events[k + 1].t === e.t) continue;
    await flush(t);
    const stillOpen = newCancels.filter((n) => !served.has(n));
    const req = {
      RouteID: routeId, CurrentTime: iso(t) + 'Z', Locations: newOrders, Cancelled: stillOpen, Unavailable: newLost,
      Frozen: 1, Stability: o.policy === 'scratch' ? 0 : 2, MinimumOptimization: o.effort ?? 4,
    };
    const t0 = performance.now();
    const r = await service.execute(account, 'Redispatch', req, {});
    latency.push(performance.now() - t0);
    if (r.kind !== 'result' || (r.result as any).Status === 'Failed') throw new Error(`re-dispatch failed at ${iso(t)}: ${JSON.stringify((r as any).result?.Errors ?? r)}`);
    replans++;
    churn += ((r.result as any).Changes ?? []).filter((c: any) => c.Change === 'Moved').length;
    takeQueues(r.result);
    if (byName.get(lostVan)!.lost) byName.get(lostVan)!.queue = [];
    newOrders = []; newCancels = []; newLost = [];
  }
  for (const v of vans) advance(v, o.untilHour !== undefined ? at(o.untilHour) : at(23));

  // ---- figures
  const known = all.filter((l) => !cancelled.has(l.Name));
  let windowed = 0, kept = 0;
  const when = new Map<string, TrueVisit>();
  for (const v of vans) for (const x of v.visits) if (!when.has(x.stop)) when.set(x.stop, x);
  for (const l of known) {
    const s = stops.get(l.Name)!;
    if (s.open === null && s.close === null) continue;
    windowed++;
    const x = when.get(l.Name);
    if (x && (s.open === null || x.start >= s.open) && (s.close === null || x.end <= s.close)) kept++;
  }
  // map matching and arrival detection on the vans' whole tracks (the live policy's day)
  let matched = 0, fixes = 0, nVisits = 0, missed = 0, falseVisits = 0, matchedDriving = 0, fixesDriving = 0;
  for (const v of vans) {
    if (!v.fixes.length) continue;
    const m = matchTrack(ds.snapper, router, v.fixes);
    v.fixes.forEach((f, i) => {
      fixes++;
      const s = m[i].snap;
      const dTrue = s ? haversine(s.lat, s.lon, f.trueLat, f.trueLon) : Infinity;
      const ok = !!s && (s.edge === f.edge || (f.pathEdges.has(s.edge) && dTrue <= 30));
      if (ok) matched++;
      if (!f.dwell) {
        fixesDriving++; if (ok) matchedDriving++;
      }

    });
    // every stop the van was ever sent to or passed: detected visits against the true ones
    const names = [...new Set([...v.visits.map((x) => x.stop)])];
    const cands = all.filter((l) => names.includes(l.Name) || near(stops.get(l.Name)!, v));
    const sites = cands.map((l) => { const s = stops.get(l.Name)!; return { lat: s.lat, lon: s.lon, roadLat: s.snap.lat, roadLon: s.snap.lon, minDwellMs: minDwellMs(s.wait) }; });
    const found = detectVisits(v.fixes, sites, { radiusM: VISIT_RADIUS_M });
    cands.forEach((l, i) => {
      const truly = v.visits.some((x) => x.stop === l.Name);
      if (truly) { nVisits++; if (!found[i]) missed++; } else if (found[i]) falseVisits++;
    });
  }
  return {
    policy: o.policy, seed: o.seed, windowed, windowsKept: windowed ? kept / windowed : 1, orders: known.length, served: known.filter((l) => when.has(l.Name)).length,
    km: vans.reduce((a, v) => a + v.km, 0), churn, replans, latencyMs: latency, matched, fixes, matchedDriving, fixesDriving, visits: nVisits, missed, falseVisits,
  };
}

/** Stops the van came within 100 m of (candidates for a false arrival). */
function near(s: Stop, v: Van): boolean {
  for (let i = 0; i < v.fixes.length; i += 3) if (haversine(s.lat, s.lon, v.fixes[i].trueLat, v.fixes[i].trueLon) < 100) return true;
  return false;
}
