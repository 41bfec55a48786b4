/**
 * A dispatch plan as GeoJSON (RFC 7946, [longitude, latitude]): per VehicleItem (each trip) a
 * LineString of the path the vehicle drives through its Locations in order — under the
 * specification's RouteOptimize and the vehicle's no-go zones, as the dispatch routed it — and a
 * Point per Location. For drawing plans and checking them against polygons.
 *
 * LineString properties: kind 'vehicle-route', vehicle (name as in the record), index, color
 * (`#rrggbb`, fixed palette by index), stops, Distance and Time (sums of the record's legs).
 * Point properties: kind 'stop', vehicle, index (route), sequence, Name, LocationType,
 * TimeEstimatedArrival, Distance, Time. A leg with no path gives the route `geometry: null` and
 * an `error` property; a Failed result gives no features.
 */
import { DispatchSpecificationSchema, joined, rawJsonSliced, type DispatchResult, type Location, type Vehicle } from '../records/index.js';
import type { TravelProfile } from '../route/travel.js';
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { roadLayer } from '../render/index.js';
import { contextInTask, taskSource, type OpsContext, type TaskSource } from './context.js';
import { vehicleZones } from './dispatch/index.js';
import type { GeoJsonFeature, GeoJsonFeatureCollection } from './geojson.js';
import { profileFor } from './locations.js';

const PALETTE = ['#00a9eb', '#e6194b', '#3cb44b', '#f58231', '#911eb4', '#008080', '#f032e6', '#800000', '#000080', '#aa6e28'];
const r7 = (x: number): number => Math.round(x * 1e7) / 1e7;
/** A Location of a VehicleItem is the vehicle's own start or finish: the same name (both may be unset) and the same coordinates. */
const isEnd = (end: Location | undefined, l: Location): boolean => end !== undefined && end.Name === l.Name
  && end.LatLong?.Latitude === l.LatLong?.Latitude && end.LatLong?.Longitude === l.LatLong?.Longitude;

/**
 * How many of a VehicleItem's Locations are visits: all but the vehicle's own start (first) and
 * finish (last), and Locations of type Start or Finish.
 */
export function visitsOf(locs: readonly Location[], vehicle: Pick<Vehicle, 'StartLocation' | 'FinishLocation'> | undefined): number {
  return locs.filter((l, k) => !(k === 0 && locs[0].TimeEstimatedArrival !== undefined && isEnd(vehicle?.StartLocation, l))
    && !(k === locs.length - 1 && k > 0 && isEnd(vehicle?.FinishLocation, l)) && l.LocationType !== 'Start' && l.LocationType !== 'Finish').length;
}

/** The plan of `result` (made from `spec`) as a FeatureCollection. */
export function dispatchResultToGeoJson(ctx: OpsContext, spec: unknown, result: DispatchResult): GeoJsonFeatureCollection {
  const features: GeoJsonFeature[] = [];
  if (result.Status === 'Failed') return { type: 'FeatureCollection', features };
  const parsed = DispatchSpecificationSchema.safeParse(spec);
  const s = parsed.ok ? parsed.value : undefined;
  const vehicles = (s?.Vehicles ?? []).filter((v): v is Vehicle => !!v);
  const unit = s?.DistanceUnit === 'Kilometer' ? 'Kilometer' : 'Mile';
  // A trip is named <Name>_k: its vehicle is <Name>.
  const vehicleOf = (name: string | undefined): Vehicle | undefined =>
    vehicles.find((v) => v.Name === name) ?? vehicles.find((v) => name !== undefined && v.Name !== undefined && new RegExp(`^${v.Name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_\\d+$`).test(name));
  const profiles = new Map<Vehicle | undefined, TravelProfile>();
  const profileOf = (v: Vehicle | undefined): TravelProfile => {
    let p = profiles.get(v);
    if (!p) {
      p = profileFor(s?.RouteOptimize, v?.Speed ? { value: v.Speed, unit } : undefined);
      const zones = vehicleZones(v);
      if (zones.length > 0) p.blockedArcs = ctx.travel.blockedArcs(zones);
      profiles.set(v, p);
    }
    return p;
  };
  (result.Items ?? []).forEach((item, index) => {
    const name = item.Vehicle?.Name;
    const vehicle = vehicleOf(name);
    const profile = profileOf(vehicle);
    const locs = item.Locations ?? [];
    const coords: [number, number][] = [];
    let error: string | undefined;
    let prev: ReturnType<OpsContext['travel']['place']> | null = null;
    locs.forEach((l, k) => {
      if (!l.LatLong) return;
      features.push({
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [r7(l.LatLong.Longitude), r7(l.LatLong.Latitude)] },
        properties: {
          kind: 'stop', vehicle: name, index, sequence: k, Name: l.Name, LocationType: l.LocationType,
          TimeEstimatedArrival: l.TimeEstimatedArrival, Distance: l.Distance, Time: l.Time,
        },
      });
      if (error) return;
      let here;
      try {
        here = ctx.travel.place({ lat: l.LatLong.Latitude, lon: l.LatLong.Longitude }, `Items[${index}].Locations[${k}]`);
      } catch (e) {
        error = (e as Error).message;
        return;
      }
      if (prev) {
        const p = ctx.travel.routePath(prev, here, profile);
        if (!p.found) {
          error = `no path from Locations[${k - 1}] to Locations[${k}]`;
          return;
        }
        for (let i = 0; i < p.lat.length; i++) {
          const c: [number, number] = [r7(p.lon[i]), r7(p.lat[i])];
          const last = coords[coords.length - 1];
          if (!last || last[0] !== c[0] || last[1] !== c[1]) coords.push(c);
        }
      }
      prev = here;
    });
    const props: Record<string, unknown> = {
      kind: 'vehicle-route', vehicle: name, index, color: PALETTE[index % PALETTE.length],
      // the vehicle's own start and finish (first and last, when it has them) are not stops
      stops: visitsOf(locs, vehicle),
      Distance: Math.round(locs.reduce((a, l) => a + (l.Distance ?? 0), 0) * 1e6) / 1e6,
      Time: locs.reduce((a, l) => a + (l.Time ?? 0), 0),
    };
    if (error) props.error = error;
    features.push({ type: 'Feature', geometry: !error && coords.length >= 2 ? { type: 'LineString', coordinates: coords } : null, properties: props });
  });
  return { type: 'FeatureCollection', features };
}

// ---- off the calling thread ----------------------------------------------------------------------

export interface PlanGeoJsonTask {
  source: TaskSource;
  /** `{ spec, result }` as JSON text (text crosses threads at once; a large plan as objects would not). */
  text: string;
}

export interface RoadsLayerTask {
  source: TaskSource;
  bbox: { west: number; south: number; east: number; north: number };
  zoom: number;
}

declare module '../core/executor.js' {
  interface TaskMap {
    /** GeoJSON as text: it crosses threads at once and is written into the answer as it is. */
    'plan-geojson': TaskTypes<PlanGeoJsonTask, string>;
    'roads-layer': TaskTypes<RoadsLayerTask, string>;
  }
}

export function planGeoJsonTask(t: PlanGeoJsonTask, env: TaskEnv): string {
  const { spec, result } = JSON.parse(t.text) as { spec: unknown; result: DispatchResult };
  return JSON.stringify(dispatchResultToGeoJson(contextInTask(t.source, env), spec, result));
}

/** The dataset's roads in a box as drawn at `zoom` ({@link roadLayer}), as GeoJSON MultiLineStrings, one feature per style. */
export function roadsGeoJson(ctx: OpsContext, bbox: RoadsLayerTask['bbox'], zoom: number): GeoJsonFeatureCollection {
  const g = ctx.roads;
  if (!g) return { type: 'FeatureCollection', features: [] };
  return {
    type: 'FeatureCollection',
    features: roadLayer(g, bbox, zoom).map((st): GeoJsonFeature => ({
      type: 'Feature', properties: { color: st.color, width: st.width, dash: st.dash ?? null }, geometry: { type: 'MultiLineString', coordinates: st.lines },
    })),
  };
}

export function roadsLayerTask(t: RoadsLayerTask, env: TaskEnv): string {
  return JSON.stringify(roadsGeoJson(contextInTask(t.source, env), t.bbox, t.zoom));
}

/** A plan as GeoJSON text, off the calling thread when the context's executor works off it (else here). */
export async function planGeoJsonOffThread(ctx: OpsContext, spec: unknown, result: DispatchResult, opts: { signal?: AbortSignal } = {}): Promise<string> {
  if (!ctx.executor.offThread) return JSON.stringify(dispatchResultToGeoJson(ctx, spec, result));
  const text = joined(await rawJsonSliced({ spec, result }));
  return ctx.executor.run('plan-geojson', { source: taskSource(ctx), text }, opts);
}

/** The roads layer as GeoJSON text, off the calling thread when the context's executor works off it (else here). */
export async function roadsOffThread(ctx: OpsContext, bbox: RoadsLayerTask['bbox'], zoom: number, opts: { signal?: AbortSignal } = {}): Promise<string> {
  if (!ctx.executor.offThread) return JSON.stringify(roadsGeoJson(ctx, bbox, zoom));
  return ctx.executor.run('roads-layer', { source: taskSource(ctx), bbox, zoom }, opts);
}
