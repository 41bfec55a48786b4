/**
 * Solomon / Gehring & Homberger VRPTW text files. Euclidean distances in double precision,
 * travel time = distance. Inside the solver every value is scaled by {@link SOLOMON_SCALE} and
 * made integral: distances rounded (objective), travel times rounded *up* (so an integer-feasible
 * schedule is feasible in exact arithmetic too). Fleet = the file's NUMBER of vehicles, all at
 * the depot (customer 0), shift = the depot's [READY TIME, DUE DATE].
 *
 * A malformed file is an `InvalidInput` error naming the file (`opts.file`), the line and the field.
 */
import type { VrpStop, VrpVehicle } from '../model.js';
import { instanceError, quoteLine, sharedMatrix, type BenchInstance, type InstanceReadOptions } from './common.js';

export const SOLOMON_SCALE = 10_000;

const COLUMNS = ['CUST NO.', 'XCOORD.', 'YCOORD.', 'DEMAND', 'READY TIME', 'DUE DATE', 'SERVICE TIME'] as const;

export function parseSolomon(text: string, name = 'solomon', opts: InstanceReadOptions = {}): BenchInstance {
  const file = opts.file;
  const fail = (line: number | undefined, message: string, field?: string) => instanceError(file, line, message, field);
  const lines = text.split(/\r?\n/);
  let i = 0;
  const title = lines.find((l) => l.trim() !== '')?.trim() ?? name;
  while (i < lines.length && !/^\s*NUMBER\s+CAPACITY/i.test(lines[i])) i++;
  if (i >= lines.length) throw fail(undefined, 'not a Solomon file: no "NUMBER CAPACITY" line');
  i++;
  while (i < lines.length && lines[i].trim() === '') i++;
  if (i >= lines.length) throw fail(i, 'the file ends after "NUMBER CAPACITY"; expected the number of vehicles and their capacity', 'NUMBER');
  const vf = lines[i].trim().split(/\s+/).map(Number);
  const [numV, cap] = vf;
  if (vf.length < 2 || !Number.isInteger(numV) || numV < 1) throw fail(i + 1, `NUMBER of vehicles must be a positive integer, got ${quoteLine(lines[i])}`, 'NUMBER');
  if (!(cap > 0) || !Number.isFinite(cap)) throw fail(i + 1, `CAPACITY must be a positive number, got ${quoteLine(lines[i])}`, 'CAPACITY');
  while (i < lines.length && !/CUST\s*NO/i.test(lines[i])) i++;
  if (i >= lines.length) throw fail(undefined, 'no "CUST NO." header line before the customers');
  i++;
  const rows: number[][] = [];
  const seen = new Map<number, number>();
  for (; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t === '') continue;
    const f = t.split(/\s+/).map(Number);
    const ln = i + 1;
    if (f.length < 7) throw fail(ln, `a customer line needs 7 numbers (${COLUMNS.join(', ')}), got ${f.length}: ${quoteLine(t)}`);
    const bad = f.findIndex((x, k) => k < 7 && !Number.isFinite(x));
    if (bad >= 0) throw fail(ln, `${COLUMNS[bad]} is not a number: ${quoteLine(t)}`, COLUMNS[bad]);
    const [id, , , demand, ready, due, service] = f;
    if (!Number.isInteger(id) || id < 0) throw fail(ln, `CUST NO. must be a non-negative integer, got ${id}`, 'CUST NO.');
    if (seen.has(id)) throw fail(ln, `CUST NO. ${id} repeats line ${seen.get(id)}`, 'CUST NO.');
    seen.set(id, ln);
    if (demand < 0) throw fail(ln, `DEMAND must not be negative, got ${demand}`, 'DEMAND');
    if (service < 0) throw fail(ln, `SERVICE TIME must not be negative, got ${service}`, 'SERVICE TIME');
    if (ready > due) throw fail(ln, `READY TIME ${ready} is after DUE DATE ${due}`, 'READY TIME');
    rows.push(f);
  }
  if (rows.length < 2) throw fail(undefined, `a Solomon file needs the depot and at least one customer, found ${rows.length} line(s)`);
  const n = rows.length;
  const S = SOLOMON_SCALE;
  const xs = rows.map((r) => r[1]);
  const ys = rows.map((r) => r[2]);
  const euclid = (a: number, b: number): number => Math.sqrt((xs[a] - xs[b]) ** 2 + (ys[a] - ys[b]) ** 2);
  const time = sharedMatrix(n, file);
  const dist = sharedMatrix(n, file);
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
    // The instances are defined vehicles first, then distance (Solomon 1987; Gehring & Homberger
    // 1999): the search minimises the fleet first (docs/vrp.md, "Fleet minimisation").
    input: { places: n, time, distance: dist, objective: 'distance', dimensions: 1, stops, vehicles, vehiclesFirst: true },
    ids: rows.slice(1).map((r) => r[0]),
    scale: S,
    exact: (a, b) => euclid(a, b) * S,
    reportDist: euclid,
  };
}
