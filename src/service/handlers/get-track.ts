/**
 * GetTrack: a track's GPS points in a UTC range, ordered by time, at most {@link MAX_TRACK_POINTS}.
 * Read in pages of {@link PAGE} points with the event loop's turns between them (a database read
 * of 100,000 rows at once held the server's loop for a second).
 */
import { Ticker } from '../../core/cancel.js';
import type { Parsed, TrackResult, TrackSpecificationSchema } from '../../records/index.js';
import type { TrackPoint } from '../../store/types.js';
import type { Call } from '../call.js';
import { failedAt, instantOf, MAX_NAME, utcDate } from './common.js';

/** Most points one GetTrack answers (the earliest of the range). */
export const MAX_TRACK_POINTS = 100_000;
/** Points read from the database at once. */
const PAGE = 2000;

export async function getTrack(spec: Parsed<typeof TrackSpecificationSchema>, call: Call): Promise<TrackResult> {
  const from = instantOf(spec.FromDate) ?? 0, to = instantOf(spec.ToDate) ?? Number.MAX_SAFE_INTEGER;
  if (to < from) return failedAt('ToDate', 'is before FromDate') as TrackResult;
  if ((spec.Account?.length ?? 0) > MAX_NAME) return failedAt('Account', `at most ${MAX_NAME} characters`) as TrackResult;
  const account = call.account!;
  const track = spec.Account || account.name;
  const out: TrackResult['TrackPoints'] = [];
  const ticker = new Ticker();
  // pages in time order: the next starts at the last time stamp read, past the points of that time already taken
  let since = from, taken = 0;
  for (;;) {
    const want = Math.min(PAGE, MAX_TRACK_POINTS - out!.length);
    if (want <= 0) break;
    let page: TrackPoint[] = await call.service.store.getTrack({ accountId: account.id, track, from: since, to, limit: want + taken });
    page = page.slice(taken);
    for (const q of page) out!.push({ Latitude: q.lat, Longitude: q.lon, TimeStamp: utcDate(q.ts) });
    if (page.length < want) break;
    const last = page[page.length - 1].ts;
    taken = last === since ? taken + page.length : page.filter((q) => q.ts === last).length;
    since = last;
    await ticker.tick();
  }
  return { Status: 'Success', Errors: [], TrackPoints: out };
}
