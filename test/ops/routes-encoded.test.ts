/**
 * CalculateRoutes encoded on the executor (RoutesOptions.encodeFor, what the REST face asks for):
 * each RouteResult comes back as its JSON bytes (records ENCODED) beside its Status and Errors,
 * and the answer written from them is byte for byte the one written from the full records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { ENCODED, joined, jsonSliced, RoutesResultSchema, type RoutesResult } from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { reachablePool } from '../helpers/monaco-stops.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
});
afterAll(() => engine.close());

describe('CalculateRoutes encoded on the executor', () => {
  it('gives the same answer, byte for byte, in both enum forms; failed routes keep their Status and Errors; a map falls back to records', async () => {
    const pool = reachablePool(engine);
    const loc = (i: number) => ({ LatLong: pool[i % pool.length] });
    const Specifications: unknown[] = Array.from({ length: 30 }, (_, i) => ({ Locations: [loc(i), loc(i + 7), loc(i + 13)], ...(i % 5 === 0 ? { RouteOptions: { DistanceUnit: 'Kilometer', Culture: 'fr-FR' } } : {}) }));
    Specifications[4] = { Locations: [{ LatLong: { Latitude: 45, Longitude: 7 } }, loc(1)] }; // far from any road: Failed
    const spec = { Specifications };
    const plain = (await engine.run('CalculateRoutes', spec, { offload: true })) as RoutesResult;
    expect(plain.Status).toBe('SuccessWithErrors');
    for (const enums of ['int', 'name'] as const) {
      const enc = (await engine.run('CalculateRoutes', spec, { offload: true, encodeFor: enums })) as RoutesResult;
      expect(enc.Results!.every((r) => ENCODED in (r as object))).toBe(true);
      expect(enc.Results![4].Status).toBe('Failed');
      expect(enc.Status).toBe(plain.Status);
      expect(enc.Errors).toEqual(plain.Errors);
      const a = joined(await jsonSliced(RoutesResultSchema, enc, { enums }));
      const b = joined(await jsonSliced(RoutesResultSchema, plain, { enums }));
      expect(a.length).toBeGreaterThan(10_000);
      expect(a).toBe(b);
      // written in the other form only Status and Errors remain (the bytes are for the form asked for): a face asks for the form it writes
      const other = enums === 'int' ? 'name' : 'int';
      expect(joined(await jsonSliced(RoutesResultSchema, enc, { enums: other }))).not.toBe(joined(await jsonSliced(RoutesResultSchema, plain, { enums: other })));
    }
    const withMap = (await engine.run('CalculateRoutes', { ...spec, RoutesOptions: { MapSize: { Width: 200, Height: 100 } } }, { offload: true, encodeFor: 'int' })) as RoutesResult;
    expect(withMap.Results!.some((r) => ENCODED in (r as object))).toBe(false);
    expect(typeof withMap.Map).toBe('string');
  });
});
