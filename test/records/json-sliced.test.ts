/** Large answers written in slices: the same text as JSON.stringify(encode(...)), with the event loop running meanwhile. */
import { describe, expect, it } from 'vitest';
import { loopHolds } from '../../bench/lib/loop.js';
import fc from 'fast-check';
import { DispatchResultSchema, TrackResultSchema, RoutesResultSchema, jsonSliced, rawJsonSliced, parseJsonSliced, safeParseSliced, joined } from '../../src/records/index.js';
import { GeoJsonResultSchema } from '../../src/records/service.js';

const loc = fc.record({
  Name: fc.string({ maxLength: 8 }), LatLong: fc.record({ Latitude: fc.double({ min: -90, max: 90, noNaN: true }), Longitude: fc.double({ min: -180, max: 180, noNaN: true }) }),
  LocationType: fc.constantFrom('Midway', 'Start', 'Finish', 'Break'), Distance: fc.double({ min: 0, max: 1e4, noNaN: true }), Time: fc.integer({ min: 0, max: 1e5 }),
  TimeEstimatedArrival: fc.constant('2026-12-01T09:00:00'), MatchCode: fc.constantFrom('Exact', 'None'),
}, { requiredKeys: ['Name', 'LatLong'] });
const result = fc.record({
  Status: fc.constantFrom('Success', 'SuccessWithErrors'),
  Errors: fc.array(fc.record({ Message: fc.string() }), { maxLength: 40 }),
  Items: fc.array(fc.record({ Vehicle: fc.record({ Name: fc.string({ maxLength: 5 }) }), Locations: fc.array(loc, { maxLength: 120 }) }), { maxLength: 6 }),
});

describe('jsonSliced', () => {
  it('writes exactly what JSON.stringify(rec.encode(v)) writes, for both enum encodings (300 random dispatch results)', async () => {
    await fc.assert(fc.asyncProperty(result, fc.constantFrom('int', 'name'), async (r, enums) => {
      const parsed = DispatchResultSchema.safeParse(r);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      expect(joined(await jsonSliced(DispatchResultSchema, parsed.value, { enums: enums as 'int' | 'name' }))).toBe(JSON.stringify(DispatchResultSchema.encode(parsed.value, { enums: enums as 'int' | 'name' })));
    }), { numRuns: 300, seed: 7 });
  });

  it('a raw JSON field (GeoJSON) and nested lists (CalculateRoutes) come out as JSON.stringify writes them', async () => {
    const geo = { type: 'FeatureCollection', features: Array.from({ length: 500 }, (_, i) => ({ type: 'Feature', geometry: { type: 'LineString', coordinates: Array.from({ length: 50 }, (_, k) => [i + k / 100, k]) }, properties: { i, u: undefined } })) };
    const v = { Status: 'Success', Errors: [], GeoJson: geo };
    expect(joined(await jsonSliced(GeoJsonResultSchema, v))).toBe(JSON.stringify(GeoJsonResultSchema.encode(v as never)));
    expect(joined(await rawJsonSliced(geo))).toBe(JSON.stringify(geo));
    const routes = { Status: 'Success', Errors: [], Results: Array.from({ length: 200 }, () => ({ Status: 'Success', Errors: [], Route: { Distance: 1, Time: 2, Points: Array.from({ length: 100 }, (_, k) => ({ Latitude: k, Longitude: -k })) } })) };
    const p = RoutesResultSchema.safeParse(routes);
    expect(p.ok).toBe(true);
    if (p.ok) expect(joined(await jsonSliced(RoutesResultSchema, p.value))).toBe(JSON.stringify(RoutesResultSchema.encode(p.value)));
  });

  it('hands the event loop back while it writes a large answer (400,000 track points: no hold of its own over 50 ms)', async () => {
    const v = { Status: 'Success' as const, Errors: [], TrackPoints: Array.from({ length: 400_000 }, (_, i) => ({ Latitude: 43.7 + i * 1e-7, Longitude: 7.4, TimeStamp: '2026-12-01T09:00:00Z' })) };
    let chunks: Awaited<ReturnType<typeof jsonSliced>> | undefined;
    const t0 = performance.now();
    // the writer's own holds: gaps less the garbage collector's pauses inside them (the 400,000
    // records and the 20 MB answer cost collections of their own, 60 ms now and then on a slow machine)
    const h = await loopHolds(async () => { chunks = await jsonSliced(TrackResultSchema, v); });
    const ms = performance.now() - t0;
    const text = joined(chunks!);
    expect(text.length).toBeGreaterThan(20_000_000);
    expect(ms).toBeGreaterThan(100); // long enough that writing it in one go would hold the loop for all of it
    expect(h.own, `longest own hold ${h.own.toFixed(1)} ms (gap ${h.gap.toFixed(1)}, GC pause ${h.gc.toFixed(1)}) over ${ms.toFixed(0)} ms of writing`).toBeLessThan(50);
  });
});

describe('parseJsonSliced', () => {
  it('gives what JSON.parse gives (2,000 random documents, every container walked), and fails where it fails', async () => {
    await fc.assert(fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), fc.constantFrom(0, 1, 2), async (v, ws) => {
      const text = JSON.stringify(v, null, ws);
      expect(await parseJsonSliced(text, { from: 0, big: 0 })).toEqual(JSON.parse(text));
    }), { numRuns: 2000, seed: 11 });
    for (const bad of ['{"a":1,}', '[1,2', '{"a" 1}', '[1 2]', '{"a":tru}', '"x', '[]]', '{"a":[1,2,{"b":}]}', '', '  ', '[,1]', '{,}']) {
      expect(() => JSON.parse(bad), bad).toThrow(SyntaxError);
      await expect(parseJsonSliced(bad, { from: 0, big: 0 }), bad).rejects.toThrow(SyntaxError);
    }
    const proto = await parseJsonSliced('{"__proto__":{"polluted":1},"a":[1]}', { from: 0, big: 0 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('parses a 30 MB body with the event loop running (no gap over 50 ms)', async () => {
    const text = JSON.stringify({ TrackPoints: Array.from({ length: 400_000 }, (_, i) => ({ Latitude: 43.7 + i * 1e-7, Longitude: 7.4, TimeStamp: '2026-12-01T09:00:00Z' })) });
    // the longest gap between timer ticks while it parses; a second try when the first meets a
    // busy machine (the other test files run beside this one: a gap also counts time the process
    // was not scheduled) — a parser that holds the loop fails both
    const gaps: number[] = [];
    for (let attempt = 0; attempt < 2 && !(gaps.length && gaps[gaps.length - 1] < 50); attempt++) {
      let last = performance.now(), gap = 0;
      const timer = setInterval(() => { const t = performance.now(); gap = Math.max(gap, t - last); last = t; }, 1);
      const v = await parseJsonSliced(text) as { TrackPoints: unknown[] };
      clearInterval(timer);
      expect(v.TrackPoints).toHaveLength(400_000);
      if (attempt === 0) expect(v).toEqual(JSON.parse(text));
      gaps.push(gap);
    }
    expect(Math.min(...gaps), `gaps ${gaps.map((g) => g.toFixed(0)).join(', ')} ms`).toBeLessThan(50);
  });
});

describe('safeParseSliced', () => {
  it('the same value and issues as safeParse (random dispatch results with long lists, valid and not)', async () => {
    const messy = fc.oneof(result, result.map((r) => ({ ...r, Items: r.Items.map((it, i) => (i === 0 ? { ...it, Locations: [...it.Locations, { Name: 3, LatLong: 'x' }, null] } : it)) })));
    await fc.assert(fc.asyncProperty(messy, async (r) => {
      const a = DispatchResultSchema.safeParse(r);
      const b = await safeParseSliced(DispatchResultSchema, r);
      expect(b.ok).toBe(a.ok);
      if (a.ok && b.ok) expect(b.value).toEqual(a.value);
      if (!a.ok && !b.ok) expect(new Set(b.issues.map((i) => `${i.path}: ${i.message}`))).toEqual(new Set(a.issues.map((i) => `${i.path}: ${i.message}`)));
    }), { numRuns: 300, seed: 13 });
  });
});
