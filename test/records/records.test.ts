import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  RECORDS, ENUMS, LocationSchema, VehicleSchema, DispatchSpecificationSchema, DistanceSpecificationSchema, RouteOptionsSchema,
  RouteColorSchema, MapSizeSchema, ShapeSchema, GeocodeSpecificationSchema, RouteListSpecificationSchema, RouteListItemSchema,
  DispatchMode, DistanceUnit, MatchCode, OperationStatus, LatLongSchema, TrackPointSchema, DistanceResultSchema,
  contractJsonSchema, dateToSeconds, secondsToDate, failedFromIssues,
} from '../../src/records/index.js';
import { describeType, t } from '../../src/records/schema.js';

// Defaults transcribed by hand from service-interface.md (independent of the schema source).
const NULL = '0001-01-01T00:00:00';
const CONTRACT_DEFAULTS: Record<string, Record<string, unknown>> = {
  Location: {
    MatchCode: 'None', DeliveryNonStop: true, KeepSameOrder: false, Priority: 0, Wait: 0, Volume: 0, Weight: 0, Skids: 0,
    TimeConstraintArrival: NULL, TimeConstraintDeparture: NULL, TimeConstraintArrival2: NULL, TimeConstraintDeparture2: NULL,
    TimeEstimatedArrival: NULL, LocationType: 'Midway', CanArriveEarly: true, Distance: 0, Time: 0,
  },
  MapSize: { Width: 0, Height: 0 },
  RouteColor: { A: 179, R: 0, G: 169, B: 235 },
  RouteOptions: { RoutingService: 'EngineThree', DistanceUnit: 'Mile', RouteOptimize: 'MinimizeTime', Culture: 'en-US', HideStops: false, ZoomLevel: 0 },
  DispatchSpecification: {
    RoutingService: 'EngineOne', IsNeedMatchCode: false, CurrentTime: NULL, DispatchMode: 'Auto', MinimumOptimization: 4,
    DistanceUnit: 'Mile', RouteOptimize: 'MinimizeTime',
  },
  Vehicle: {
    Speed: 0, MaxStops: 0, MaxWeight: 0, MaxSkids: 0, MaxVolume: 0, MaxMinutes: 0, FuelCost: 0, OnTheRoad: false, Tin: NULL, Tout: NULL,
  },
  Shape: { Restriction: 'DoNotEnter' },
  GeocodeSpecification: { IsNeedMatchCode: false },
  DistanceSpecification: { RouteOptimize: 'MinimizeTime' },
  RouteListSpecification: { FromDate: NULL, ToDate: NULL },
  RouteListItem: { DateCreated: NULL },
};

describe('records: defaults', () => {
  it('every record with contract defaults yields exactly them', () => {
    for (const r of RECORDS) {
      expect(r.defaults(), r.name).toEqual(CONTRACT_DEFAULTS[r.name] ?? {});
    }
  });

  it('parsing an empty object applies the defaults of each record without required fields', () => {
    const loc = LocationSchema.safeParse({});
    expect(loc.ok && loc.value).toEqual(CONTRACT_DEFAULTS.Location);
    const v = VehicleSchema.safeParse({ Name: 'V1' });
    expect(v.ok && v.value).toEqual({ ...CONTRACT_DEFAULTS.Vehicle, Name: 'V1' });
    for (const [schema, name] of [[RouteOptionsSchema, 'RouteOptions'], [RouteColorSchema, 'RouteColor'], [MapSizeSchema, 'MapSize'],
      [ShapeSchema, 'Shape'], [GeocodeSpecificationSchema, 'GeocodeSpecification'], [RouteListSpecificationSchema, 'RouteListSpecification'],
      [DispatchSpecificationSchema, 'DispatchSpecification']] as const) {
      const r = (schema as any).safeParse({});
      expect(r.ok, name).toBe(true);
      expect(r.value, name).toEqual(CONTRACT_DEFAULTS[name]);
    }
  });

  it('required fields are reported when missing', () => {
    const r = DistanceSpecificationSchema.safeParse({});
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues).toEqual([{ path: 'DistanceUnit', message: 'is required' }]);
    const ll = LatLongSchema.safeParse({ Latitude: 1 }, 'StartLocation.LatLong');
    expect(!ll.ok && ll.issues[0]).toEqual({ path: 'StartLocation.LatLong.Longitude', message: 'is required' });
    const li = RouteListItemSchema.safeParse({});
    expect(!li.ok && li.issues.map((i) => i.path)).toEqual(['RouteID', 'Distance', 'Time']);
  });

  it('null counts as omitted (default applied)', () => {
    const r = LocationSchema.safeParse({ Priority: null, LatLong: null, Name: null });
    expect(r.ok && r.value.Priority).toBe(0);
    expect(r.ok && 'LatLong' in r.value).toBe(false);
  });
});

describe('records: enums', () => {
  it('accept names (any case) and integers; emit integers by default, names on request', () => {
    const r = DispatchSpecificationSchema.safeParse({ DispatchMode: 'optima', DistanceUnit: 1, RouteOptimize: '1' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.DispatchMode).toBe('Optima');
    expect(r.value.DistanceUnit).toBe('Kilometer');
    expect(r.value.RouteOptimize).toBe('MinimizeDistance');
    expect(DispatchSpecificationSchema.encode(r.value).DispatchMode).toBe(8);
    expect(DispatchSpecificationSchema.encode(r.value, { enums: 'name' }).DispatchMode).toBe('Optima');
  });

  it('Central is an alias of EqualDistance (value 5)', () => {
    const a = DispatchSpecificationSchema.safeParse({ DispatchMode: 'Central' });
    const b = DispatchSpecificationSchema.safeParse({ DispatchMode: 5 });
    expect(a.ok && a.value.DispatchMode).toBe('EqualDistance');
    expect(b.ok && b.value.DispatchMode).toBe('EqualDistance');
    expect(DispatchMode.numberOf('EqualDistance')).toBe(5);
  });

  it('numeric values match semantics.md', () => {
    expect(OperationStatus.values).toEqual({ None: 0, Success: 1, Failed: 2, SuccessWithErrors: 3 });
    expect(MatchCode.values).toEqual({ None: 0, Poor: 1, Approx: 2, Good: 3, Exact: 4 });
    expect(DistanceUnit.values).toEqual({ Mile: 0, Kilometer: 1 });
    expect(DispatchMode.values).toMatchObject({ Auto: 0, TimeWindow: 6, TimeWindowDepot: 7, Optima: 8, MinimumVehicles: 11 });
    expect(ENUMS.length).toBe(10);
  });

  it('unknown names and out-of-range integers are errors naming the field and the allowed values', () => {
    const r = DistanceSpecificationSchema.safeParse({ DistanceUnit: 'Furlong' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0].path).toBe('DistanceUnit');
    expect(!r.ok && r.issues[0].message).toContain('Mile=0, Kilometer=1');
    const r2 = DistanceSpecificationSchema.safeParse({ DistanceUnit: 7 });
    expect(!r2.ok && r2.issues[0].message).toContain('got 7');
  });
});

describe('records: binding and validation', () => {
  it('binds property names case-insensitively and ignores unknown properties', () => {
    const r = DistanceSpecificationSchema.safeParse({
      distanceunit: 'Kilometer',
      startlocation: { latlong: { latitude: 43.73, LONGITUDE: 7.42 } },
      Whatever: 12,
    });
    expect(r.ok).toBe(true);
    expect(r.ok && r.value.StartLocation?.LatLong).toEqual({ Latitude: 43.73, Longitude: 7.42 });
  });

  it('names nested field paths with list indexes', () => {
    const r = DispatchSpecificationSchema.safeParse({
      Locations: [{ Name: 'a' }, { Name: 'b', LatLong: { Latitude: 'north', Longitude: 7 } }, null],
      Vehicles: [{ Name: 'v', MaxWeight: Number.NaN }],
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues.map((i) => i.path)).toEqual(['Vehicles[0].MaxWeight', 'Locations[1].LatLong.Latitude', 'Locations[2]']);
  });

  it('rejects wrong container types', () => {
    expect(DispatchSpecificationSchema.safeParse({ Locations: { Name: 'x' } }).ok).toBe(false);
    expect(DispatchSpecificationSchema.safeParse('hello').ok).toBe(false);
    expect(DispatchSpecificationSchema.safeParse(null).ok).toBe(false);
    expect(DispatchSpecificationSchema.safeParse([]).ok).toBe(false);
  });

  it('integers must be whole and in range; unsignedByte 0..255; strings of numbers accepted (XML)', () => {
    expect(LocationSchema.safeParse({ Wait: 1.5 }).ok).toBe(false);
    expect(LocationSchema.safeParse({ Wait: 2 ** 31 }).ok).toBe(false);
    expect(LocationSchema.safeParse({ Wait: '300' }).ok).toBe(true);
    expect(RouteColorSchema.safeParse({ A: 256 }).ok).toBe(false);
    expect(RouteColorSchema.safeParse({ A: 255 }).ok).toBe(true);
    expect(LocationSchema.safeParse({ Weight: Infinity }).ok).toBe(false);
    expect(LocationSchema.safeParse({ CanArriveEarly: 'yes' }).ok).toBe(false);
    expect(LocationSchema.safeParse({ CanArriveEarly: 'false' }).ok && true).toBe(true);
  });

  it('never throws on arbitrary input', () => {
    fc.assert(fc.property(fc.anything(), (x) => {
      const r = DispatchSpecificationSchema.safeParse(x);
      expect(typeof r.ok).toBe('boolean');
      const r2 = DispatchSpecificationSchema.safeParse({ Locations: [x], Vehicles: x });
      expect(typeof r2.ok).toBe('boolean');
    }), { seed: 42, numRuns: 500 });
  });

  it('extension records carry the base fields first', () => {
    expect(Object.keys(TrackPointSchema.fields)).toEqual(['Latitude', 'Longitude', 'TimeStamp']);
    expect(Object.keys(DistanceResultSchema.fields).slice(0, 2)).toEqual(['Errors', 'Status']);
  });
});

describe('records: numeric ranges (Field.range)', () => {
  it('MinimumOptimization is 1..10 (default 4); out of range or not whole fails naming the field', () => {
    for (const ok of [1, 4, 10, '7']) expect(DispatchSpecificationSchema.safeParse({ MinimumOptimization: ok }).ok, String(ok)).toBe(true);
    for (const [bad, got] of [[0, '0'], [11, '11'], [-5, '-5'], [1e9, '1000000000']] as const) {
      const r = DispatchSpecificationSchema.safeParse({ MinimumOptimization: bad });
      expect(!r.ok && r.issues).toEqual([{ path: 'MinimumOptimization', message: `must be between 1 and 10 (got ${got})` }]);
    }
    expect(DispatchSpecificationSchema.safeParse({ MinimumOptimization: 2.5 }).ok).toBe(false);
    expect(DispatchSpecificationSchema.defaults().MinimumOptimization).toBe(4);
  });

  it('bounds the other knobs of Vehicle and Location (doubles too), with plain numbers in messages', () => {
    const v = (x: Record<string, unknown>) => VehicleSchema.safeParse(x);
    expect(v({ MaxWeight: -5 })).toEqual({ ok: false, issues: [{ path: 'MaxWeight', message: 'must be between 0 and 1000000000000 (got -5)' }] });
    expect(v({ MaxWeight: 1e12 }).ok).toBe(true);
    expect(v({ MaxWeight: 1.5e12 }).ok).toBe(false);
    expect(v({ FuelCost: 0.25 }).ok).toBe(true);
    expect(v({ FuelCost: 1e7 }).ok).toBe(false);
    expect(v({ Speed: 1001 }).ok).toBe(false);
    expect(v({ MaxMinutes: 14 * 1440 }).ok).toBe(true);
    expect(v({ MaxMinutes: 14 * 1440 + 1 }).ok).toBe(false);
    expect(v({ MaxStops: -1 }).ok).toBe(false);
    const l = (x: Record<string, unknown>) => LocationSchema.safeParse(x);
    expect(l({ Priority: -1_000_000 }).ok).toBe(true);
    expect(l({ Priority: 1_000_001 }).ok).toBe(false);
    expect(l({ Wait: 86_400 }).ok).toBe(true);
    expect(l({ Wait: 86_401 }).ok).toBe(false);
    expect(l({ Weight: -0.001 }).ok).toBe(false);
    expect(l({ Skids: -1 }).ok).toBe(false);
  });

  it('JSON Schema and describeType carry the bounds; the plain types keep their own', () => {
    const s = contractJsonSchema() as any;
    expect(s.$defs.DispatchSpecification.properties.MinimumOptimization).toMatchObject({ type: 'integer', minimum: 1, maximum: 10, default: 4 });
    expect(s.$defs.Vehicle.properties.MaxWeight).toMatchObject({ type: 'number', minimum: 0, maximum: 1e12 });
    expect(s.$defs.LatLong.properties.Latitude).toEqual({ type: 'number', 'x-xsd-type': 'double' });
    expect(describeType(DispatchSpecificationSchema.fields.MinimumOptimization.ty)).toEqual({ xsd: 'int', min: 1, max: 10 });
    expect(describeType(VehicleSchema.fields.FuelCost.ty)).toEqual({ xsd: 'double', min: 0, max: 1e6 });
    expect(describeType(RouteColorSchema.fields.A.ty)).toEqual({ xsd: 'unsignedByte' });
    expect(describeType(LocationSchema.fields.Time.ty)).toEqual({ xsd: 'int' });
  });

  it('a range never admits what the type itself refuses, and the default must lie inside', () => {
    const f = t.int().range(-1e20, 1e20);
    expect(describeType(f.ty)).toEqual({ xsd: 'int', min: -2147483648, max: 2147483647 });
    expect(() => t.int().def(0).range(1, 10)).toThrow(/outside the range/);
  });
});

describe('records: dates', () => {
  it('treats dates at or before 2012-01-01 as not set', () => {
    expect(dateToSeconds('0001-01-01T00:00:00')).toBeNull();
    expect(dateToSeconds('2012-01-01T00:00:00')).toBeNull();
    expect(dateToSeconds('2012-01-01T00:00:01')).not.toBeNull();
    expect(dateToSeconds(undefined)).toBeNull();
  });

  it('uses zoneless times as wall clock and honours zones', () => {
    const a = dateToSeconds('2026-12-01T09:00:00')!;
    expect(secondsToDate(a)).toBe('2026-12-01T09:00:00');
    expect(dateToSeconds('2026-12-01T09:00:00Z')).toBe(a);
    expect(dateToSeconds('2026-12-01T10:00:00+01:00')).toBe(a);
    expect(dateToSeconds('2026-12-01T10:00:00+0100')).toBe(a);
    expect(secondsToDate(a + 90.4)).toBe('2026-12-01T09:01:30');
  });

  it('validates dateTime strings', () => {
    expect(LocationSchema.safeParse({ TimeConstraintArrival: '2026-02-30T09:00:00' }).ok).toBe(false);
    expect(LocationSchema.safeParse({ TimeConstraintArrival: 'tomorrow' }).ok).toBe(false);
    expect(LocationSchema.safeParse({ TimeConstraintArrival: '2026-12-01T09:00:00.123Z' }).ok).toBe(true);
    expect(LocationSchema.safeParse({ TimeConstraintArrival: '/Date(1764579600000)/' }).ok).toBe(true);
  });
});

describe('records: results and JSON Schema', () => {
  it('failed results list one message per issue with its path', () => {
    const r = failedFromIssues([{ path: 'Locations[0].LatLong.Latitude', message: 'must be between -90 and 90 (got 123)' }]);
    expect(r).toEqual({ Status: 'Failed', Errors: [{ Message: 'Locations[0].LatLong.Latitude: must be between -90 and 90 (got 123)' }] });
  });

  it('exports a JSON Schema with every record and enum', () => {
    const s = contractJsonSchema() as any;
    expect(Object.keys(s.$defs)).toHaveLength(RECORDS.length + ENUMS.length);
    expect(s.$defs.Location.properties.Priority).toMatchObject({ type: 'integer', default: 0 });
    expect(s.$defs.Location.properties.LatLong).toEqual({ $ref: '#/$defs/LatLong' });
    expect(s.$defs.DistanceSpecification.required).toEqual(['DistanceUnit']);
    expect(s.$defs.DistanceResult['x-extends']).toBe('Result');
    expect(s.$defs.DispatchMode.anyOf[0].enum).toContain('Central');
    expect(s.$defs.RouteColor.properties.A).toMatchObject({ minimum: 0, maximum: 255, default: 179, 'x-xsd-type': 'unsignedByte' });
  });
});

describe('records: published JSON Schema', () => {
  it('docs/contract.schema.json is the current export (regenerate with `dispatchkit schema > docs/contract.schema.json`)', async () => {
    const { readFileSync } = await import('node:fs');
    const committed = JSON.parse(readFileSync(new URL('../../docs/contract.schema.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(contractJsonSchema())));
  });
});
