/**
 * The original service's own client samples (rdrunnerxx/TrackRoad, samples/TrackRoad.Api.Examples/
 * Program.cs: three Dispatch examples) as that client puts them on the wire (enums as integers,
 * unset fields absent; ../shared/research/trackroad-rest-client.md §4), with Monaco coordinates
 * instead of Virginia's and a fixed day instead of DateTime.UtcNow.
 */
export const DAY = '2026-12-01';
export const at = (hm: string): string => `${DAY}T${hm}:00`;
const ll = (Latitude: number, Longitude: number) => ({ Latitude, Longitude });
export const WAREHOUSE = ll(43.7347, 7.4221); // Quai Albert 1er, Port Hercule
export const CASINO = ll(43.7395, 7.428);
export const STADE = ll(43.7276, 7.4155);
export const MUSEE = ll(43.7307, 7.4253); // Musée océanographique

const truck = (extra: Record<string, unknown> = {}) => ({
  Name: 'Truck 1', Speed: 45, MaxStops: 10, MaxWeight: 5000,
  StartLocation: { Name: 'Warehouse', LocationType: 1, LatLong: WAREHOUSE },
  FinishLocation: { Name: 'Warehouse', LocationType: 2, LatLong: WAREHOUSE },
  ...extra,
});
// RoutingService.NetRoad = 0 (EngineOne here), DispatchMode.Auto = 0, DistanceUnit.Mile = 0, RouteOptimize.MinimizeTime = 0
const common = { RoutingService: 0, IsNeedMatchCode: true, CurrentTime: at('08:30'), DispatchMode: 0, MinimumOptimization: 4, DistanceUnit: 0, RouteOptimize: 0 };

/** Example 1: one vehicle, lat/long stops. */
export const SAMPLE_1 = {
  ...common,
  Vehicles: [truck()],
  Locations: [
    { Name: 'A', LocationType: 0, LatLong: CASINO, Weight: 90, Volume: 8, Wait: 180 },
    { Name: 'B', LocationType: 0, LatLong: MUSEE, Weight: 120, Volume: 10, Wait: 300 },
    { Name: 'C', LocationType: 0, LatLong: STADE, Weight: 20, Volume: 1, Wait: 10 },
  ],
};

/** Example 2: time windows ("TimeConstraintArrival/Departure define stop service windows"). */
export function sample2(canArriveEarly = true): Record<string, unknown> {
  return {
    ...common,
    Vehicles: [truck({ Tin: at('09:00'), Tout: at('18:00') })],
    Locations: [
      { Name: 'A', LocationType: 0, LatLong: MUSEE, Weight: 120, Volume: 10, Wait: 30, TimeConstraintArrival: at('10:00'), TimeConstraintDeparture: at('15:00'), CanArriveEarly: canArriveEarly },
      { Name: 'B', LocationType: 0, LatLong: STADE, Weight: 20, Volume: 1, Wait: 10, TimeConstraintArrival: at('15:00'), TimeConstraintDeparture: at('19:00'), CanArriveEarly: canArriveEarly },
      { Name: 'C', LocationType: 0, LatLong: CASINO, Weight: 90, Volume: 8, Wait: 50, TimeConstraintArrival: at('11:00'), TimeConstraintDeparture: at('14:00'), CanArriveEarly: canArriveEarly },
    ],
  };
}

/** Example 3: no vehicles, Start and Finish among the stops; DispatchMode.Optima = 8. */
export const SAMPLE_3 = {
  RoutingService: 0, IsNeedMatchCode: true, CurrentTime: at('08:30'), DispatchMode: 8, DistanceUnit: 0, RouteOptimize: 0,
  Locations: [
    { Name: 'Start', LocationType: 1, LatLong: WAREHOUSE },
    { Name: 'Stop A', LocationType: 0, LatLong: MUSEE, Wait: 120 },
    { Name: 'Stop B', LocationType: 0, LatLong: CASINO, Wait: 120 },
    { Name: 'Stop C', LocationType: 0, LatLong: STADE, Wait: 120 },
    { Name: 'Finish', LocationType: 2, LatLong: WAREHOUSE },
  ],
};
