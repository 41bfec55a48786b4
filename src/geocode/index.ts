/**
 * The geocoder's public API: index build and persistence, forward/reverse search, the Geocode
 * executor tasks for batches (see docs/geocoding.md). The Geocode operation on the contract's
 * records is `ops/geocode.ts`.
 */
export { buildGeocodeIndex, buildGeocodeIndexWithStats, type GeocodeBuildOptions, type GeocodeBuildStats } from './build.js';
export { GeocodeIndex, FORMAT_VERSION as GEOCODE_FORMAT_VERSION } from './geocode-index.js';
export {
  Geocoder, MATCH_CODE_VALUE, matchCodeValue,
  type AddressQuery, type GeocodeCandidate, type CandidateKind, type MatchedAddress, type MatchCodeName,
  type SearchOptions, type ReverseOptions, type ReverseResult,
} from './search.js';
export { geocodeSearchTask, geocodeReverseTask, type GeocodeSearchTask, type GeocodeReverseTask, type GeocoderSource } from './tasks.js';
export { parseStreetLine, parseHouseNumber, type ParsedStreet, type HouseNumber } from './parse.js';
export { analyzeName, placeKey, postcodeKey, phonetic, type NameKey } from './normalize.js';
export { fold } from './text.js';
export { parseTigerCsv, type TigerRange } from './tiger.js';
