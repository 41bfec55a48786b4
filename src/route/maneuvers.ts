/**
 * Turn-by-turn maneuvers of one leg, from the path's arcs and the road attributes at each
 * junction passed (route/junctions.ts): depart, arrive (with the side of the road), turns,
 * U-turns, roundabouts with the exit number, merges, ramps, forks, name changes and end of road;
 * then the warnings of each maneuver's stretch and the hints at each maneuver.
 *
 * What is not a maneuver: a bend without a junction, going through a junction along the obvious
 * continuation (the road we are on, or the only comparable road ahead), and the meeting of the two
 * one-way carriageways of one street (a road that can't be driven away from the junction is not
 * an option). Maneuvers closer than {@link COLLAPSE_M} are merged (crossing a dual carriageway's
 * median is one maneuver: left + left = a U-turn).
 *
 * Kernel-level: graph ids in, plain {@link Maneuver} objects out; no records, no language.
 */
import type { RoadGraph } from '../graph/road-graph.js';
import type { Snap } from '../graph/snap.js';
import { EdgeFlag, HighwayClass, HIGHWAY_CLASS_NAMES } from '../osm/car-profile.js';
import type { RouteGeometry } from './geometry.js';
import { JunctionIndex, bearing, turnAngle } from './junctions.js';
import type { HintKind, Landmark, Maneuver, ManeuverModifier, ManeuverType, RoadLabel, WarningKind } from './maneuver-types.js';

/** Warning severities, as the contract's RouteWarningSeverity names them. */
export type Severity = 'None' | 'LowImpact' | 'Minor' | 'Moderate' | 'Serious';

/**
 * The Severity of each warning (documented in docs/directions.md): what it means for the trip.
 * Private roads may be closed to the vehicle; a ferry means a timetable and a wait; an unpaved
 * road slows and may be impassable for some vehicles; a toll costs money; a restricted turn and a
 * low speed stretch matter for a driver improvising; a tunnel restricts hazardous loads; a
 * motorway or destination-only access is information.
 */
export const WARNING_SEVERITY: Readonly<Record<WarningKind, Severity>> = {
  private: 'Serious',
  ferry: 'Moderate',
  unpaved: 'Moderate',
  toll: 'Minor',
  'restricted-turn': 'Minor',
  'low-speed': 'LowImpact',
  tunnel: 'LowImpact',
  'destination-only': 'LowImpact',
  motorway: 'None',
};

/** Maneuvers closer than this (metres) are merged into one. */
export const COLLAPSE_M = 15;
/** Two turns the same way this close that reverse the direction are one U-turn (a median crossing). */
export const UTURN_CONNECTOR_M = 40;
/** A stretch averaging less than this speed (km/h) over at least {@link LOW_SPEED_MIN_M} gets a low-speed warning. */
export const LOW_SPEED_KMH = 15;
export const LOW_SPEED_MIN_M = 50;
/** Hints look this far back for the previous intersection (metres). */
export const PREVIOUS_INTERSECTION_M = 300;
/** Landmarks are searched within this radius of the maneuver (metres). */
export const LANDMARK_RADIUS_M = 100;

export interface StepWarning {
  kind: WarningKind;
  severity: Severity;
  /** For low-speed: the stretch's average speed, km/h. */
  speedKmh?: number;
}

export interface StepHint {
  kind: HintKind;
  subject: string | Landmark;
}

export interface ItineraryStep {
  maneuver: Maneuver;
  warnings: StepWarning[];
  hints: StepHint[];
}

/** Something that knows named places: the dataset's POI layer. */
export interface LandmarkFinder {
  nearest(lat: number, lon: number, radiusM: number): Landmark | null;
}

export interface ItineraryOptions {
  /** 1-based number of the leg's first and last stop in the route. */
  fromStop: number;
  toStop: number;
  /** True when the leg ends at the route's last stop. */
  lastStop: boolean;
  landmarks?: LandmarkFinder | null;
}

const ROUNDABOUT = EdgeFlag.Roundabout;
const C = HighwayClass;
const isLink = (cls: number) => cls === C.motorway_link || cls === C.trunk_link || cls === C.primary_link || cls === C.secondary_link || cls === C.tertiary_link;
const isMain = (cls: number) => cls === C.motorway || cls === C.trunk;
const isFastLink = (cls: number) => cls === C.motorway_link || cls === C.trunk_link;
/** Importance of a road class for "which way is obvious" (lower = more important). */
const RANK: readonly number[] = (() => {
  const r: number[] = [];
  const set = (cls: number, v: number) => (r[cls] = v);
  set(C.motorway, 0); set(C.trunk, 1); set(C.primary, 2); set(C.secondary, 3); set(C.tertiary, 4);
  set(C.motorway_link, 1); set(C.trunk_link, 2); set(C.primary_link, 3); set(C.secondary_link, 4); set(C.tertiary_link, 5);
  set(C.unclassified, 5); set(C.residential, 5); set(C.road, 5); set(C.living_street, 6); set(C.service, 7);
  set(C.ferry, 5); set(C.shuttle_train, 5);
  return r;
})();
const rank = (cls: number) => RANK[cls] ?? 5;

/** The modifier of a turn angle (degrees, > 0 right). */
export function turnModifier(theta: number): ManeuverModifier {
  const a = Math.abs(theta);
  const side = theta > 0 ? 'right' : 'left';
  if (a < 20) return 'straight';
  if (a < 60) return side === 'right' ? 'slight right' : 'slight left';
  if (a < 140) return side;
  return side === 'right' ? 'sharp right' : 'sharp left';
}

function label(g: RoadGraph, a: number): RoadLabel {
  return {
    name: g.arcName(a),
    ref: g.arcRef(a).split(';').map((s) => s.trim()).filter(Boolean).join(' / '),
    destination: g.arcDestination(a),
    cls: HIGHWAY_CLASS_NAMES[g.arcHighwayClass(a)] ?? 'road',
  };
}

/** {@link sameRoad} on two arcs' string ids (no strings decoded: the hot path). */
function sameArcRoad(g: RoadGraph, a: number, b: number): boolean {
  const ea = g.arcEdge[a] >>> 1;
  const eb = g.arcEdge[b] >>> 1;
  const na = g.edgeNameId[ea];
  const nb = g.edgeNameId[eb];
  if (na !== 0 || nb !== 0) return na === nb;
  const ra = g.edgeRefId[ea];
  const rb = g.edgeRefId[eb];
  if (ra !== 0 || rb !== 0) return ra === rb;
  return g.edgeClass[ea] === g.edgeClass[eb];
}

/** The same road for a driver: same name, else same ref, else both unnamed of one class. */
function sameRoad(x: RoadLabel, y: RoadLabel): boolean {
  if (x.name !== '' || y.name !== '') return x.name === y.name;
  if (x.ref !== '' || y.ref !== '') return x.ref === y.ref;
  return x.cls === y.cls;
}

/** A maneuver under construction, with where it sits on the path. */
interface Raw {
  m: Maneuver;
  /** Turn angle at the maneuver (0 for depart/arrive). */
  theta: number;
  /** Index of the first driven piece of its stretch. */
  piece: number;
  /** Path position (centimetres, milliseconds from the leg's start). */
  cm: number;
  ms: number;
  /** Junction index along the path (−1 depart, P − 1 arrive). */
  junction: number;
}

interface Option {
  road: number;
  theta: number;
  cls: number;
  arc: number;
}

/** The itinerary of one leg: depart, the maneuvers, arrive; each with its warnings and hints. */
export function buildItinerary(g: RoadGraph, route: RouteGeometry, from: Snap, to: Snap, opts: ItineraryOptions): ItineraryStep[] {
  const J = JunctionIndex.of(g);
  // Driven pieces only (a point right on a node drives nothing of its entry arc).
  const P = route.pieces.filter((p) => p.toFraction > p.fromFraction || p.lengthCm > 0);
  const cmEnd: number[] = [];
  const msEnd: number[] = [];
  let cm = 0;
  let ms = 0;
  for (const p of P) {
    cm += p.lengthCm;
    ms += p.timeMs;
    cmEnd.push(cm);
    msEnd.push(ms);
  }
  // Totals are the route's own (zero-length entry pieces carry no cost).
  const totalCm = route.lengthCm;
  const totalMs = route.timeMs;

  const raws: Raw[] = [];
  const lat0 = route.lat[0];
  const lon0 = route.lon[0];
  const firstArc = P.length ? P[0].arc : -1;
  const startLabel = firstArc >= 0 ? label(g, firstArc) : { name: '', ref: '', destination: '', cls: 'road' };
  const departBearing = lineBearing(route.lat, route.lon, 0, +1);
  raws.push({
    m: mk('depart', undefined, departBearing, departBearing, startLabel, startLabel, lat0, lon0, 0, { stop: opts.fromStop }),
    theta: 0, piece: 0, cm: 0, ms: 0, junction: -1,
  });

  let pending: { raw: Raw; inBearing: number; exits: number } | null = null;
  for (let i = 0; i + 1 < P.length; i++) {
    const a = P[i].arc;
    const b = P[i + 1].arc;
    const v = g.head[a];
    const inEnd = J.arrivingEnd(a);
    const outEnd = J.leavingEnd(b);
    const inBearing = (J.bearingAway(inEnd) + 180) % 360;
    const outBearing = J.bearingAway(outEnd);
    const theta = turnAngle(inBearing, outBearing);
    const c = J.canon[v];
    const options: Option[] = [];
    const incoming: number[] = [];
    for (let k = J.start[c]; k < J.start[c + 1]; k++) {
      const r = J.roads[k];
      if (r === inEnd || r === outEnd) continue;
      const arc = J.leaveArc(v, r);
      if (arc >= 0) options.push({ road: r, theta: turnAngle(inBearing, J.bearingAway(r)), cls: g.edgeClass[r >>> 1], arc });
      else if (!J.leavable(r)) incoming.push(r);
    }
    const inRb = (g.arcFlags(a) & ROUNDABOUT) !== 0;
    const outRb = (g.arcFlags(b) & ROUNDABOUT) !== 0;
    const lat = g.lat[v];
    const lon = g.lon[v];
    const at = { piece: i + 1, cm: cmEnd[i], ms: msEnd[i], junction: i };
    const point = P[i + 1].firstPoint;

    if (outRb || inRb) {
      const inL = label(g, a);
      const outL = label(g, b);
      if (outRb && !inRb) {
      // Entering a roundabout: one maneuver, emitted when we leave it (the exit is known then).
      const raw: Raw = { m: mk('roundabout', undefined, inBearing, outBearing, outL, inL, lat, lon, point, { node: v }), theta, ...at };
      pending = { raw, inBearing, exits: 0 };
      continue;
    }
    if (inRb && outRb) {
      if (!pending) pending = { raw: { m: mk('roundabout', undefined, inBearing, outBearing, outL, inL, lat, lon, point, { node: v }), theta, ...at }, inBearing, exits: 0 };
      if (options.some((o) => (g.edgeFlags[o.road >>> 1] & ROUNDABOUT) === 0)) pending.exits++;
      continue;
    }
    if (inRb && !outRb) {
      const p = pending ?? { raw: { m: mk('roundabout', undefined, inBearing, outBearing, outL, inL, lat, lon, point, { node: v }), theta, ...at }, inBearing, exits: 0 };
      p.raw.m.exit = p.exits + 1;
      p.raw.m.road = outL;
      p.raw.m.bearingAfter = outBearing;
      const total = turnAngle(p.inBearing, outBearing);
      p.raw.m.modifier = turnModifier(total);
      p.raw.theta = total;
      raws.push(p.raw);
      pending = null;
      continue;
      }
    }

    const kind = classify(theta, options, incoming, a, b, inEnd, outEnd, inBearing, g, J);
    if (!kind) continue;
    raws.push({ m: mk(kind.type, kind.modifier, inBearing, outBearing, label(g, b), label(g, a), lat, lon, point, { node: v }), theta, ...at });
  }
  if (pending) {
    // The leg ends inside the roundabout: the exit is the next one.
    pending.raw.m.exit = pending.exits + 1;
    pending.raw.m.modifier = turnModifier(pending.raw.theta);
    raws.push(pending.raw);
  }

  const n = route.lat.length;
  const endBearing = lineBearing(route.lat, route.lon, n - 1, -1);
  const lastArc = P.length ? P[P.length - 1].arc : -1;
  const endLabel = lastArc >= 0 ? label(g, lastArc) : startLabel;
  let side: ManeuverModifier | undefined;
  if (to.distanceM >= 1) {
    const t = turnAngle(endBearing, bearing(to.lat, to.lon, to.queryLat, to.queryLon));
    if (Math.abs(t) >= 20 && Math.abs(t) <= 160) side = t > 0 ? 'right' : 'left';
  }
  raws.push({
    m: mk('arrive', side, endBearing, endBearing, endLabel, endLabel, route.lat[n - 1], route.lon[n - 1], n - 1, { stop: opts.toStop, lastStop: opts.lastStop }),
    theta: 0, piece: P.length, cm: totalCm, ms: totalMs, junction: P.length - 1,
  });

  const kept = collapse(raws);
  // Stretch lengths and times (the last stretch ends at the route's totals).
  for (let k = 0; k < kept.length; k++) {
    const next = kept[k + 1];
    kept[k].m.lengthCm = next ? next.cm - kept[k].cm : 0;
    kept[k].m.timeMs = next ? next.ms - kept[k].ms : 0;
  }
  return kept.map((r, k) => ({
    maneuver: r.m,
    warnings: r.m.type === 'arrive' ? [] : stretchWarnings(g, J, P, r, kept[k + 1]),
    hints: hintsAt(g, J, P, r, kept[k - 1], kept[k + 1], opts.landmarks ?? null),
  }));
}

function mk(
  type: ManeuverType, modifier: ManeuverModifier | undefined, bearingBefore: number, bearingAfter: number,
  road: RoadLabel, fromRoad: RoadLabel, lat: number, lon: number, pointIndex: number, extra: Partial<Maneuver> = {},
): Maneuver {
  const m: Maneuver = { type, bearingBefore: Math.round(bearingBefore), bearingAfter: Math.round(bearingAfter) % 360, road, fromRoad, lat, lon, pointIndex, lengthCm: 0, timeMs: 0, ...extra };
  if (modifier) m.modifier = modifier;
  return m;
}

/** Bearing of the polyline from point `i` over about 10 m in direction `dir` (+1 forward, −1: the travel direction arriving at i). */
function lineBearing(lat: Float64Array, lon: Float64Array, i: number, dir: 1 | -1): number {
  const n = lat.length;
  let j = i + dir;
  const k = Math.cos((lat[i] * Math.PI) / 180) * 111320;
  while (j >= 0 && j < n) {
    const d = Math.hypot((lat[j] - lat[i]) * 110540, (lon[j] - lon[i]) * k);
    if (d >= 10 || j === 0 || j === n - 1) break;
    j += dir;
  }
  j = Math.max(0, Math.min(n - 1, j));
  if (j === i) return 0;
  return dir > 0 ? bearing(lat[i], lon[i], lat[j], lon[j]) : bearing(lat[j], lon[j], lat[i], lon[i]);
}

/** The kind of maneuver at an ordinary junction (not a roundabout), or null when none is worth saying. */
function classify(
  theta: number, options: Option[], incoming: number[], a: number, b: number,
  inEnd: number, outEnd: number, inBearing: number, g: RoadGraph, J: JunctionIndex,
): { type: ManeuverType; modifier?: ManeuverModifier } | null {
  if (outEnd === inEnd) return { type: 'uturn', modifier: 'uturn' };
  const inCls = g.arcHighwayClass(a);
  const outCls = g.arcHighwayClass(b);
  const eb = g.arcEdge[b] >>> 1;
  const named = g.edgeNameId[eb] !== 0 || g.edgeRefId[eb] !== 0;
  const same = sameArcRoad(g, a, b);
  const change = !same && named ? { type: 'name-change' as const, modifier: turnModifier(theta) } : null;

  // Ramps and merges.
  if (isLink(outCls) && !isLink(inCls)) {
    if (isMain(inCls) && options.length > 0) {
      const main = options.reduce((x, y) => (Math.abs(y.theta) < Math.abs(x.theta) ? y : x));
      return { type: 'off-ramp', modifier: theta > main.theta ? 'slight right' : 'slight left' };
    }
    if (isFastLink(outCls) && !isMain(inCls)) return { type: 'on-ramp', modifier: turnModifier(theta) };
  }
  if (isLink(inCls) && isMain(outCls)) {
    const main = incoming.filter((r) => isMain(g.edgeClass[r >>> 1]));
    if (main.length > 0 && options.length === 0) {
      const awayIn = (inBearing + 180) % 360;
      const d = turnAngle(awayIn, J.bearingAway(main[0]));
      return { type: 'merge', modifier: d > 0 ? 'slight left' : 'slight right' };
    }
  }
  if (options.length === 0) return change;

  const absT = Math.abs(theta);
  const rOut = rank(outCls);
  // Staying on the road while ramps leave it (they may carry its ref): nothing to say.
  if (!isLink(outCls) && !isLink(inCls) && absT <= 35 && options.every((o) => isLink(o.cls))) return change;
  // Fork: two comparable branches ahead.
  const ahead = options.filter((o) => Math.abs(o.theta) < 45);
  if (ahead.length === 1 && absT < 45 && options.length === 1) {
    const o = ahead[0];
    const comparable = Math.abs(rank(o.cls) - rOut) <= 1;
    const oneKeepsName = same !== sameArcRoad(g, a, o.arc);
    if (comparable && Math.abs(theta - o.theta) < 60 && (!oneKeepsName || (isMain(outCls) && isMain(o.cls)) || (isLink(outCls) && isLink(o.cls)))) {
      if (!(absT < 10 && Math.abs(o.theta) >= 25 && !isLink(outCls))) return { type: 'fork', modifier: theta < o.theta ? 'slight left' : 'slight right' };
    }
  }
  // Obvious continuation: no comparable road competes with ours.
  const competing = (o: Option) => rank(o.cls) <= rOut + 1 && Math.abs(o.theta) < Math.max(40, absT + 20);
  const straighterComparable = options.some((o) => rank(o.cls) <= rOut && Math.abs(o.theta) < absT - 10);
  if (absT <= 35 && !options.some(competing)) return change;
  if (same && absT <= 60 && !straighterComparable && !options.some((o) => sameArcRoad(g, a, o.arc))) return change;
  if (absT <= 45 && options.every((o) => rank(o.cls) >= rOut + 2) && !options.some((o) => Math.abs(o.theta) < absT - 10 && rank(o.cls) <= rOut + 2)) return change;

  // End of road: nothing goes on ahead, roads go off to both sides.
  if (absT >= 50 && absT <= 130 && !options.some((o) => Math.abs(o.theta) < 40)) {
    if (options.some((o) => Math.sign(o.theta) !== Math.sign(theta) && Math.abs(o.theta) >= 50 && Math.abs(o.theta) <= 130)) {
      return { type: 'end-of-road', modifier: theta > 0 ? 'right' : 'left' };
    }
  }
  const mod = turnModifier(theta);
  if (mod === 'straight') return { type: 'continue', modifier: 'straight' };
  if (same && options.some((o) => Math.abs(o.theta) < 25)) return { type: 'continue', modifier: mod };
  return { type: 'turn', modifier: mod };
}

const JUNCTION_TYPES = new Set<ManeuverType>(['turn', 'end-of-road', 'fork', 'merge', 'on-ramp', 'off-ramp', 'continue', 'uturn', 'name-change']);

/** Merges maneuvers closer than {@link COLLAPSE_M}; drops a name that changes and changes back within 50 m. */
function collapse(raws: Raw[]): Raw[] {
  const out: Raw[] = [];
  for (const r of raws) {
    const prev = out[out.length - 1];
    if (prev && JUNCTION_TYPES.has(prev.m.type) && JUNCTION_TYPES.has(r.m.type)) {
      const gap = r.cm - prev.cm;
      const total = turnAngle(prev.m.bearingBefore, r.m.bearingAfter);
      const uturn = Math.sign(prev.theta) === Math.sign(r.theta) && Math.abs(prev.theta) >= 45 && Math.abs(r.theta) >= 45 && Math.abs(total) >= 150;
      if (uturn && gap < UTURN_CONNECTOR_M * 100 && r.m.type !== 'name-change' && prev.m.type !== 'name-change') {
        // Across a dual carriageway's median (or round a short block end): one U-turn.
        prev.m.road = r.m.road;
        prev.m.bearingAfter = r.m.bearingAfter;
        prev.theta = total;
        prev.m.type = 'uturn';
        prev.m.modifier = 'uturn';
        continue;
      }
      if (gap < COLLAPSE_M * 100) {
        if (r.m.type === 'name-change') {
          prev.m.road = r.m.road;
          prev.m.bearingAfter = r.m.bearingAfter;
          continue;
        }
        if (prev.m.type === 'name-change') {
          r.m.fromRoad = prev.m.fromRoad;
          r.m.bearingBefore = prev.m.bearingBefore;
          r.theta = turnAngle(r.m.bearingBefore, r.m.bearingAfter);
          if (r.m.type === 'turn' || r.m.type === 'continue') r.m.modifier = turnModifier(r.theta);
          out[out.length - 1] = { ...r, m: { ...r.m, lat: prev.m.lat, lon: prev.m.lon, pointIndex: prev.m.pointIndex }, cm: prev.cm, ms: prev.ms, piece: prev.piece, junction: prev.junction };
          continue;
        }
        // Two turns in a few metres: one maneuver from the first's road to the second's.
        const bothSameSide = Math.sign(prev.theta) === Math.sign(r.theta) && prev.theta !== 0;
        prev.m.road = r.m.road;
        prev.m.bearingAfter = r.m.bearingAfter;
        prev.theta = total;
        if (bothSameSide && Math.abs(total) >= 150) {
          prev.m.type = 'uturn';
          prev.m.modifier = 'uturn';
        } else if (prev.m.type === 'turn' || prev.m.type === 'continue' || prev.m.type === 'end-of-road' || prev.m.type === 'uturn') {
          const mod = turnModifier(total);
          prev.m.type = mod === 'straight' ? 'continue' : prev.m.type === 'end-of-road' && mod !== 'left' && mod !== 'right' ? 'turn' : prev.m.type === 'uturn' ? 'turn' : prev.m.type;
          prev.m.modifier = mod;
        }
        continue;
      }
      // A -> B -> A within 50 m: the B stretch is noise.
      if (gap < 5000 && prev.m.type === 'name-change' && r.m.type === 'name-change' && sameRoad(prev.m.fromRoad, r.m.road)) {
        out.pop();
        continue;
      }
    }
    out.push(r);
  }
  return out;
}

/** Warnings of the stretch from maneuver `r` to the next one. */
function stretchWarnings(g: RoadGraph, J: JunctionIndex, P: RouteGeometry['pieces'], r: Raw, next: Raw | undefined): StepWarning[] {
  const end = next ? next.piece : P.length;
  let flags = 0;
  let motorway = false;
  let cm = 0;
  let ms = 0;
  for (let i = r.piece; i < end; i++) {
    const p = P[i];
    flags |= g.arcFlags(p.arc);
    if (g.arcHighwayClass(p.arc) === C.motorway) motorway = true;
    cm += p.lengthCm;
    ms += p.timeMs;
  }
  const w: StepWarning[] = [];
  const add = (kind: WarningKind, extra: Partial<StepWarning> = {}) => w.push({ kind, severity: WARNING_SEVERITY[kind], ...extra });
  if (flags & EdgeFlag.Private) add('private');
  if (flags & EdgeFlag.Destination) add('destination-only');
  if (flags & EdgeFlag.Ferry) add('ferry');
  if (flags & EdgeFlag.Unpaved) add('unpaved');
  if (flags & EdgeFlag.Toll) add('toll');
  if (motorway) add('motorway');
  if (flags & EdgeFlag.Tunnel) add('tunnel');
  if (!(flags & EdgeFlag.Ferry) && cm >= LOW_SPEED_MIN_M * 100 && ms > 0) {
    const kmh = (cm / 100 / (ms / 1000)) * 3.6;
    if (kmh < LOW_SPEED_KMH) add('low-speed', { speedKmh: Math.round(kmh) });
  }
  // A turn restriction at a junction of the stretch (up to and including the next maneuver's).
  const lastJ = next ? next.junction : P.length - 1;
  for (let i = Math.max(0, r.piece); i < lastJ + 1 && i + 1 < P.length; i++) {
    if (restrictedAt(g, J, P[i].arc)) {
      add('restricted-turn');
      break;
    }
  }
  return w;
}

/** True when, arriving along arc `a`, some road at its head junction could be driven but for a turn restriction. */
function restrictedAt(g: RoadGraph, J: JunctionIndex, a: number): boolean {
  const v = g.head[a];
  const c = J.canon[v];
  if (J.start[c + 1] - J.start[c] < 3) return false;
  const inEnd = J.arrivingEnd(a);
  for (let k = J.start[c]; k < J.start[c + 1]; k++) {
    const r = J.roads[k];
    if (r === inEnd) continue;
    if (J.leaveArc(v, r) < 0 && J.leavable(r)) return true;
  }
  return false;
}

/** Names (name, else ref) of the roads at the junction where arc `a` arrives, other than `skip`. */
function crossName(g: RoadGraph, J: JunctionIndex, a: number, skip: readonly string[]): string {
  const c = J.canon[g.head[a]];
  if (J.start[c + 1] - J.start[c] < 3) return '';
  for (let k = J.start[c]; k < J.start[c + 1]; k++) {
    const e = J.roads[k] >>> 1;
    const name = g.string(g.edgeNameId[e]) || g.string(g.edgeRefId[e]);
    if (name !== '' && !skip.includes(name)) return name;
  }
  return '';
}

function hintsAt(g: RoadGraph, J: JunctionIndex, P: RouteGeometry['pieces'], r: Raw, prev: Raw | undefined, next: Raw | undefined, landmarks: LandmarkFinder | null): StepHint[] {
  const hints: StepHint[] = [];
  const m = r.m;
  const skip = [m.fromRoad.name || m.fromRoad.ref, m.road.name || m.road.ref];
  if (m.type !== 'depart') {
    // The last named cross street before the maneuver, within the previous stretch and range.
    const stop = prev ? prev.junction : -1;
    let back = 0;
    for (let i = r.junction - 1; i > stop && i >= 0; i--) {
      back += P[i + 1].lengthCm;
      if (back > PREVIOUS_INTERSECTION_M * 100) break;
      const name = crossName(g, J, P[i].arc, skip);
      if (name) {
        hints.push({ kind: 'previous-intersection', subject: name });
        break;
      }
    }
  }
  if (m.type !== 'arrive') {
    const stop = next ? next.junction : P.length - 1;
    for (let i = r.junction + 1; i < stop && i + 1 < P.length; i++) {
      const name = crossName(g, J, P[i].arc, skip);
      if (name) {
        hints.push({ kind: 'next-intersection', subject: name });
        break;
      }
    }
  }
  if (landmarks && m.type !== 'depart' && m.type !== 'arrive') {
    const l = landmarks.nearest(m.lat, m.lon, LANDMARK_RADIUS_M);
    if (l) hints.push({ kind: 'landmark', subject: l });
  }
  return hints;
}
