/**
 * Executor tasks of the geocoder, for batches that would hold a caller's thread: the index is
 * opened from the shared dataset buffer (zero-copy) once per thread and reused with one
 * {@link Geocoder} (which owns its scratch memory).
 * - `geocode-search`: candidates for a chunk of addresses, in input order;
 * - `geocode-reverse`: the nearest address or street for a chunk of points.
 */
import { BinFile } from '../core/binfile.js';
import { EngineError } from '../core/errors.js';
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { sliced } from '../core/cancel.js';
import { GeocodeIndex } from './geocode-index.js';
import { Geocoder, type AddressQuery, type GeocodeCandidate, type ReverseOptions, type ReverseResult } from './search.js';

/** Where a task finds the geocoder: `env.shared[datasetKey]`, sections under `prefix`. */
export interface GeocoderSource {
  datasetKey: string;
  prefix: string;
}

export interface GeocodeSearchTask extends GeocoderSource {
  queries: AddressQuery[];
  limit: number;
}

export interface GeocodeReverseTask extends GeocoderSource {
  /** Interleaved lat, lon. */
  points: Float64Array;
  options: ReverseOptions;
}

declare module '../core/executor.js' {
  interface TaskMap {
    'geocode-search': TaskTypes<GeocodeSearchTask, GeocodeCandidate[][]>;
    'geocode-reverse': TaskTypes<GeocodeReverseTask, (ReverseResult | null)[]>;
  }
}

let cached: { buffer: unknown; prefix: string; geocoder: Geocoder } | null = null;

export function geocoderFor(src: GeocoderSource, env: TaskEnv): Geocoder {
  const buffer = env.shared[src.datasetKey] as ArrayBufferLike | undefined;
  if (!buffer) throw new EngineError('Internal', `The executor shares no "${src.datasetKey}" buffer.`);
  if (!cached || cached.buffer !== buffer || cached.prefix !== src.prefix) {
    const f = BinFile.from(buffer);
    if (!GeocodeIndex.has(f, src.prefix)) throw new EngineError('Unsupported', 'This dataset has no geocoder index.');
    cached = { buffer, prefix: src.prefix, geocoder: new Geocoder(GeocodeIndex.fromSections(f, src.prefix)) };
  }
  return cached.geocoder;
}

export function geocodeSearchTask(t: GeocodeSearchTask, env: TaskEnv): Promise<GeocodeCandidate[][]> {
  const g = geocoderFor(t, env);
  // in slices: the thread is shared with other requests' tasks (workers/pool.ts)
  return sliced(t.queries, (q) => g.search(q, { limit: t.limit }), env.signal);
}

export function geocodeReverseTask(t: GeocodeReverseTask, env: TaskEnv): (ReverseResult | null)[] {
  const g = geocoderFor(t, env);
  const out: (ReverseResult | null)[] = [];
  for (let i = 0; i < t.points.length; i += 2) out.push(g.reverse(t.points[i], t.points[i + 1], t.options));
  return out;
}
