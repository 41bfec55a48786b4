/** The specification linter: each warning code on the input that shows it, clean specs, and properties. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import {
  detectSpecificationKind, editDistance, lintDispatchSpecification, lintDistanceSpecification, lintGeocodeSpecification,
  lintRecord, lintSpecification, lintSpecificationSliced, LINT_CODES, suggestName, type LintWarning,
} from '../../src/ops/lint.js';
import {
  DispatchSpecificationSchema, DistanceSpecificationSchema, GeocodeSpecificationSchema, LatLongSchema, LocationSchema, VehicleSchema,
} from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1 });
});
afterAll(() => engine.close());

const DEPOT = { Name: 'Depot', LatLong: { Latitude: 43.7314, Longitude: 7.42 } };
const CASINO = { Name: 'Casino', LatLong: { Latitude: 43.7395, Longitude: 7.428 } };
const STADE = { Name: 'Stade', LatLong: { Latitude: 43.7276, Longitude: 7.4155 } };
const FAR = { Latitude: 44.5, Longitude: 7.42 }; // ~85 km north of Monaco: no road of the dataset within the radius

function clean(): Record<string, unknown> {
  return {
    CurrentTime: '2026-12-01T08:00:00',
    DistanceUnit: 'Kilometer',
    MinimumOptimization: 1,
    Vehicles: [{ Name: 'V1', MaxWeight: 10, Tin: '2026-12-01T08:00:00', Tout: '2026-12-01T17:00:00', StartLocation: DEPOT }],
    Locations: [
      { ...CASINO, Weight: 1, TimeConstraintArrival: '2026-12-01T12:00:00' },
      { ...STADE, CanArriveEarly: false, Wait: 300, TimeConstraintArrival: '2026-12-01T09:00:00', TimeConstraintDeparture: '2026-12-01T11:00:00' },
    ],
  };
}

const only = (ws: LintWarning[], code: string) => ws.filter((w) => w.code === code);
const codesAt = (ws: LintWarning[]) => ws.map((w) => `${w.path} ${w.code}`);

describe('lintDispatchSpecification', () => {
  it('a clean specification gives no warning (with and without a dataset)', () => {
    expect(lintDispatchSpecification(clean())).toEqual([]);
    expect(lintDispatchSpecification(clean(), engine.context())).toEqual([]);
    expect(lintGeocodeSpecification({ IsNeedMatchCode: true, Addresses: [{ Street: '1 Rue X', City: 'Monaco' }] })).toEqual([]);
    expect(lintDistanceSpecification({ DistanceUnit: 'Mile', StartLocation: CASINO, FinishLocation: STADE }, engine.context())).toEqual([]);
  });

  it('UnknownProperty: misspelt fields anywhere, with "did you mean" (MaxWeigth → MaxWeight)', () => {
    const s = clean();
    (s.Vehicles as Record<string, unknown>[])[0].MaxWeigth = 5;
    (s.Vehicles as Record<string, unknown>[])[0].StartLocation = { ...DEPOT, LatLong: { Latitude: 43.7314, Longitude: 7.42, Altitude: 3 } };
    (s.Locations as Record<string, unknown>[])[0].Wiat = 60;
    (s.Locations as Record<string, unknown>[])[1].Latitude = 43.7;
    s.DispatchMod = 'Optima';
    s.Comment = 'x';
    const ws = lintDispatchSpecification(s);
    expect(ws.every((w) => w.code === 'UnknownProperty')).toBe(true);
    const byPath = Object.fromEntries(ws.map((w) => [w.path, w.message]));
    expect(Object.keys(byPath).sort()).toEqual([
      'Comment', 'DispatchMod', 'Locations[0].Wiat', 'Locations[1].Latitude', 'Vehicles[0].MaxWeigth', 'Vehicles[0].StartLocation.LatLong.Altitude',
    ]);
    expect(byPath['Vehicles[0].MaxWeigth']).toMatch(/did you mean MaxWeight\?/);
    expect(byPath['Locations[0].Wiat']).toMatch(/did you mean Wait\?/);
    expect(byPath.DispatchMod).toMatch(/did you mean DispatchMode\?/);
    expect(byPath['Locations[1].Latitude']).toMatch(/did you mean LatLong\.Latitude\?/);
    expect(byPath.Comment).not.toMatch(/did you mean/);
    expect(byPath['Vehicles[0].StartLocation.LatLong.Altitude']).toMatch(/not a field of LatLong/);
  });

  it('binding is case-insensitive: other spellings of known fields are not unknown; a second spelling is DuplicateProperty', () => {
    const s = { currenttime: '2026-12-01T08:00:00', VEHICLES: [{ name: 'V1', maxweight: 3 }], locations: [{ name: 'A', NAME: 'B', latlong: { latitude: 43.7395, LONGITUDE: 7.428 } }] };
    expect(codesAt(lintDispatchSpecification(s))).toEqual(['Locations[0].NAME DuplicateProperty']);
  });

  it('IgnoredField: times on a depot; a Departure is never ignored (the service window, whatever CanArriveEarly says)', () => {
    const s = clean();
    const l = (s.Locations as Record<string, unknown>[])[0];
    l.TimeConstraintDeparture = '2026-12-01T13:00:00';
    l.TimeConstraintDeparture2 = '2026-12-01T15:00:00';
    (s.Locations as Record<string, unknown>[])[1].CanArriveEarly = 'true'; // string booleans bind as the records do
    (s.Vehicles as Record<string, unknown>[])[0].StartLocation = { ...DEPOT, TimeConstraintArrival: '2026-12-01T07:00:00' };
    (s.Locations as Record<string, unknown>[]).push({ ...DEPOT, Name: 'End', LocationType: 'Finish', TimeConstraintDeparture: '2026-12-01T18:00:00', CanArriveEarly: false });
    expect(codesAt(lintDispatchSpecification(s)).sort()).toEqual([
      'Locations[2].TimeConstraintDeparture IgnoredField',
      'Vehicles[0].StartLocation.TimeConstraintArrival IgnoredField',
    ]);
    expect(lintDispatchSpecification(s).find((w) => w.path === 'Locations[2].TimeConstraintDeparture')!.message).toMatch(/Tin and Tout/);
  });

  it('IgnoredField: a second pair on a Break (a Break has one window, when it starts)', () => {
    const s = clean();
    (s.Locations as Record<string, unknown>[]).push({ Name: 'Lunch', LocationType: 'Break', Wait: 1800, TimeConstraintArrival: '2026-12-01T12:00:00', TimeConstraintDeparture: '2026-12-01T13:00:00', TimeConstraintArrival2: '2026-12-01T14:00:00' });
    const ws = lintDispatchSpecification(s).filter((w) => w.path.startsWith('Locations[2]'));
    expect(ws.map((w) => `${w.path} ${w.code}`)).toEqual(['Locations[2].TimeConstraintArrival2 IgnoredField']);
  });

  it('EmptyWindow: a window that closes before it opens, one shorter than the Wait, Tout before Tin', () => {
    const s = clean();
    const locs = s.Locations as Record<string, unknown>[];
    locs[1].TimeConstraintDeparture = '2026-12-01T08:30:00'; // before its arrival 09:00
    locs.push({ Name: 'Short', LatLong: CASINO.LatLong, CanArriveEarly: false, Wait: 1800, TimeConstraintArrival2: '2026-12-01T10:00:00', TimeConstraintDeparture2: '2026-12-01T10:10:00' });
    (s.Vehicles as Record<string, unknown>[])[0].Tout = '2026-12-01T07:00:00';
    const ws = lintDispatchSpecification(s);
    expect(codesAt(ws).sort()).toEqual(['Locations[1].TimeConstraintDeparture EmptyWindow', 'Locations[2].TimeConstraintDeparture2 EmptyWindow', 'Vehicles[0].Tout EmptyWindow']);
    expect(ws.find((w) => w.path === 'Locations[2].TimeConstraintDeparture2')!.message).toMatch(/Wait of 1800 s/);
  });

  it('DuplicateName: two Locations or two Vehicles with one Name', () => {
    const s = clean();
    (s.Locations as Record<string, unknown>[]).push({ ...CASINO, Weight: 2 });
    (s.Vehicles as Record<string, unknown>[]).push({ Name: 'v1', StartLocation: DEPOT });
    const ws = lintDispatchSpecification(s);
    expect(codesAt(ws).sort()).toEqual(['Locations[2].Name DuplicateName', 'Vehicles[1].Name DuplicateName']);
    expect(ws.find((w) => w.path === 'Locations[2].Name')!.message).toMatch(/Locations\[0\]/);
  });

  it('UnknownDelivery: a Delivery naming no Location (a near name is suggested)', () => {
    const s = clean();
    (s.Locations as Record<string, unknown>[])[0].Delivery = 'Stad';
    (s.Locations as Record<string, unknown>[])[1].Delivery = 'Nowhere at all';
    const ws = only(lintDispatchSpecification(s), 'UnknownDelivery');
    expect(ws.map((w) => w.path)).toEqual(['Locations[0].Delivery', 'Locations[1].Delivery']);
    expect(ws[0].message).toMatch(/did you mean 'Stade'\?/);
    expect(ws[1].message).not.toMatch(/did you mean/);
    // a Delivery naming an existing location is fine
    (s.Locations as Record<string, unknown>[])[0].Delivery = 'Stade';
    delete (s.Locations as Record<string, unknown>[])[1].Delivery;
    expect(lintDispatchSpecification(s)).toEqual([]);
  });

  it('PreassignedUnknownVehicle: a Location pre-assigned to no vehicle (names compare case-insensitively)', () => {
    const s = clean();
    (s.Locations as Record<string, unknown>[])[0].Vehicle = 'V2';
    (s.Locations as Record<string, unknown>[])[1].Vehicle = 'v1';
    const ws = lintDispatchSpecification(s);
    expect(codesAt(ws)).toEqual(['Locations[0].Vehicle PreassignedUnknownVehicle']);
    expect(ws[0].message).toMatch(/did you mean 'V1'\?/);
    // no Vehicles: one is implied, named 'Vehicle'
    const implied = { Locations: [{ ...CASINO, Vehicle: 'Vehicle' }, { ...STADE, Vehicle: 'Truck' }] };
    expect(codesAt(lintDispatchSpecification(implied))).toEqual(['Locations[1].Vehicle PreassignedUnknownVehicle']);
  });

  it('FarFromRoad: only with a dataset, for stops, vehicle depots and distance endpoints', () => {
    const s = clean();
    (s.Locations as Record<string, unknown>[])[0].LatLong = FAR;
    (s.Vehicles as Record<string, unknown>[])[0].StartLocation = { Name: 'Far depot', LatLong: FAR };
    expect(lintDispatchSpecification(s)).toEqual([]);
    const ws = lintDispatchSpecification(s, engine.context());
    expect(codesAt(ws).sort()).toEqual(['Locations[0].LatLong FarFromRoad', 'Vehicles[0].StartLocation.LatLong FarFromRoad']);
    expect(ws[0].message).toMatch(/from the nearest road/);
    expect(codesAt(lintDistanceSpecification({ DistanceUnit: 0, StartLocation: { LatLong: FAR }, FinishLocation: STADE }, engine.context()))).toEqual(['StartLocation.LatLong FarFromRoad']);
    // out-of-range coordinates are validation's business, not a warning
    (s.Locations as Record<string, unknown>[])[0].LatLong = { Latitude: 123, Longitude: 7 };
    expect(only(lintDispatchSpecification(s, engine.context()), 'FarFromRoad').map((w) => w.path)).toEqual(['Vehicles[0].StartLocation.LatLong']);
  });

  it('warnings never change Status: the dispatch of a warned specification equals the clean one where the warning is about an ignored thing', async () => {
    const s = clean();
    const warned = structuredClone(s);
    (warned.Vehicles as Record<string, unknown>[])[0].StartLocation = { ...DEPOT, TimeConstraintDeparture: '2026-12-01T09:00:00' }; // ignored (the vehicle's Tin/Tout apply)
    (warned.Vehicles as Record<string, unknown>[])[0].MaxWeigth = 0.5; // ignored (unknown)
    expect(lintDispatchSpecification(warned).map((w) => w.code).sort()).toEqual(['IgnoredField', 'UnknownProperty']);
    const a = await engine.dispatch(s, { seed: 3 });
    const b = await engine.dispatch(warned, { seed: 3 });
    expect(a.Status).toBe('Success');
    // the only difference is the ignored departure carried through on the returned start
    const strip = (r: typeof a) => JSON.stringify(r, (k, v) => (k === 'TimeConstraintDeparture' ? undefined : v));
    expect(strip(b)).toBe(strip(a));
  });
});

describe('FleetTooSmall', () => {
  /** `n` stops of weight `w` each around the depot. */
  const stops = (n: number, w = 1, extra: Record<string, unknown> = {}) =>
    Array.from({ length: n }, (_, i) => ({ Name: `S${i + 1}`, LatLong: { Latitude: 43.73 + (i % 50) * 1e-4, Longitude: 7.42 + Math.floor(i / 50) * 1e-4 }, Weight: w, ...extra }));
  const van = (o: Record<string, unknown>) => ({ Name: 'Van 1', StartLocation: DEPOT, ...o });

  it('10,000 stops of weight 1 on one van of capacity 30: the figures (30 carried, 10000 needed, 9970 left), at Vehicles', () => {
    const ws = only(lintDispatchSpecification({ Vehicles: [van({ MaxWeight: 30 })], Locations: stops(10_000) }), 'FleetTooSmall');
    expect(ws).toHaveLength(1);
    expect(ws[0].path).toBe('Vehicles');
    expect(ws[0].message).toBe("can carry 30 of Weight in all (MaxWeight × trips, 1 vehicle), but the 10000 stops' Weight adds up to 10000: at least 9970 of it will not be served");
  });

  it('each amount on its own (Volume, Skids); a fleet that carries exactly enough, or any vehicle without the limit, gives none', () => {
    const locs = stops(10, 1, { Volume: 2, Skids: 1 });
    const codes = (vs: Record<string, unknown>[]) => only(lintDispatchSpecification({ Vehicles: vs, Locations: locs }), 'FleetTooSmall').map((w) => /of (\w+) in all/.exec(w.message)?.[1]);
    expect(codes([van({ MaxWeight: 10, MaxVolume: 19.5, MaxSkids: 9 })])).toEqual(['Volume', 'Skids']);
    expect(codes([van({ MaxWeight: 10, MaxVolume: 20, MaxSkids: 10 })])).toEqual([]);
    expect(codes([van({ MaxWeight: 4 }), { ...van({}), Name: 'Van 2', MaxWeight: 5 }])).toEqual(['Weight']);
    expect(codes([van({ MaxWeight: 4 }), { ...van({}), Name: 'Van 2' }])).toEqual([]); // Van 2 has no MaxWeight: no limit
    expect(codes([])).toEqual([]); // the implied vehicle has no limits
  });

  it("trips count: a van with MaxStops gets the dispatch's further trips (its capacity on each), so 40 stops on MaxStops 10 / MaxWeight 10 fit", () => {
    expect(only(lintDispatchSpecification({ Vehicles: [van({ MaxWeight: 10, MaxStops: 10 })], Locations: stops(40) }), 'FleetTooSmall')).toEqual([]);
    // past the most trips a dispatch gives (14): 10 × 14 = 140 stops at most
    const ws = only(lintDispatchSpecification({ Vehicles: [van({ MaxStops: 10 })], Locations: stops(200) }), 'FleetTooSmall');
    expect(ws.map((w) => w.message)).toEqual(['can make at most 140 stops in all (MaxStops × trips, 1 vehicle, 14 trips), but there are 200 stops: at least 60 will not be served']);
    // a vehicle without MaxStops makes any number of stops
    expect(only(lintDispatchSpecification({ Vehicles: [van({ MaxStops: 10 }), { ...van({}), Name: 'Van 2' }], Locations: stops(200) }), 'FleetTooSmall')).toEqual([]);
  });

  it('depots, breaks and reload points are not stops; a reload point or a pickup → delivery pair lets a van carry more than its capacity (no amount warning)', () => {
    const locs = [...stops(5, 3), { Name: 'Home', LocationType: 'Start', LatLong: DEPOT.LatLong, Weight: 100 }, { Name: 'Lunch', LocationType: 'Break', Wait: 600, Weight: 100 }];
    expect(only(lintDispatchSpecification({ Vehicles: [van({ MaxWeight: 15, MaxStops: 5 })], Locations: locs }), 'FleetTooSmall')).toEqual([]);
    expect(only(lintDispatchSpecification({ Vehicles: [van({ MaxWeight: 14 })], Locations: locs }), 'FleetTooSmall')).toHaveLength(1);
    const drop = { Name: 'Depot drop', LocationType: 'MidwayDrop', LatLong: DEPOT.LatLong };
    expect(only(lintDispatchSpecification({ Vehicles: [van({ MaxWeight: 14 })], Locations: [...locs, drop] }), 'FleetTooSmall')).toEqual([]);
    const paired = [...stops(5, 3)];
    paired[0] = { ...paired[0], Delivery: 'S2' } as never;
    expect(only(lintDispatchSpecification({ Vehicles: [van({ MaxWeight: 14 })], Locations: paired }), 'FleetTooSmall')).toEqual([]);
  });

  it('reads values as the records do (strings coerced, case-insensitive names); malformed values give no warning (validation reports them)', () => {
    const locs = stops(3, 1).map((l) => ({ name: l.Name, latlong: l.LatLong, WEIGHT: '2' }));
    expect(only(lintDispatchSpecification({ vehicles: [{ name: 'V', maxweight: '5' }], locations: locs }), 'FleetTooSmall')).toHaveLength(1);
    expect(only(lintDispatchSpecification({ Vehicles: [{ Name: 'V', MaxWeight: 'lots' }], Locations: locs }), 'FleetTooSmall')).toEqual([]);
  });
});

describe('lintSpecificationSliced', () => {
  it('the same warnings as lintSpecification, a long specification between turns of the event loop', async () => {
    const s = clean();
    (s.Vehicles as Record<string, unknown>[])[0].MaxWeigth = 5;
    const many = Array.from({ length: 3000 }, (_, i) => ({ Name: i % 1000 === 7 ? 'Casino' : `S${i}`, LatLong: i % 997 === 3 ? FAR : STADE.LatLong, Weight: 1, Wiat: 1 }));
    (s.Locations as unknown[]).push(...many);
    let turns = 0;
    const timer = setInterval(() => { turns++; }, 1);
    const sliced = await lintSpecificationSliced('Dispatch', s, engine.context());
    clearInterval(timer);
    expect(sliced).toEqual(lintSpecification('Dispatch', s, engine.context()));
    expect(new Set(sliced.map((w) => w.code))).toEqual(new Set(['UnknownProperty', 'DuplicateName', 'FarFromRoad', 'FleetTooSmall']));
    expect(turns).toBeGreaterThan(0);
    const ac = new AbortController();
    ac.abort();
    await expect(lintSpecificationSliced('Dispatch', { Locations: Array.from({ length: 5000 }, () => CASINO) }, undefined, ac.signal)).rejects.toMatchObject({ code: 'Cancelled' });
  });
});

describe('lintRecord and helpers', () => {
  it('edit distance counts a transposition as 1, is case-insensitive, stops past the bound', () => {
    expect(editDistance('MaxWeigth', 'MaxWeight')).toBe(1);
    expect(editDistance('maxweight', 'MaxWeight')).toBe(0);
    expect(editDistance('Wiat', 'Wait')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('abcdefgh', 'z', 2)).toBe(3);
    expect(suggestName('Tni', Object.keys(VehicleSchema.fields))).toBe('Tin');
    expect(suggestName('Colour', Object.keys(VehicleSchema.fields))).toBeUndefined();
  });

  it('geocode and distance specifications: unknown properties in nested records and lists', () => {
    expect(codesAt(lintGeocodeSpecification({ Adresses: [], Addresses: [{ Stret: 'x', city: 'Monaco' }, null, 5] }))).toEqual([
      'Adresses UnknownProperty', 'Addresses[0].Stret UnknownProperty',
    ]);
    const d = lintDistanceSpecification({ DistanceUnit: 1, StartLocation: { LatLng: { Latitude: 1, Longitude: 2 } }, RouteOptimise: 1 });
    expect(d.map((w) => [w.path, w.message.match(/did you mean (\S+)\?/)?.[1]])).toEqual([['StartLocation.LatLng', 'LatLong'], ['RouteOptimise', 'RouteOptimize']]);
    expect(lintRecord(LatLongSchema, { Latitude: 1, Longitude: 2 })).toEqual([]);
    expect(lintRecord(LocationSchema, 'not an object')).toEqual([]);
  });

  it('the kind of a specification is told by its property names', () => {
    expect(detectSpecificationKind(clean())).toBe('Dispatch');
    expect(detectSpecificationKind({ locations: [] })).toBe('Dispatch');
    expect(detectSpecificationKind({ DistanceUnit: 0, StartLocation: {}, FinishLocation: {} })).toBe('CalculateDistance');
    expect(detectSpecificationKind({ Addresses: [], IsNeedMatchCode: true })).toBe('Geocode');
    expect(detectSpecificationKind({ Foo: 1 })).toBeUndefined();
    expect(detectSpecificationKind([1, 2])).toBeUndefined();
  });
});

describe('properties', () => {
  // JSON shaped like the records: known field names (any case) and misspellings, with arbitrary JSON values.
  const fieldNames = [
    ...Object.keys(DispatchSpecificationSchema.fields), ...Object.keys(VehicleSchema.fields), ...Object.keys(LocationSchema.fields),
    ...Object.keys(GeocodeSpecificationSchema.fields), ...Object.keys(DistanceSpecificationSchema.fields), 'Latitude', 'Longitude', 'Street',
  ];
  const key = fc.oneof(
    fc.constantFrom(...fieldNames),
    fc.constantFrom(...fieldNames).map((k) => k.toLowerCase()),
    fc.constantFrom(...fieldNames).map((k) => k.slice(1)),
    fc.string({ maxLength: 8 }),
  );
  const dates = fc.constantFrom('2026-12-01T09:00:00', '2026-12-01T08:00:00Z', '0001-01-01T00:00:00', 'not a date', '2026-02-30T00:00:00');
  const leaf = fc.oneof(fc.jsonValue({ maxDepth: 1 }), dates, fc.constantFrom(true, false, 'false', 43.73, 7.42, 91, -200, 'V1', 'A'));
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('tree'), { maxLength: 3 }), fc.dictionary(key, tie('tree'), { maxKeys: 6 })),
  }));
  const json = fc.oneof(fc.jsonValue(), tree);

  it('lint never throws on arbitrary JSON, and every warning has a known code and a path', () => {
    const ctx = engine.context();
    fc.assert(
      fc.property(json, fc.boolean(), (spec, withCtx) => {
        const ws = [
          ...lintDispatchSpecification(spec, withCtx ? ctx : undefined),
          ...lintGeocodeSpecification(spec),
          ...lintDistanceSpecification(spec, withCtx ? ctx : undefined),
        ];
        detectSpecificationKind(spec);
        for (const w of ws) {
          expect(LINT_CODES).toContain(w.code);
          expect(typeof w.path).toBe('string');
          expect(w.message.length).toBeGreaterThan(0);
        }
      }),
      { seed: 20261123, numRuns: 2500 },
    );
  });

  it('extra unknown properties produce UnknownProperty warnings and the same dispatch result', async () => {
    const base = {
      DistanceUnit: 'Kilometer', MinimumOptimization: 1,
      Vehicles: [{ Name: 'V1', StartLocation: DEPOT }],
      Locations: [CASINO, STADE],
    };
    const expected = JSON.stringify(await engine.dispatch(base, { seed: 1 }));
    const known = new Set([...fieldNames, ...Object.keys(LatLongSchema.fields)].map((k) => k.toLowerCase()));
    const extraKey = fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !known.has(k.toLowerCase()) && k !== '__proto__');
    const where = fc.constantFrom('', 'Vehicles[0]', 'Locations[0]', 'Locations[1].LatLong', 'Vehicles[0].StartLocation');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(where, extraKey, fc.jsonValue({ maxDepth: 2 })), { minLength: 1, maxLength: 4 }), async (extras) => {
        const spec = structuredClone(base) as Record<string, any>;
        const paths = new Set<string>();
        for (const [at, k, v] of extras) {
          const target = at === '' ? spec
            : at === 'Vehicles[0]' ? spec.Vehicles[0]
              : at === 'Locations[0]' ? spec.Locations[0]
                : at === 'Locations[1].LatLong' ? spec.Locations[1].LatLong : spec.Vehicles[0].StartLocation;
          Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
          paths.add(at === '' ? k : `${at}.${k}`);
        }
        const ws = lintDispatchSpecification(spec, engine.context());
        expect(new Set(ws.map((w) => w.path))).toEqual(paths);
        expect(ws.every((w) => w.code === 'UnknownProperty')).toBe(true);
        expect(JSON.stringify(await engine.dispatch(spec, { seed: 1 }))).toBe(expected);
      }),
      { seed: 8, numRuns: 8 },
    );
  });
});

describe('breaks in the linter', () => {
  it("a Break's departure is its window (no IgnoredField); its Vehicle list is checked name by name", () => {
    const spec = clean();
    (spec.Vehicles as unknown[]).push({ Name: 'V2', StartLocation: DEPOT });
    (spec.Locations as unknown[]).push({
      Name: 'Lunch', LocationType: 'Break', LatLong: CASINO.LatLong, Wait: 1800, Vehicle: 'V1, V2, V3',
      TimeConstraintArrival: '2026-12-01T12:00:00', TimeConstraintDeparture: '2026-12-01T13:00:00',
    });
    const ws = lintDispatchSpecification(spec, engine.context());
    expect(codesAt(ws).filter((c) => c.startsWith('Locations[2]'))).toEqual(['Locations[2].Vehicle PreassignedUnknownVehicle']);
    expect(only(ws, 'PreassignedUnknownVehicle')[0].message).toMatch(/names no vehicle \('V3'\): the break will not be scheduled for it/);
  });
});
