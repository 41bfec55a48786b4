/**
 * Fair sharing of the machine (issue #22): while a long dispatch (MinimumOptimization 10) holds
 * both worker threads to its time limit, a 10-stop Dispatch answers within its solo time + 1 s and
 * a CalculateRoutes of 2 routes within its solo time + 0.5 s — the threads interleave tasks in
 * ~10 ms slices (workers/pool.ts). The same with one task per thread (the old behaviour) makes the
 * short requests wait for the long search: shown, not asserted. (Porto figures: bench/fairness.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessServer, post, type TestServer } from '../helpers/service.js';
import { reachablePool, type LL } from '../helpers/monaco-stops.js';

let server: TestServer;
let pool: LL[];
beforeAll(async () => {
  server = await inProcessServer({ accounts: [{ name: 'a', credit: 1e9 }], service: { dispatchTimeLimitMs: 8000 } });
  pool = reachablePool(server.engine);
}, 120_000);
afterAll(() => server?.close());

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('fair sharing', () => {
  it('a 10-stop Dispatch and a 2-route CalculateRoutes beside a MinimumOptimization-10 dispatch answer within their solo time + 1 s / + 0.5 s', async () => {
    const key = server.keys.a;
    const at = (i: number): LL => ({ Latitude: pool[i % pool.length].Latitude + Math.floor(i / pool.length) * 2e-5, Longitude: pool[i % pool.length].Longitude });
    const long = {
      MinimumOptimization: 10, DispatchMode: 'Optima',
      Vehicles: Array.from({ length: 4 }, (_, v) => ({ Name: `V${v}`, StartLocation: { LatLong: pool[0] } })),
      Locations: Array.from({ length: 150 }, (_, i) => ({ Name: `L${i}`, LatLong: at(i), Wait: 60 })),
    };
    const short = {
      Vehicles: [{ Name: 'A', StartLocation: { LatLong: pool[1] } }, { Name: 'B', StartLocation: { LatLong: pool[1] } }],
      Locations: Array.from({ length: 10 }, (_, i) => ({ Name: `S${i}`, LatLong: at(i * 3 + 1), Wait: 60 })),
    };
    const routes = { Specifications: [{ Locations: [{ LatLong: pool[2] }, { LatLong: pool[5] }, { LatLong: pool[9] }] }, { Locations: [{ LatLong: pool[4] }, { LatLong: pool[7] }] }] };
    const time = async (path: string, body: unknown): Promise<number> => {
      const t = performance.now();
      const r = await post(server.url, path, body, key);
      expect(r.status).toBe(200);
      expect(r.json.Status, r.text).toBe(1);
      return performance.now() - t;
    };
    for (let i = 0; i < 3; i++) { await time('/rest/dispatch', short); await time('/rest/routes', routes); }
    const soloD: number[] = [], soloR: number[] = [];
    for (let i = 0; i < 7; i++) { soloD.push(await time('/rest/dispatch', short)); soloR.push(await time('/rest/routes', routes)); }
    let done = false;
    const t0 = performance.now();
    const longRun = post(server.url, '/rest/dispatch', long, key).then((r) => { done = true; return r; });
    await new Promise((r) => setTimeout(r, 1000)); // into its search
    const loadedD: number[] = [], loadedR: number[] = [];
    while (!done && performance.now() - t0 < 7000) {
      loadedD.push(await time('/rest/dispatch', short));
      loadedR.push(await time('/rest/routes', routes));
      await new Promise((r) => setTimeout(r, 100));
    }
    const l = await longRun;
    expect(l.json.Status).toBe(1);
    const mD = median(soloD), mR = median(soloR);
    console.log(`fairness: 10-stop Dispatch solo ${mD.toFixed(0)} ms, beside the long dispatch ${loadedD.map((x) => x.toFixed(0)).join('/')} ms; `
      + `2-route CalculateRoutes solo ${mR.toFixed(0)} ms, beside it ${loadedR.map((x) => x.toFixed(0)).join('/')} ms; the long dispatch ${(performance.now() - t0).toFixed(0)} ms`);
    expect(loadedD.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...loadedD)).toBeLessThanOrEqual(mD + 1000);
    expect(Math.max(...loadedR)).toBeLessThanOrEqual(mR + 500);
  }, 120_000);
});
