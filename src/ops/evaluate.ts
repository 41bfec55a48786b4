/**
 * EvaluatePlan (an extension, issue #25): a DispatchSpecification and a plan given by hand —
 * per vehicle its stops in order, by Name — checked and timed on the road network without
 * optimising. The records go through Dispatch's own stages (placement, the travel matrix, the
 * solver's model: ops/dispatch), the plan through the solver's schedule (vrp/evaluate.ts), and
 * the answer is Dispatch's (Items with ETAs and legs, toResult) plus the rules the plan breaks,
 * by how much, and for each stop it leaves out the vehicle and place that come closest.
 *
 * The prepared model of a specification is kept (a few per engine): a dispatcher dragging stops
 * about asks about one specification many times, and only the first pays for the matrix.
 */
import { createHash } from 'node:crypto';
import {
  EvaluatePlanSpecificationSchema, failedFromIssues, failedFromError, secondsToDate, statusFor,
  type DispatchResult, type DispatchSpecification, type EvaluatePlanResult, type Issue, type Location, type PlanViolationRecord,
  type UnservedStopRecord, type Vehicle,
} from '../records/index.js';
import { roundDistance } from '../core/units.js';
import { throwIfAborted } from '../core/cancel.js';
import { buildProblem, REASON_CODES, REASON_TEXT, type Problem } from '../vrp/model.js';
import { closestFit, evaluatePlan, lastClose, type PlanViolation, type PlannedRoute } from '../vrp/evaluate.js';
import type { OpOptions, OpsContext } from './context.js';
import { prepareDispatch, prepareProblemOffThread, type Prepared } from './dispatch/index.js';
import { toResult } from './dispatch/result.js';
import { SCALE_Q, words, type Bookkeeping } from './dispatch/types.js';

interface Model { spec: Prepared['spec']; b: Prepared['b']; pb: Problem }

/** Prepared models per travel provider (one engine), newest last. */
const MODELS = new WeakMap<object, Map<string, Promise<Model | DispatchResult>>>();
const KEEP = 4;

async function modelOf(ctx: OpsContext, spec: DispatchSpecification, opts: OpOptions): Promise<Model | DispatchResult> {
  const key = createHash('sha1').update(JSON.stringify(spec)).digest('base64');
  let cache = MODELS.get(ctx.travel);
  if (!cache) MODELS.set(ctx.travel, (cache = new Map()));
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const made = (async (): Promise<Model | DispatchResult> => {
    // offloading (the default), the model is built on the executor: the caller's loop stays free
    if (opts.offload && ctx.executor.offThread) return prepareProblemOffThread(ctx, spec, opts);
    const p = await prepareDispatch(ctx, spec, opts, undefined);
    if ('Status' in p) return p;
    return { spec: p.spec, b: p.b, pb: buildProblem(p.input) };
  })();
  cache.set(key, made);
  while (cache.size > KEEP) cache.delete(cache.keys().next().value!);
  // a failure (a cancelled matrix) is not kept
  made.then((m) => { if ('Status' in m) cache.delete(key); }, () => cache.delete(key));
  return made;
}

const FAILED = { Items: [], Violations: [], Unserved: [], Feasible: false };

export async function evaluatePlanOp(ctx: OpsContext, raw: unknown, opts: OpOptions = {}): Promise<EvaluatePlanResult> {
  const parsed = EvaluatePlanSpecificationSchema.safeParse(raw);
  if (!parsed.ok) return failedFromIssues(parsed.issues, FAILED) as EvaluatePlanResult;
  const spec = parsed.value.Specification as DispatchSpecification;
  try {
    const m = await modelOf(ctx, spec, opts);
    if ('Status' in m) return { ...m, Feasible: false, Violations: [], Unserved: [] } as unknown as EvaluatePlanResult;
    return await evaluateOn(m, parsed.value.Routes ?? [], parsed.value.Explain !== false, opts.signal);
  } catch (e) {
    return failedFromError(e, FAILED) as EvaluatePlanResult;
  }
}

/** The plan's names → the model's vehicles and stops; issues name `Routes[i]…`. */
function planOf(m: Model, routes: readonly { Vehicle?: string; Locations?: string[] }[]): { plan: PlannedRoute[]; names: string[] } | { issues: Issue[] } {
  const { b, pb } = m;
  const locs = m.spec.Locations ?? [];
  const issues: Issue[] = [];
  const modelVehicle = (name: string): number => {
    for (let mv = 0; mv < b.modelOf.length; mv++) {
      const base = b.vehicles[b.modelOf[mv]]?.Name ?? '';
      if ((b.tripOf[mv] === 1 && name === base) || (b.tripOf[mv] > 1 && name === `${base}_${b.tripOf[mv]}`)) return mv;
    }
    return -1;
  };
  const locOf = new Map<string, number>();
  locs.forEach((l, i) => { if (l?.Name !== undefined && !locOf.has(l.Name)) locOf.set(l.Name, i); });
  const copies = new Map<number, number[]>();
  b.stopLoc.forEach((li, s) => { const c = copies.get(li) ?? []; c.push(s); copies.set(li, c); });
  const breakNoPlace = new Set(b.breakLoc.flat());
  const usedStop = new Set<number>();
  const usedVehicle = new Map<number, number>();
  const where = new Map<number, string>();
  const plan: PlannedRoute[] = [];
  const names: string[] = [];
  routes.forEach((r, ri) => {
    const name = r.Vehicle ?? '';
    const v = modelVehicle(name);
    if (v < 0) { issues.push({ path: `Routes[${ri}].Vehicle`, message: `names no vehicle of the specification ('${name}')` }); return; }
    if (usedVehicle.has(v)) { issues.push({ path: `Routes[${ri}].Vehicle`, message: `'${name}' has a route already (Routes[${usedVehicle.get(v)}])` }); return; }
    usedVehicle.set(v, ri);
    const stops: number[] = [];
    (r.Locations ?? []).forEach((ln, k) => {
      const path = `Routes[${ri}].Locations[${k}]`;
      const li = locOf.get(ln);
      if (li === undefined) { issues.push({ path, message: `names no Location ('${ln}')` }); return; }
      const type = locs[li]?.LocationType ?? 'Midway';
      if (type === 'Start' || type === 'Finish' || breakNoPlace.has(li)) return; // the vehicle's own ends, breaks scheduled by themselves
      const cands = copies.get(li);
      if (!cands) {
        const why = b.errors.find((e) => e.includes(`(Locations[${li}])`))?.replace(/^.*? was not dispatched: /, '');
        issues.push({ path, message: `'${ln}' cannot be planned${why ? `: ${why}` : ''}` });
        return;
      }
      const free = cands.filter((s) => !usedStop.has(s));
      const s = free.find((x) => !pb.allowed || pb.allowed[pb.stopJob[x] * pb.V + v] === 1) ?? free[0];
      if (s === undefined) { issues.push({ path, message: `'${ln}' is in the plan already (${where.get(li)})` }); return; }
      usedStop.add(s);
      if (!where.has(li)) where.set(li, path);
      stops.push(s);
    });
    plan.push({ vehicle: v, stops });
    names.push(name);
  });
  return issues.length ? { issues } : { plan, names };
}

/** Work between two turns of the caller's event loop while stops left out are explained (ms). */
const SLICE_MS = 8;

async function evaluateOn(m: Model, routes: readonly { Vehicle?: string; Locations?: string[] }[], explain: boolean, signal?: AbortSignal): Promise<EvaluatePlanResult> {
  const mapped = planOf(m, routes);
  if ('issues' in mapped) return failedFromIssues(mapped.issues, FAILED) as EvaluatePlanResult;
  const { spec, b, pb } = m;
  const { plan, names } = mapped;
  const ev = evaluatePlan(pb, plan);
  const locs = spec.Locations ?? [];
  const say = sayer(b);
  const violations = records(ev.violations, (x) => names[x.route], (x) => plan[x.route].vehicle, m, say);
  const unserved: UnservedStopRecord[] = [];
  const unassigned: { stop: number; reason: 'notInserted'; message: string }[] = [];
  let slice = performance.now();
  for (const s of ev.unplanned) {
    // many stops left out take a while to explain: the caller's loop gets its turns meanwhile
    if (performance.now() - slice > SLICE_MS) {
      await new Promise((r) => setImmediate(r));
      throwIfAborted(signal);
      slice = performance.now();
    }
    const li = b.stopLoc[s];
    const l = locs[li] as Location;
    let rec: UnservedStopRecord = { Location: l.Name, Index: li, Fits: false, Misses: [], Message: 'It is in no route.' };
    if (explain) {
      const fit = closestFit(pb, plan, s);
      if (!fit) {
        const j = pb.stopJob[s];
        rec.Message = `No vehicle may serve it: ${pb.jInfeasible[j] >= 0 ? REASON_TEXT[REASON_CODES[pb.jInfeasible[j]]] : 'its Conditions, pre-assigned Vehicle or the vehicles\' zones rule every vehicle out'}.`;
      } else {
        const vname = tripName(b, fit.vehicle);
        const ri = plan.findIndex((r) => r.vehicle === fit.vehicle);
        const seq = ri >= 0 ? plan[ri].stops : [];
        const after = fit.position > 0 ? `after '${locs[b.stopLoc[seq[fit.position - 1]]]?.Name}'` : 'first';
        const misses = records(fit.misses, () => vname, () => fit.vehicle, m, say);
        rec = {
          ...rec, Fits: fit.fits, Vehicle: vname, Position: fit.position, Misses: misses,
          Message: fit.fits
            ? `${vname} can take it (${after}) without breaking a rule.`
            : `${vname} comes closest (${after}): ${misses.map((x) => x.Message).join('; ')}.`,
        };
      }
    }
    unserved.push(rec);
    unassigned.push({ stop: s, reason: 'notInserted', message: `it is in no route: ${rec.Message}` });
  }
  const res = toResult(spec, b, {
    routes: ev.routes, unassigned, cost: ev.cost, distance: ev.distance, travelTime: ev.travelTime, duration: ev.duration, vehicles: ev.routes.length,
    stats: { seed: 0, workers: 0, iterations: 0, work: 0, improvements: 0, seconds: 0, stoppedBy: 'evaluation', bestWorker: 0, perWorker: [] },
  }) as DispatchResult;
  const unit = spec.DistanceUnit === 'Kilometer' ? 'Kilometer' : 'Mile';
  return {
    ...res, ...statusFor((res.Errors ?? []).map((e) => e.Message ?? '')),
    Feasible: violations.length === 0, Violations: violations, Unserved: unserved,
    Distance: roundDistance(ev.distance / b.unit, unit), Time: Math.round(ev.travelTime), Duration: Math.round(ev.duration), Cost: Math.round(ev.cost * 1000) / 1000,
  } as EvaluatePlanResult;
}

/** A model vehicle's name in the answer: its Name, `<Name>_k` for its k-th trip. */
function tripName(b: Bookkeeping, mv: number): string {
  const base = b.vehicles[b.modelOf[mv]]?.Name ?? `Vehicle ${b.modelOf[mv] + 1}`;
  return b.tripOf[mv] === 1 ? base : `${base}_${b.tripOf[mv]}`;
}

interface Sayer {
  clock(t: number): string;
  minutes(s: number): string;
  amount(x: number): string;
}

function sayer(b: Bookkeeping): Sayer {
  return {
    clock: (t) => (b.hasClock ? secondsToDate(b.origin + t, b.utc).slice(11, 16) : `${Math.round(t / 60)} min`),
    minutes: (s) => (s >= 3600 ? `${Math.floor(s / 3600)} h ${String(Math.round((s % 3600) / 60)).padStart(2, '0')} min` : s >= 60 ? `${Math.round(s / 60)} min` : `${Math.ceil(s)} s`),
    amount: (x) => String(Math.round(x * 1000) / 1000),
  };
}

/** Marks an eligibility violation no contract field explains (see {@link records}). */
const GENERIC = Symbol('generic');

/**
 * Kernel violations as records; an eligibility violation no field explains (a stop ruled out for
 * the vehicle on its own by its window, load or trip day) is left out when something else the
 * route breaks at that stop says why.
 */
function records(list: readonly PlanViolation[], name: (x: PlanViolation) => string, mv: (x: PlanViolation) => number, m: Model, say: Sayer): PlanViolationRecord[] {
  const out = list.map((x) => ({ x, r: violationRecord(x, name(x), mv(x), m, say) }));
  const explained = new Set(out.filter((o) => !(GENERIC in o.r) && o.x.stop >= 0).map((o) => `${o.x.route}:${o.x.stop}`));
  return out.filter((o) => !(GENERIC in o.r) || !explained.has(`${o.x.route}:${o.x.stop}`))
    .map((o) => { const { [GENERIC]: _g, ...r } = o.r as PlanViolationRecord & { [GENERIC]?: boolean }; return r; });
}

const CAPACITY_FIELDS = ['MaxWeight', 'MaxVolume', 'MaxSkids'] as const;
const DEMAND_FIELDS = ['Weight', 'Volume', 'Skids'] as const;

/** A kernel violation in the contract's terms: the kind, the field of the rule, words. */
function violationRecord(x: PlanViolation, vehicle: string, mv: number, m: Model, say: Sayer): PlanViolationRecord {
  const { spec, b, pb } = m;
  const locs = spec.Locations ?? [];
  const li = x.stop >= 0 ? b.stopLoc[x.stop] : -1;
  const l = li >= 0 ? (locs[li] as Location) : undefined;
  const vi = b.vehIdx[b.modelOf[mv]];
  const vpath = vi >= 0 ? `Vehicles[${vi}]` : 'Vehicles';
  const veh = b.vehicles[b.modelOf[mv]] as Vehicle;
  const who = l ? `'${l.Name ?? `Locations[${li}]`}'` : vehicle;
  const base = { Vehicle: vehicle, ...(l?.Name !== undefined ? { Location: l.Name } : {}) };
  switch (x.kind) {
    case 'window': {
      const close = lastClose(pb, x.stop);
      // the window holds the whole service (semantics.md): it must start by the close less the service
      return {
        ...base, Kind: 'Window', Amount: Math.round(x.amount), Field: `Locations[${li}].TimeConstraintDeparture`,
        Message: `${who} is reached ${say.minutes(x.amount)} too late for its window (to be done by ${say.clock(close + pb.sService[x.stop])}, service must start by ${say.clock(close)})`,
      };
    }
    case 'capacity': {
      const k = x.dim ?? 0;
      const scale = k < 2 ? SCALE_Q : 1;
      const cap = pb.vCap[mv * pb.K + k] / scale;
      const by = x.amount / scale;
      return { ...base, Kind: 'Capacity', Amount: by, Field: `${vpath}.${CAPACITY_FIELDS[k]}`, Message: `${vehicle} would carry ${say.amount(cap + by)} ${DEMAND_FIELDS[k]} where its ${CAPACITY_FIELDS[k]} is ${say.amount(cap)} (${say.amount(by)} over${l ? ` at ${who}` : ''})` };
    }
    case 'shift':
      return { ...base, Kind: 'Shift', Amount: Math.round(x.amount), Field: `${vpath}.Tout`, Message: `${vehicle} finishes ${say.minutes(x.amount)} after its shift ends (${say.clock(pb.vTout[mv])})` };
    case 'maxStops':
      return { ...base, Kind: 'MaxStops', Amount: x.amount, Field: `${vpath}.MaxStops`, Message: `${vehicle} has ${x.amount} stop${x.amount === 1 ? '' : 's'} more than its MaxStops (${pb.vMaxStops[mv]})` };
    case 'maxDuration':
      return { ...base, Kind: 'MaxMinutes', Amount: Math.round(x.amount), Field: `${vpath}.MaxMinutes`, Message: `${vehicle}'s route lasts ${say.minutes(x.amount)} longer than its MaxMinutes (${Math.round(pb.vMaxDur[mv] / 60)})` };
    case 'eligibility': {
      const pre = l?.Vehicle?.trim();
      if (pre && pre !== veh?.Name) return { ...base, Kind: 'Vehicle', Amount: 1, Field: `Locations[${li}].Vehicle`, Message: `${who} is for ${pre}, not ${vehicle}` };
      const need = words(l?.Conditions);
      const roles = new Set(words(veh?.Roles).map((w) => w.toLowerCase()));
      const missing = need.filter((w) => !roles.has(w.toLowerCase()));
      if (missing.length) return { ...base, Kind: 'Conditions', Amount: missing.length, Field: `Locations[${li}].Conditions`, Message: `${who} needs ${missing.join(', ')}, which ${vehicle} lacks (Roles)` };
      if ((veh?.Shapes ?? []).length > 0) return { ...base, Kind: 'Zone', Amount: 1, Field: `${vpath}.Shapes`, Message: `${who} lies where ${vehicle} may not go (its Shapes)` };
      // ruled out on its own by its window, its load or its trip's day: what else the route breaks says which
      return { ...base, Kind: 'Vehicle', Amount: 1, Field: `Locations[${li}]`, Message: `${who} cannot be served by ${vehicle} at all (its window, its load or the trip's day rule it out)`, [GENERIC]: true } as PlanViolationRecord;
    }
    case 'pair':
      return { ...base, Kind: 'Pair', Amount: 1, Field: `Locations[${li}].Delivery`, Message: `${who} and its pickup/delivery partner must be on one route, pickup first${l?.DeliveryNonStop !== false ? ', one right after the other (DeliveryNonStop)' : ''}` };
    case 'keepOrder':
      return { ...base, Kind: 'KeepOrder', Amount: 1, Field: `Locations[${li}].KeepSameOrder`, Message: `${who} comes before a stop it must follow (KeepSameOrder)` };
    case 'unreachable':
      return { ...base, Kind: 'Unreachable', Amount: 1, Field: l ? `Locations[${li}].LatLong` : `${vpath}.FinishLocation`, Message: l ? `no road leads to ${who} from the place before it` : `no road leads from ${vehicle}'s last stop to its finish` };
    case 'breaks':
      return { ...base, Kind: 'Break', Amount: 1, Field: 'Locations', Message: `${vehicle}'s breaks cannot be taken within their windows on this route` };
  }
}
