/**
 * Worker task `geocode`: geocodes a chunk of (validated) addresses with the geocoder stored in
 * the dataset buffer (`shared.dataset`, sections under `task.prefix`). The index is opened once
 * per worker and reused (opening is zero-copy; the Geocoder keeps its scratch memory).
 */
import { BinFile } from '../../core/binfile.js';
import { EngineError } from '../../core/errors.js';
import { GeocodeIndex } from '../../geocode/geocode-index.js';
import { Geocoder } from '../../geocode/search.js';
import { geocodeItems, type GeocodeTask } from '../../geocode/operation.js';

let cached: { buf: unknown; prefix: string; geocoder: Geocoder } | null = null;

export default function geocode(task: GeocodeTask, shared: Record<string, unknown>): unknown {
  const buf = shared.dataset as ArrayBufferLike | undefined;
  if (!buf) throw new EngineError('Internal', 'geocode task: the pool has no shared dataset buffer.');
  if (!cached || cached.buf !== buf || cached.prefix !== task.prefix) {
    const f = BinFile.from(buf);
    if (!GeocodeIndex.has(f, task.prefix)) throw new EngineError('Unsupported', 'This dataset has no geocoder index.');
    cached = { buf, prefix: task.prefix, geocoder: new Geocoder(GeocodeIndex.fromSections(f, task.prefix)) };
  }
  return { items: geocodeItems(cached.geocoder, task.addresses, task.needMatchCode, { maxCandidates: task.maxCandidates }) };
}
