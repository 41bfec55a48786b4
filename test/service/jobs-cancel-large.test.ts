/**
 * Cancelling a 10,000-stop dispatch job (issue #25 item 7): the job, submitted and cancelled over
 * HTTP as the page does (POST /rest/jobs, DELETE /rest/jobs/{id}), is cancelled at five moments of
 * its run — while its specification is placed, while its travel matrix is computed, while the
 * solver's problem is built, while the searches construct their first plans, and while they
 * search. Each time: the job reads 'cancelled' within the target after the DELETE, the run itself
 * (its placement, matrix, build, searches on the worker threads) has ended within the target, a
 * small dispatch sent right after the cancel is answered within the target (no thread is left busy
 * with the cancelled work), and the job's reserved credit is given back.
 *
 * Target 1 s, times DK_TIME_FACTOR (default 1.5: these tests share 2 cores with the rest of the
 * suite; CI hosts have run the page tests up to 2.2× slower than the development machine — set
 * DK_TIME_FACTOR=2.2 there). Before the fix the run went on for 2 s (placement) to 14 s (the build
 * and the searches' construction), and a small dispatch waited as long. Measured figures are
 * printed (`cancel figures`).
 *
 * Progress is reported at most every 200 ms, so on a fast machine a short phase (the placement, the
 * matrix) can be over between two reports: a job seen past its moment is cancelled and a new one
 * sent, up to three times (the attempt is printed with the figures).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { MONACO_STOPS, inProcessServer, post, type TestServer } from '../helpers/service.js';
import { largeDispatch, largeStops, placesWithin } from '../ui/large-stops.js';

const TARGET_MS = 1000 * Number(process.env.DK_TIME_FACTOR ?? 1.5);
const STOPS = 10_000;
const VANS = 20;

type Moment = 'placement' | 'matrix' | 'build' | 'construction' | 'search';
interface JobView { State: string; Progress: { phase: string; done: number; total: number; info?: Record<string, unknown> } | null }

let server: TestServer;
let engine: Engine;
let key: string;
let spec: Record<string, unknown>;
/** When the large dispatch's engine call settled (performance.now()), once per run. */
let runEnded: number | null = null;
const figures: Record<string, Record<string, number>> = {};

beforeAll(async () => {
  server = await inProcessServer({ accounts: [{ name: 'dispatcher', credit: 1_000_000 }] });
  engine = server.engine;
  key = server.keys.dispatcher;
  spec = largeDispatch(largeStops(engine.datasetInfo(), STOPS, placesWithin(engine)), VANS);
  // the engine's own end of the large dispatch: when its promise settles, its tasks are over
  const run = engine.run.bind(engine);
  vi.spyOn(engine, 'run').mockImplementation(((name: string, s: unknown, o: unknown) => {
    const p = (run as (n: string, s: unknown, o: unknown) => Promise<unknown>)(name, s, o);
    const large = name === 'Dispatch' && ((s as { Locations?: unknown[] })?.Locations?.length ?? 0) > 1000;
    return large ? p.finally(() => { runEnded = performance.now(); }) : p;
  }) as never);
  // the worker threads start with the first task: not inside a measurement
  expect((await smallDispatch()).Status).toBe('Success');
}, 120_000);

afterAll(async () => {
  console.log(`cancel figures (ms after the DELETE was sent): ${JSON.stringify(figures)}`);
  await server?.close();
});

async function smallDispatch(): Promise<{ Status: string }> {
  const r = await post(server.url, '/rest/dispatch?enums=name', { Vehicles: [{ Name: 'V', StartLocation: MONACO_STOPS[0] }], Locations: MONACO_STOPS.slice(1), MinimumOptimization: 1 }, key);
  return r.json as { Status: string };
}

async function getJob(id: string): Promise<JobView> {
  return (await fetch(`${server.url}/rest/jobs/${id}`, { headers: { 'X-API-Key': key } })).json() as Promise<JobView>;
}

const balance = async (): Promise<number> => (await server.store.accountByName('dispatcher'))!.balance;

/** Whether the job is at the moment (from its progress, as GET answers it). */
function at(m: Moment, j: JobView, matrixDoneAt: number | null): boolean {
  const p = j.Progress;
  if (!p) return false;
  const best = p.info?.bestCost;
  switch (m) {
    // placement has begun and is not over (on an idle fast machine 10,000 stops are placed within one or two
    // 200 ms progress reports, so a report past 20 % may never be seen)
    case 'placement': return p.phase === 'place' && p.done < p.total;
    case 'matrix': return p.phase === 'matrix' && p.done >= p.total * 0.2 && p.done < p.total;
    // the matrix is complete: its rounding, then the solver's input and problem (a second or two)
    case 'build': return matrixDoneAt !== null && performance.now() - matrixDoneAt >= 400;
    // the searches' set-up and first plans (no cost yet: JSON has no Infinity)
    case 'construction': return p.phase === 'dispatch' && (best === null || best === undefined) && p.done === 0;
    case 'search': return p.phase === 'dispatch' && typeof best === 'number' && Number.isFinite(best) && p.done > 0;
  }
}

/**
 * Whether the job went past the moment without our seeing it (progress is reported at most every
 * 200 ms, so on a fast machine a short phase can be over between two reports).
 */
function passed(m: Moment, j: JobView, matrixDoneAt: number | null): boolean {
  const p = j.Progress;
  if (!p) return false;
  const best = p.info?.bestCost;
  const found = typeof best === 'number' && Number.isFinite(best);
  switch (m) {
    case 'placement': return p.phase !== 'place';
    case 'matrix': return p.phase !== 'place' && p.phase !== 'matrix';
    case 'build': return matrixDoneAt === null && p.phase === 'dispatch';
    case 'construction': return p.phase === 'dispatch' && (found || p.done > 0);
    case 'search': return false;
  }
}

const ATTEMPTS = 5;

async function cancelAt(m: Moment): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await cancelAtOnce(m, attempt)) return;
  }
}

/** One job cancelled at the moment; false when it went past the moment unseen (and was cancelled). */
async function cancelAtOnce(m: Moment, attempt: number): Promise<boolean> {
  const before = await balance();
  runEnded = null;
  const sub = await post(server.url, '/rest/jobs', { Operation: 'Dispatch', Specification: spec }, key);
  expect(sub.status).toBe(202);
  const id = sub.json.JobID as string;
  let matrixDoneAt: number | null = null;
  const started = performance.now();
  for (;;) {
    const j = await getJob(id);
    expect(['queued', 'active'], `the job ended before the moment "${m}": ${JSON.stringify(j)}`).toContain(j.State);
    if (j.Progress?.phase === 'matrix' && j.Progress.done >= j.Progress.total && matrixDoneAt === null) matrixDoneAt = performance.now();
    if (at(m, j, matrixDoneAt)) break;
    if (passed(m, j, matrixDoneAt)) {
      expect(attempt, `the job went past the moment "${m}" unseen in every attempt: ${JSON.stringify(j)}`).toBeLessThan(ATTEMPTS);
      await fetch(`${server.url}/rest/jobs/${id}`, { method: 'DELETE', headers: { 'X-API-Key': key } });
      while ((await getJob(id)).State !== 'cancelled') await new Promise((r) => setTimeout(r, 25));
      while (runEnded === null) await new Promise((r) => setTimeout(r, 25));
      return false;
    }
    if (performance.now() - started > 240_000) throw new Error(`the job never reached the moment "${m}"`);
    await new Promise((r) => setTimeout(r, m === 'build' ? 10 : 25));
  }
  const t0 = performance.now();
  const del = await fetch(`${server.url}/rest/jobs/${id}`, { method: 'DELETE', headers: { 'X-API-Key': key } });
  expect(del.status).toBe(200);
  let state = ((await del.json()) as JobView).State;
  while (state !== 'cancelled' && performance.now() - t0 < 30_000) {
    await new Promise((r) => setTimeout(r, 10));
    state = (await getJob(id)).State;
  }
  const cancelled = performance.now() - t0;
  expect(state).toBe('cancelled');
  // nothing charged: the reservation given back
  expect(await balance()).toBe(before);
  // the next request does not wait behind the cancelled work
  const s0 = performance.now();
  expect((await smallDispatch()).Status).toBe('Success');
  const next = performance.now() - s0;
  while (runEnded === null && performance.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 10));
  // a run cancelled before the engine got it (while the job's specification was still validated) has nothing to end
  const ended = runEnded === null ? 0 : Math.max(0, runEnded - t0);
  figures[m] = { attempt, atMs: Math.round(t0 - started), cancelledMs: Math.round(cancelled), runEndedMs: Math.round(ended), nextDispatchMs: Math.round(next) };
  expect(cancelled, `${m}: DELETE → state cancelled`).toBeLessThanOrEqual(TARGET_MS);
  expect(ended, `${m}: DELETE → the run over`).toBeLessThanOrEqual(TARGET_MS);
  expect(next, `${m}: a small dispatch after the cancel`).toBeLessThanOrEqual(TARGET_MS);
  return true;
}

describe('cancelling a 10,000-stop dispatch job', () => {
  for (const m of ['placement', 'matrix', 'build', 'construction', 'search'] as const) {
    it(`stops within the target while ${m === 'search' ? 'searching' : m === 'construction' ? 'the searches construct their first plans' : m === 'build' ? "the solver's problem is built" : m === 'matrix' ? 'the travel matrix is computed' : 'the stops are placed'}`, () => cancelAt(m), 300_000);
  }
});
