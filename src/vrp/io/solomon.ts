/**
 * Solomon / Gehring & Homberger VRPTW text files. Euclidean distances in double precision,
 * travel time = distance. Inside the solver every value is scaled by {@link SOLOMON_SCALE} and
 * made integral: distances rounded (objective), travel times rounded *up* (so an integer-feasible
 * schedule is feasible in exact arithmetic too). Fleet = the file's NUMBER of vehicles, all at
 * the depot (customer 0), shift = the depot's [READY TIME, DUE DATE].
 */
import { invalidInput } from '../../core/errors.js';
import type { VrpStop, VrpVehicle } from '../model.js';
import type { BenchInstance } from './common.js';

export const SOLOMON_SCALE = 10_000;

export function parseSolomon(text: string, name = 'solomon'): BenchInstance {
  const lines = text.split(/\r?\n/);
  let i = 0;
  const title = lines.find((l) => l.trim() !== '')?.trim() ?? name;
  while (i < lines.length && !/^\s*NUMBER\s+CAPACITY/i.test(lines[i])) i++;
  if (i >= lines.length) throw invalidInput('instance', 'not a Solomon file: no "NUMBER CAPACITY" line');
  i++;
  while (i < lines.length && lines[i].trim() === '') i++;
  const [numV, cap] = lines[i].trim().split(/\s+/).map(Number);
  if (!(numV > 0) || !(cap > 0)) throw invalidInput('instance', `bad vehicle line "${lines[i].trim()}"`);
  while (i < lines.length && !/CUST\s*NO/i.test(lines[i])) i++;
  i++;
  const rows: number[][] = [];
  for (; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t === '') continue;
    const f = t.split(/\s+/).map(Number);
    if (f.length < 7 || f.some((x) => Number.isNaN(x))) throw invalidInput('instance', `bad customer line ${i + 1}: "${t}"`);
    rows.push(f);
  }
  if (rows.length < 2) throw invalidInput('instance', 'no customers');
  const n = rows.length;
  const S = SOLOMON_SCALE;
  const xs = rows.map((r) => r[1]);
  const ys = rows.map((r) => r[2]);
  const euclid = (a: number, b: number): number => Math.sqrt((xs[a] - xs[b]) ** 2 + (ys[a] - ys[b]) ** 2);
  const time = new Int32Array(new SharedArrayBuffer(n * n * 4));
  const dist = new Int32Array(new SharedArrayBuffer(n * n * 4));
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      const d = euclid(a, b) * S;
      dist[a * n + b] = Math.round(d);
      time[a * n + b] = Math.ceil(d - 1e-9);
    }
  }
  const depot = rows[0];
  const stops: VrpStop[] = [];
  for (let c = 1; c < n; c++) {
    const r = rows[c];
    stops.push({ place: c, demand: [r[3]], windows: [[r[4] * S, r[5] * S]], service: r[6] * S, label: String(r[0]) });
  }
  const vehicles: VrpVehicle[] = [];
  for (let v = 0; v < numV; v++) vehicles.push({ start: 0, end: 0, capacity: [cap], shift: [depot[4] * S, depot[5] * S] });
  return {
    name: title,
    input: { places: n, time, distance: dist, objective: 'distance', dimensions: 1, stops, vehicles },
    ids: rows.slice(1).map((r) => r[0]),
    scale: S,
    exact: (a, b) => euclid(a, b) * S,
    reportDist: euclid,
  };
}
