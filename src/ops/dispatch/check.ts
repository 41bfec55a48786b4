/**
 * The contract-level checker of a dispatch's schedule: reads only the answer's records (each
 * returned Location carries the request's fields), never the solver's model, so it catches a
 * wrong mapping as well as a wrong schedule. The solver's own checker (vrp/validate.ts
 * `validateSolution`) checks a solution against the model the mapping built; this one checks the
 * answer against semantics.md:
 *
 * - Service windows: service starts at or after TimeConstraintArrival and ends (start + Wait) at
 *   or before TimeConstraintDeparture, in one of the stop's windows (the second pair is a second
 *   window). CanArriveEarly false: TimeEstimatedArrival is the start of service, at or after the
 *   opening. CanArriveEarly true (default): TimeEstimatedArrival is when the vehicle gets there;
 *   service starts at the later of that and the opening.
 * - Time moves forward along a route: each entry's estimate is no earlier than the previous
 *   entry's end (its service start + Wait, a Break's start + Wait, the Start's departure) plus
 *   the leg's Time that reaches it. A window read the wrong way (a stop "served" at 09:01 whose
 *   window opens at 10:00) shows here: the next estimate comes before the service could end.
 *
 * A Break's window is when it starts (a Wait of 0 in the window test). Answers without a clock
 * (estimates unset) have nothing to check. Estimates and Times are whole seconds: 2 s of slack.
 */
import { dateToSeconds, type DispatchResult, type Location } from '../../records/index.js';

const PAIRS = [['TimeConstraintArrival', 'TimeConstraintDeparture'], ['TimeConstraintArrival2', 'TimeConstraintDeparture2']] as const;
const SLACK_S = 2;

/** Every returned location served outside its windows or out of time order, as messages naming it; [] when none. */
export function checkServiceWindows(result: DispatchResult): string[] {
  const out: string[] = [];
  for (const [v, item] of (result.Items ?? []).entries()) {
    let ready: number | null = null; // when the previous entry is done
    for (const [k, l] of (item?.Locations ?? []).entries()) {
      if (!l) continue;
      const eta = dateToSeconds(l.TimeEstimatedArrival);
      if (eta === null) continue;
      const at = `Items[${v}].Locations[${k}] ('${l.Name ?? ''}', ${l.TimeEstimatedArrival})`;
      if (ready !== null && eta + SLACK_S < ready + (l.Time ?? 0)) {
        out.push(`${at}: reached before the previous entry is done (${ready + (l.Time ?? 0) - eta} s early, after a leg of ${l.Time ?? 0} s)`);
      }
      const type = l.LocationType ?? 'Midway';
      if (k === 0 || type === 'Start' || type === 'Finish') { ready = eta; continue; }
      const isBreak = type === 'Break';
      const served = serviceStart(l, eta, isBreak);
      if (typeof served === 'string') { out.push(`${at}: ${served}`); ready = eta + (l.Wait ?? 0); continue; }
      ready = served + (l.Wait ?? 0);
    }
  }
  return out;
}

/** When service starts under the semantics (the earliest window it fits), or why it cannot. */
function serviceStart(l: Location, eta: number, isBreak: boolean): number | string {
  const wait = isBreak ? 0 : l.Wait ?? 0;
  const early = l.CanArriveEarly !== false;
  const shown: string[] = [];
  let best: number | null = null;
  let any = false;
  for (const [af, df] of PAIRS) {
    const a = dateToSeconds(l[af]);
    const d = dateToSeconds(l[df]);
    if (a !== null || d !== null) {
      any = true;
      shown.push(`[${a !== null ? l[af] : '…'}, ${d !== null ? l[df] : '…'}]`);
      const open = a === null ? -Infinity : Math.ceil(a);
      const close = d === null ? Infinity : Math.floor(d);
      const start = Math.max(eta, open);
      if ((early || eta >= open) && start + wait <= close + SLACK_S && (best === null || start < best)) best = start;
    }
    if (isBreak) break; // a Break has one window
  }
  if (!any) return eta;
  if (best !== null) return best;
  const where = shown.join(' or ');
  return early
    ? `service (Wait ${wait} s, from the later of the arrival and the opening) does not fit in ${where}`
    : `CanArriveEarly is false: the estimate is before the opening, or service (Wait ${wait} s) ends after the departure, in ${where}`;
}
