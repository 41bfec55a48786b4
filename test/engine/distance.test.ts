import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { DistanceResultSchema } from '../../src/records/index.js';
import { Rng } from '../../src/core/rng.js';
import { haversine } from '../../src/core/geo.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
});
afterAll(() => engine.close());

// Two points in Monaco: near the Casino and near the Port Hercule / Stade Louis II area.
const CASINO = { Latitude: 43.7396, Longitude: 7.4277 };
const FONTVIEILLE = { Latitude: 43.7285, Longitude: 7.4150 };

const spec = (extra: Record<string, unknown> = {}) => ({
  StartLocation: { LatLong: CASINO },
  FinishLocation: { LatLong: FONTVIEILLE },
  DistanceUnit: 'Kilometer',
  ...extra,
});

describe('CalculateDistance', () => {
  it('returns distance in the requested unit, time in whole seconds, Exact match codes for LatLongs', () => {
    const r = engine.calculateDistance(spec());
    expect(r.Status).toBe('Success');
    expect(r.StartLocationMatchCode).toBe('Exact');
    expect(r.FinishLocationMatchCode).toBe('Exact');
    const crow = haversine(CASINO.Latitude, CASINO.Longitude, FONTVIEILLE.Latitude, FONTVIEILLE.Longitude) / 1000;
    expect(r.Distance).toBeGreaterThan(crow);
    expect(r.Distance).toBeLessThan(crow * 3);
    expect(Number.isInteger(r.Time)).toBe(true);
    expect(r.Time).toBeGreaterThan(60);
    const miles = engine.calculateDistance(spec({ DistanceUnit: 'Mile' }));
    expect(miles.Distance).toBeCloseTo(r.Distance / 1.609344, 5);
    // records carry the engine's precision (cm), without float noise
    expect(Number(r.Distance.toFixed(5))).toBe(r.Distance);
    expect(Number(miles.Distance.toFixed(6))).toBe(miles.Distance);
    expect(String(miles.Distance).length).toBeLessThanOrEqual(String(Math.floor(miles.Distance)).length + 7);
    expect(DistanceResultSchema.encode(r)).toMatchObject({ Status: 1, StartLocationMatchCode: 4 });
  });

  it('MinimizeDistance finds a path no longer, and no faster, than MinimizeTime', () => {
    const rng = new Rng(3);
    const bb = engine.dataset.meta.bbox;
    let checked = 0;
    for (let i = 0; i < 200; i++) {
      const p = () => ({ Latitude: 43.725 + rng.next() * 0.025, Longitude: 7.41 + rng.next() * 0.03 });
      const s = { StartLocation: { LatLong: p() }, FinishLocation: { LatLong: p() }, DistanceUnit: 1 };
      const fast = engine.calculateDistance({ ...s, RouteOptimize: 0 });
      const short = engine.calculateDistance({ ...s, RouteOptimize: 1 });
      if (fast.Status !== 'Success') continue;
      expect(short.Status).toBe('Success');
      expect(short.Distance).toBeLessThanOrEqual(fast.Distance + 1e-9);
      expect(short.Time).toBeGreaterThanOrEqual(fast.Time - 1);
      checked++;
    }
    expect(checked).toBeGreaterThan(150);
    expect(bb.minLat).toBeLessThan(43.725);
  });

  it('a point to itself is zero', () => {
    const r = engine.calculateDistance({ StartLocation: { LatLong: CASINO }, FinishLocation: { LatLong: CASINO }, DistanceUnit: 0 });
    expect(r).toMatchObject({ Status: 'Success', Distance: 0, Time: 0 });
  });

  it('bad input fails with errors naming the field, never throws', () => {
    const cases: [unknown, RegExp][] = [
      [{}, /DistanceUnit: is required/],
      [null, /must be a DistanceSpecification object/],
      ['nonsense', /must be a DistanceSpecification object/],
      [{ DistanceUnit: 0 }, /StartLocation: is required/],
      [spec({ DistanceUnit: 'Parsec' }), /DistanceUnit: must be one of Mile=0, Kilometer=1/],
      [spec({ StartLocation: { LatLong: { Latitude: Number.NaN, Longitude: 7.4 } } }), /StartLocation\.LatLong\.Latitude: must be a finite number/],
      [spec({ StartLocation: { LatLong: { Latitude: 123, Longitude: 7.4 } } }), /StartLocation\.LatLong\.Latitude: must be between -90 and 90 \(got 123\)/],
      [spec({ FinishLocation: { LatLong: { Latitude: 43.9, Longitude: 7.9 } } }), /FinishLocation.*nearest road.*\[NoSegment\]/],
      [spec({ FinishLocation: { LatLong: { Latitude: 7.4277, Longitude: 43.7396 } } }), /swapped/i],
      [spec({ FinishLocation: {} }), /FinishLocation: needs LatLong/],
      [spec({ StartLocation: { LatLong: { Latitude: 43.7 } } }), /StartLocation\.LatLong\.Longitude: is required/],
    ];
    for (const [input, re] of cases) {
      const r = engine.calculateDistance(input);
      expect(r.Status, JSON.stringify(input)).toBe('Failed');
      expect(r.Errors?.map((e) => e.Message).join(' | '), JSON.stringify(input)).toMatch(re);
      expect(r.Distance).toBe(0);
    }
  });
});

describe('travel matrices', () => {
  it('cells equal point-to-point CalculateDistance, in-thread and on the pool', async () => {
    const rng = new Rng(9);
    const pts: { Latitude: number; Longitude: number }[] = [];
    while (pts.length < 520) {
      const p = { Latitude: 43.725 + rng.next() * 0.025, Longitude: 7.41 + rng.next() * 0.03 };
      if (engine.dataset.snapper.trySnap(p.Latitude, p.Longitude)) pts.push(p);
    }
    const places = pts.map((p, i) => engine.placeLocation({ LatLong: p } as any, `Locations[${i}]`));
    const small = await engine.travelMatrix(places.slice(0, 40));
    const big = await engine.travelMatrix(places); // 520² > 250k cells: pooled tiles
    for (let k = 0; k < 300; k++) {
      const i = rng.int(40), j = rng.int(40);
      const r = engine.calculateDistance({ StartLocation: { LatLong: pts[i] }, FinishLocation: { LatLong: pts[j] }, DistanceUnit: 'Kilometer' });
      expect(Math.round(small.timeS[i * 40 + j])).toBe(r.Time);
      expect(small.distanceM[i * 40 + j] / 1000).toBeCloseTo(r.Distance, 6);
      expect(big.timeS[i * 520 + j]).toBe(small.timeS[i * 40 + j]);
      expect(big.distanceM[i * 520 + j]).toBe(small.distanceM[i * 40 + j]);
    }
    for (let i = 0; i < 40; i++) expect(small.timeS[i * 41]).toBe(0);
  });

  it('handles empty and single-point matrices', async () => {
    expect((await engine.travelMatrix([])).size).toBe(0);
    const one = await engine.travelMatrix([engine.placeLocation({ LatLong: CASINO } as any, 'x')]);
    expect(Array.from(one.timeS)).toEqual([0]);
  });

  it('refuses matrices past the memory bound with TooBig', async () => {
    const tiny = await Engine.open(engine.dataset.buffer, { maxMatrixBytes: 1000 });
    const places = [0, 1, 2, 3].map((i) => tiny.placeLocation({ LatLong: { Latitude: 43.73 + i * 0.002, Longitude: 7.42 } } as any, `L${i}`));
    const err: any = await tiny.travelMatrix(places).catch((e) => e);
    expect(err.code).toBe('TooBig');
    await tiny.close();
  });
});
