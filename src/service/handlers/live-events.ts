/**
 * LiveEvents (GET /rest/routes/{RouteID}/live/events, extension, issue #24): the route's live state
 * as server-sent events — once at once, then each time it changes: a track point of one of its
 * vehicles, a stop event or a new version wakes it (in this process), and it looks again every
 * {@link IDLE_MS} on its own (a change written by another server, estimates moving with the
 * clock). At most one state per {@link MIN_GAP_MS}: a point every second does not mean a state
 * every second. Ends when the caller goes away.
 */
import type { LiveResult, LiveSpecification } from '../../records/index.js';
import type { Call } from '../call.js';
import { instantOf } from './common.js';
import { loadLivePlan } from './live-common.js';

const MIN_GAP_MS = 1000;
const IDLE_MS = 15_000;

export async function liveEvents(spec: LiveSpecification, call: Call): Promise<AsyncIterable<LiveResult> | LiveResult> {
  const account = call.account!;
  const service = call.service;
  const state = async (): Promise<LiveResult> => {
    const asOf = instantOf(spec.AsOf) ?? service.clock();
    const loaded = await loadLivePlan(call, spec.RouteID, undefined, asOf);
    return loaded.ok ? service.engine.liveState(loaded.plan, asOf) : { ...loaded.failed, Vehicles: [] } as LiveResult;
  };
  const first = await state();
  if (first.Status === 'Failed') return first;
  const signal = call.signal;
  return (async function* changes(): AsyncGenerator<LiveResult> {
    let cur = first;
    let last = '';
    let woken = false;
    let wake: (() => void) | null = null;
    const poke = (): void => { woken = true; wake?.(); };
    const names = new Set<string>();
    const listen = (): void => {
      for (const n of names) service.changes.off(`track:${account.id}:${n}`, poke);
      names.clear();
      for (const v of cur.Vehicles ?? []) if (v.Name) names.add(v.Name);
      for (const n of names) service.changes.on(`track:${account.id}:${n}`, poke);
    };
    const routeKey = `route:${account.id}:${spec.RouteID}`;
    service.changes.on(routeKey, poke);
    signal.addEventListener('abort', poke);
    listen();
    try {
      while (!signal.aborted) {
        const text = JSON.stringify({ ...cur, AsOf: undefined });
        if (text !== last) { yield cur; last = text; }
        const since = Date.now();
        if (!woken) await new Promise<void>((r) => { wake = r; setTimeout(r, IDLE_MS); });
        wake = null;
        woken = false;
        const gap = MIN_GAP_MS - (Date.now() - since);
        if (gap > 0 && !signal.aborted) await new Promise((r) => setTimeout(r, gap));
        if (signal.aborted) break;
        const before = cur.Version;
        cur = await state().catch(() => cur);
        if (cur.Version !== before) listen();
      }
    } finally {
      service.changes.off(routeKey, poke);
      for (const n of names) service.changes.off(`track:${account.id}:${n}`, poke);
      signal.removeEventListener('abort', poke);
    }
  })();
}

