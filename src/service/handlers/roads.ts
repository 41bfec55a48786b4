/** Roads: the dataset's roads in a box, styled for a map at a zoom level, as GeoJSON (drawn off the event loop). */
import { RawJson, type Parsed, RoadsSpecificationSchema } from '../../records/index.js';
import type { Call } from '../call.js';
import { failedAt } from './common.js';
import { isValidLatLon } from '../../core/geo.js';

export async function roads(spec: Parsed<typeof RoadsSpecificationSchema>, call: Call): Promise<object> {
  const b = spec.BBox.split(',').map(Number);
  if (b.length !== 4 || b.some((x) => !Number.isFinite(x))) return failedAt('BBox', `must be west,south,east,north in degrees (got ${JSON.stringify(spec.BBox.slice(0, 80))})`);
  const [west, south, east, north] = b;
  if (!(west < east && south < north && isValidLatLon(south, west) && isValidLatLon(north, east))) return failedAt('BBox', 'must be west < east and south < north, within ±180 / ±90');
  if (!(spec.Zoom >= 0 && spec.Zoom <= 22)) return failedAt('Zoom', `must be from 0 to 22 (got ${spec.Zoom})`);
  const geo = await call.service.engine.roadsGeoJson({ west, south, east, north }, spec.Zoom, { signal: call.signal });
  return { Status: 'Success', Errors: [], GeoJson: new RawJson(geo) };
}
