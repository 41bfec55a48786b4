/** GetTrack: a track's GPS points in a UTC range, ordered by time. */
import type { Parsed, TrackResult, TrackSpecificationSchema } from '../../records/index.js';
import type { Call } from '../call.js';
import { failedAt, instantOf, MAX_NAME, utcDate } from './common.js';

export async function getTrack(spec: Parsed<typeof TrackSpecificationSchema>, call: Call): Promise<TrackResult> {
  const from = instantOf(spec.FromDate) ?? 0, to = instantOf(spec.ToDate) ?? Number.MAX_SAFE_INTEGER;
  if (to < from) return failedAt('ToDate', 'is before FromDate') as TrackResult;
  if ((spec.Account?.length ?? 0) > MAX_NAME) return failedAt('Account', `at most ${MAX_NAME} characters`) as TrackResult;
  const account = call.account!;
  const points = await call.service.store.getTrack({ accountId: account.id, track: spec.Account || account.name, from, to });
  return {
    Status: 'Success', Errors: [],
    TrackPoints: points.map((q) => ({ Latitude: q.lat, Longitude: q.lon, TimeStamp: utcDate(q.ts) })),
  };
}
