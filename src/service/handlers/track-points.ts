/**
 * TrackPoints (extension): records GPS points on a track of the caller's account. The body is a
 * TrackPointsSpecification or a bare JSON array of TrackPoints; each point is checked on its own,
 * so that every bad one is named at once.
 */
import { TrackPointSchema, TrackPointsSpecificationSchema, failedFromIssues, type Issue, type TrackPointsResult } from '../../records/index.js';
import type { TrackPoint } from '../../store/types.js';
import { Ticker } from '../../core/cancel.js';
import { latLonProblems } from '../../core/geo.js';
import type { Call } from '../call.js';
import type { ParseOutcome } from '../operations.js';
import { instantOf, MAX_NAME } from './common.js';
import { retentionCutoffs } from '../../store/rules.js';

/**
 * Most track points one TrackPoints request may record: they are written in one transaction,
 * which holds a server's event loop (SQLite) for as long as it takes — 5,000 points ≈ 25 ms here.
 * A vehicle sends a few at a time; a bulk import splits its points.
 */
export const MAX_POINTS = 5_000;

export interface TrackPointsInput {
  /** The track (default: the account's name). */
  track: string | undefined;
  points: TrackPoint[];
}

function prop(body: unknown, name: string): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(body)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function withoutProp(body: unknown, name: string): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const lower = name.toLowerCase();
  return Object.fromEntries(Object.entries(body).filter(([k]) => k.toLowerCase() !== lower));
}

export async function parseTrackPoints(raw: unknown): Promise<ParseOutcome<TrackPointsInput>> {
  const body = Array.isArray(raw) ? { TrackPoints: raw } : raw ?? {};
  const list = prop(body, 'TrackPoints');
  const given = Array.isArray(list) ? list : null;
  const p = TrackPointsSpecificationSchema.safeParse(given ? withoutProp(body, 'TrackPoints') : body);
  const issues: Issue[] = p.ok ? [] : p.issues;
  if (p.ok && (p.value.Account?.length ?? 0) > MAX_NAME) issues.push({ path: 'Account', message: `at most ${MAX_NAME} characters (got ${p.value.Account!.length})` });
  if (given && given.length > MAX_POINTS) return { ok: false, issues: [{ path: 'TrackPoints', message: `at most ${MAX_POINTS} points per request (got ${given.length})` }] };
  const points: TrackPoint[] = [];
  const ticker = new Ticker();
  for (let i = 0; i < (given ?? []).length; i++) {
    // many points: the event loop gets its turns
    await ticker.tick();
    const q = given![i];
    const path = `TrackPoints[${i}]`;
    const r = q === null || q === undefined ? null : TrackPointSchema.safeParse(q, path);
    if (r === null) { issues.push({ path, message: 'is empty (null)' }); continue; }
    if (!r.ok) { issues.push(...r.issues); continue; }
    const ts = instantOf(r.value.TimeStamp);
    if (ts === null) issues.push({ path: `${path}.TimeStamp`, message: `is not set (a date after 2012-01-01 is required; got ${r.value.TimeStamp})` });
    for (const bad of latLonProblems(r.value.Latitude, r.value.Longitude)) {
      issues.push(bad.field === 'lat'
        ? { path: `${path}.Latitude`, message: `must be within ±90 (got ${r.value.Latitude})` }
        : { path: `${path}.Longitude`, message: `must be within ±180 (got ${r.value.Longitude})` });
    }
    points.push({ lat: r.value.Latitude, lon: r.value.Longitude, ts: ts ?? 0 });
  }
  if (issues.length > 0) return { ok: false, issues: issues.slice(0, 50) };
  return { ok: true, value: { track: (p.ok && p.value.Account) || undefined, points } };
}

/** A time stamp this far ahead of the server's clock is a device's clock error, not a position (refused, naming the point). */
export const FUTURE_SLACK_MS = 300_000;

export async function trackPoints(spec: TrackPointsInput, call: Call): Promise<TrackPointsResult> {
  const account = call.account!;
  // points may come out of time order (a device sends what it buffered offline): they are kept in time order;
  // a point in the future is a clock error and would stand for the vehicle's position for hours
  // and a point older than the GPS retention would be deleted by the next prune (at the server's start, then hourly):
  // refused too, rather than acknowledged and then lost
  const now = call.service.clock();
  const limit = now + FUTURE_SLACK_MS;
  const days = call.service.retention.tracks;
  const oldest = retentionCutoffs(now, { tracks: days }).tracksBefore ?? -Infinity;
  const refused = spec.points.flatMap((p, i) => (p.ts > limit
    ? [{ path: `TrackPoints[${i}].TimeStamp`, message: `is in the future (${new Date(p.ts).toISOString()}; the server's clock says ${new Date(now).toISOString()}); nothing was recorded` }]
    : p.ts < oldest
      ? [{ path: `TrackPoints[${i}].TimeStamp`, message: `is older than the server keeps GPS points (${days} days: before ${new Date(oldest).toISOString()}), so the next prune would delete it; nothing was recorded` }]
      : []));
  if (refused.length) return { ...failedFromIssues(refused.slice(0, 50)), Count: 0 } as TrackPointsResult;
  const track = spec.track || account.name;
  const n = spec.points.length === 0 ? 0
    : await call.service.store.addTrackPoints({ accountId: account.id, track, points: spec.points, now });
  if (n > 0) call.service.changes.emit(`track:${account.id}:${track}`);
  return { Status: 'Success', Errors: [], Count: n };
}
