/**
 * Writes the page tests' stop files, `test/ui/fixtures/monaco-50.csv` and `monaco-150.csv`:
 * points of a fine grid over the Monaco fixture that lie on a street (snapped within 35 m, not by a tunnel) and
 * reach the Casino and are reached from it under both metrics (so every stop reaches every other),
 * named by their nearest address, with a weight and a service time. The 50-stop file is the first
 * 50 rows of the 150-stop one. Deterministic: rerun after a change to the fixture or the snapping.
 *
 *   node --import tsx test/ui/make-stops.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Engine } from '../../src/engine.js';
import type { Location } from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { A, type LL } from '../helpers/monaco-stops.js';

const OUT = new URL('./fixtures/', import.meta.url);

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const csvField = (s: string): string => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

const engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1 });
try {
  const reaches = (a: LL, b: LL): boolean => ['MinimizeTime', 'MinimizeDistance'].every(
    (o) => engine.calculateDistance({ StartLocation: { LatLong: a }, FinishLocation: { LatLong: b }, RouteOptimize: o, DistanceUnit: 'Mile' }).Status === 'Success',
  );
  const onStreet = (p: LL): boolean => {
    try {
      return engine.placeLocation({ LatLong: p } as Location, 'p').snap.distanceM <= 35;
    } catch {
      return false;
    }
  };
  // a stop named after a tunnel reads oddly on the map
  const inTunnel = (p: LL): boolean => /^Tunnel\b/.test(engine.reverseGeocode(p.Latitude, p.Longitude, { maxDistance: 200 })?.address.Street ?? '');
  const pool: LL[] = [];
  for (let lat = 43.7245; lat <= 43.7515; lat += 0.0009) {
    for (let lon = 7.4075; lon <= 7.4405; lon += 0.0012) {
      const p = { Latitude: Math.round(lat * 1e6) / 1e6, Longitude: Math.round(lon * 1e6) / 1e6 };
      if (onStreet(p) && !inTunnel(p) && reaches(p, A) && reaches(A, p)) pool.push(p);
    }
  }
  if (pool.length < 150) throw new Error(`only ${pool.length} usable points`);
  // a seeded shuffle, so the first 50 are spread over the whole city too
  const rnd = random(20261201);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  const seen = new Map<string, number>();
  const rows = pool.slice(0, 150).map((p, i) => {
    const near = engine.reverseGeocode(p.Latitude, p.Longitude, { maxDistance: 200 });
    let name = near?.address.Street ?? `Stop ${i + 1}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    if (n > 1) name = `${name} ${n}`;
    const weight = 1 + Math.floor(rnd() * 4);
    const wait = 60 * (2 + Math.floor(rnd() * 4));
    return [name, p.Latitude.toFixed(6), p.Longitude.toFixed(6), String(weight), String(wait)];
  });
  const header = ['Name', 'Latitude', 'Longitude', 'Weight', 'Wait'];
  const write = (file: string, n: number): void => {
    writeFileSync(new URL(file, OUT), [header, ...rows.slice(0, n)].map((r) => r.map(csvField).join(',')).join('\n') + '\n');
  };
  mkdirSync(OUT, { recursive: true });
  write('monaco-50.csv', 50);
  write('monaco-150.csv', 150);
  process.stdout.write(`${pool.length} usable points; wrote monaco-50.csv and monaco-150.csv\n`);
} finally {
  await engine.close();
}
