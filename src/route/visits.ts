/**
 * Arrivals and departures at known places from a GPS track: a vehicle *visited* a place when it
 * stayed within `radiusM` of it (of its point, or of where it meets the road: a van parks on the
 * street, not at the address point set back from it) for at least the place's `minDwellMs` (consecutive fixes, one stray
 * fix outside tolerated). A vehicle driving past — even slowly, even twice — does not dwell long
 * enough. Where several places share one dwell (two stops at one door), the dwell is shared out
 * in the given order, each place taking its own minimum, so a short stop is never counted for both.
 *
 * Geometry only (fixes and places); what a visit means for a plan is the caller's.
 */
import { haversine } from '../core/geo.js';
import type { Fix } from './match.js';

export interface Site {
  lat: number;
  lon: number;
  /** A second point of the same place (e.g. where the address meets the road): inside when near either. */
  roadLat?: number;
  roadLon?: number;
  /** The shortest stay that counts as a visit (ms). */
  minDwellMs: number;
}

export interface Visit {
  /** First fix inside the radius (ms). */
  arrived: number;
  /** First fix outside after the stay (ms); null while the vehicle is still there. */
  departed: number | null;
}

export interface VisitOptions {
  /** Default 40 m: 4σ of 10 m GPS noise. */
  radiusM?: number;
  /** Only stays that begin at or after this instant (ms). */
  from?: number;
}

interface Stay { site: number; a: number; b: number; arrived: number; last: number; departed: number | null }

/** The first visit of each site (null: none), from fixes in time order. */
export function detectVisits(fixes: readonly Fix[], sites: readonly Site[], o: VisitOptions = {}): (Visit | null)[] {
  const R = o.radiusM ?? 40;
  const from = o.from ?? -Infinity;
  const stays: Stay[] = [];
  sites.forEach((s, k) => {
    let start = -1, lastIn = -1, misses = 0;
    const close = (): boolean => {
      // a stay from fix `start` to `lastIn`; departed at the first fix after it (if any)
      const arrived = fixes[start].ts, last = fixes[lastIn].ts;
      if (arrived >= from && last - arrived >= s.minDwellMs) {
        stays.push({ site: k, a: start, b: lastIn, arrived, last, departed: lastIn + 1 < fixes.length ? fixes[lastIn + 1].ts : null });
        return true;
      }
      return false;
    };
    for (let i = 0; i < fixes.length; i++) {
      const inside = haversine(fixes[i].lat, fixes[i].lon, s.lat, s.lon) <= R
        || (s.roadLat !== undefined && haversine(fixes[i].lat, fixes[i].lon, s.roadLat, s.roadLon!) <= R);
      if (inside) {
        if (start < 0) start = i;
        lastIn = i;
        misses = 0;
      } else if (start >= 0 && ++misses > 1) {
        if (close()) return;
        start = -1; misses = 0;
      }
    }
    if (start >= 0) close();
  });
  // one dwell shared by several sites: in site order, each its own minimum
  stays.sort((x, y) => x.arrived - y.arrived || x.site - y.site);
  const out: (Visit | null)[] = sites.map(() => null);
  let i = 0;
  while (i < stays.length) {
    let j = i + 1;
    let end = stays[i].last;
    while (j < stays.length && stays[j].arrived <= end) { end = Math.max(end, stays[j].last); j++; }
    const group = stays.slice(i, j).sort((x, y) => x.site - y.site);
    let budget = end - stays[i].arrived;
    let t = stays[i].arrived;
    for (const st of group) {
      const need = sites[st.site].minDwellMs;
      if (budget < need && st !== group[0]) continue;
      out[st.site] = { arrived: Math.max(t, st.arrived), departed: st.departed };
      budget -= need;
      t += need;
    }
    i = j;
  }
  return out;
}
