/**
 * The geocoder's public API: index build and persistence, forward/reverse search, the Geocode
 * operation on contract records (see docs/geocoding.md).
 */
export { buildGeocodeIndex, buildGeocodeIndexWithStats, type GeocodeBuildOptions, type GeocodeBuildStats } from './build.js';
export { GeocodeIndex, FORMAT_VERSION as GEOCODE_FORMAT_VERSION } from './geocode-index.js';
export {
  Geocoder, MATCH_CODE_VALUE, matchCodeValue,
  type AddressQuery, type GeocodeCandidate, type CandidateKind, type MatchedAddress, type MatchCodeName,
  type SearchOptions, type ReverseOptions, type ReverseResult,
} from './search.js';
export {
  geocodeOperation, geocodeOperationOnPool, geocodeItems, validateGeocodeSpecification, candidateToLocation,
  type GeocodeOperationOptions, type GeocodeBatchOptions, type GeocodeTask,
} from './operation.js';
export { parseStreetLine, parseHouseNumber, type ParsedStreet, type HouseNumber } from './parse.js';
export { analyzeName, placeKey, postcodeKey, phonetic, type NameKey } from './normalize.js';
export { fold } from './text.js';
export { parseTigerCsv, type TigerRange } from './tiger.js';
