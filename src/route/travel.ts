/**
 * The travel provider: what operations ask of the road network, behind one interface that takes
 * a vehicle profile — placing points and addresses on the network, point-to-point routes and
 * travel matrices. Operations never reach for snappers, hierarchies or the geocoder directly, so
 * per-vehicle restricted routing (constant speeds, blocked arcs for no-go zones) plugs in here
 * without touching them. The implementation over a dataset is `dataset/travel.ts`.
 */
import type { ErrorRecord } from '../core/errors.js';
import type { ExecutorOptions } from '../core/executor.js';
import type { Snap } from '../graph/snap.js';
import type { Fix, MatchOptions } from './match.js';
import type { AddressQuery, MatchCodeName, MatchedAddress } from '../geocode/search.js';
import type { Metric, PointToPoint } from './router.js';
import type { ItineraryStep } from './maneuvers.js';
import type { Zone } from './zones.js';

/** How one vehicle (or one request) travels. */
export interface TravelProfile {
  /** Which path is taken: the fastest ('time') or the shortest ('distance'). */
  metric: Metric;
  /**
   * Constant speed in metres per second: times are the path's length at this speed (the path is
   * still chosen by `metric`). Absent: the road network's speeds.
   */
  speedMps?: number;
  /** Arcs of the road graph this vehicle may not drive (1 = blocked), e.g. inside a no-go polygon. */
  blockedArcs?: Uint8Array;
}

/** Something to place on the road network: a coordinate, or an address to geocode. */
export type PlaceQuery = { lat: number; lon: number } | { address: AddressQuery };

/** A location resolved to the road network. */
export interface Placement {
  snap: Snap;
  /** 'Exact' for coordinates; the geocoder's MatchCode for addresses. */
  matchCode: MatchCodeName;
  /** The position that was snapped (the geocoded one for addresses). */
  lat: number;
  lon: number;
  /** True when the position came from geocoding an address. */
  geocoded: boolean;
  /** The nearest address of a coordinate (when asked for with `reverse`). */
  address?: MatchedAddress;
}

export interface PlaceOptions extends ExecutorOptions {
  /** Field path of each query, named in errors (e.g. `Locations[3]`). */
  paths?: readonly string[];
  /** Also find the nearest address of coordinate queries, within this many metres. */
  reverseWithinM?: number;
}

/** Travel times and distances between every pair of places, row-major. */
export interface TravelMatrix {
  size: number;
  /** Seconds (fractional); Infinity where unreachable. */
  timeS: Float64Array;
  /** Metres; Infinity where unreachable. */
  distanceM: Float64Array;
}

export interface MatrixRequestOptions extends ExecutorOptions {
  /** Memory bound for the matrix (TooBig past it). */
  maxMatrixBytes?: number;
  /**
   * How a matrix avoiding blocked arcs is computed: 'auto' (the default: the customizable
   * hierarchy when the dataset has one and the matrix has enough rows, else a Dijkstra per row),
   * or 'dijkstra' (per row; for comparisons).
   */
  restricted?: 'auto' | 'dijkstra';
  /** Matrices of at most this many cells are computed in the calling thread, larger ones on the executor (default: the matrix kernel's). */
  inThreadMaxCells?: number;
}

/** Unreachable in a {@link RoundedMatrix} (the solver's own "unreachable", vrp/model.ts UNREACHABLE). */
export const ROUNDED_UNREACHABLE = 1_000_000_000;

export interface RoundedMatrix {
  size: number;
  /** Whole seconds / whole metres, row-major; {@link ROUNDED_UNREACHABLE} = no path. */
  time: Int32Array;
  /** null when asked for without distances ({@link RoundedMatrixOptions.distance} false). */
  distance: Int32Array | null;
}

export interface RoundedMatrixOptions extends MatrixRequestOptions {
  /**
   * false: the time matrix alone (half the memory; the search runs without the aux distance) — for
   * callers that need distances of a few legs only, which {@link TravelProvider.route} gives.
   * Only for the time metric. Default true.
   */
  distance?: boolean;
}

/** A leg's best path with its polyline (from the source's snapped point to the target's). */
export interface RoutePath {
  found: boolean;
  /** The same figures as {@link TravelProvider.route} for the same arguments. */
  timeMs: number;
  lengthCm: number;
  /** The polyline (empty when not found). */
  lat: Float64Array;
  lon: Float64Array;
  /** The turn-by-turn itinerary, when asked for with a {@link DirectionsRequest}. */
  steps?: ItineraryStep[];
}

/** Asks {@link TravelProvider.routePath} for the leg's itinerary (stop numbers are 1-based). */
export interface DirectionsRequest {
  fromStop: number;
  toStop: number;
  lastStop: boolean;
}

export interface TravelProvider {
  /** Places one query; throws EngineError (InvalidInput, NoSegment, Unsupported) naming `path`. */
  place(q: PlaceQuery, path: string): Placement;
  /**
   * Places many queries, in order; each is a Placement or the error that prevented it. Large
   * batches (and every address) run on the executor when it works off the calling thread.
   */
  placeMany(qs: readonly PlaceQuery[], opts?: PlaceOptions): Promise<(Placement | { error: ErrorRecord })[]>;
  /** Best path between two placements under the profile (time and length both reported). */
  route(from: Placement, to: Placement, profile: TravelProfile, withPath?: boolean): PointToPoint;
  /** Best path between two placements under the profile, with its polyline (same time and length as `route`). */
  routePath(from: Placement, to: Placement, profile: TravelProfile, directions?: DirectionsRequest): RoutePath;
  /** The arcs a vehicle with these no-go zones may not drive (1 = blocked), for {@link TravelProfile.blockedArcs}. */
  blockedArcs(zones: readonly Zone[]): Uint8Array;
  /** The square matrix over `places` under the profile. */
  matrix(places: readonly Placement[], profile: TravelProfile, opts?: MatrixRequestOptions): Promise<TravelMatrix>;
  /**
   * The same matrix in whole seconds and whole metres (rounded as the solver rounds), on shared
   * memory, with {@link ROUNDED_UNREACHABLE} where no path exists — for very large dispatches,
   * where the fractional copy would cost gigabytes of fresh memory. Optional; only for profiles
   * without blocked arcs or a constant speed (callers fall back to {@link matrix}).
   */
  matrixRounded?(places: readonly Placement[], profile: TravelProfile, opts?: RoundedMatrixOptions): Promise<RoundedMatrix>;
  /** One cell of {@link matrixRounded} (a leg of a plan made on a matrix without distances). */
  legRounded?(from: Placement, to: Placement, profile: TravelProfile): { time: number; distance: number };
  /**
   * Map matching (route/match.ts): GPS fixes in time order → where on the roads each was (null:
   * no road near, or an outlier). Optional: providers without a road graph have none.
   */
  matchTrack?(fixes: readonly Fix[], opts?: MatchOptions): (Placement | null)[];
}
