/**
 * VRPLIB / CVRPLIB (TSPLIB-style) files: CVRP, and VRPTW when TIME_WINDOW_SECTION is present.
 * EDGE_WEIGHT_TYPE EUC_2D = nint of the Euclidean distance per edge (TSPLIB), CEIL_2D = ceiling,
 * EXACT_2D / FLOAT_2D = unrounded (scaled by 1000 internally), EXPLICIT with FULL_MATRIX,
 * LOWER_ROW, LOWER_DIAG_ROW, UPPER_ROW, UPPER_DIAG_ROW. The fleet is free (one vehicle per
 * customer) unless the file says VEHICLES. Travel time = distance.
 */
import type { VrpStop, VrpVehicle } from '../model.js';
import { instanceError, quoteLine, sharedMatrix, type BenchInstance, type InstanceReadOptions } from './common.js';

/** One data line of a section: its 1-based line number and its fields. */
interface Row { line: number; f: string[] }
interface Section { line: number; rows: Row[] }

/**
 * Reads a VRPLIB file. A malformed file is an `InvalidInput` error naming the file
 * (`opts.file`), the line and the field; an edge weight type or format this reader lacks is
 * `Unsupported`.
 */
export function parseVrplib(text: string, fallbackName = 'vrplib', opts: InstanceReadOptions = {}): BenchInstance {
  const file = opts.file;
  const fail = (line: number | undefined, message: string, field?: string) => instanceError(file, line, `VRPLIB: ${message}`, field);
  const header = new Map<string, { value: string; line: number }>();
  const sections = new Map<string, Section>();
  let cur: Row[] | null = null;
  const lines = text.split(/\r?\n/);
  for (let li = 0; li < lines.length; li++) {
    const line = lines[li].trim();
    const ln = li + 1;
    if (line === '') continue;
    if (line === 'EOF') break;
    const sec = /^([A-Z_]+_SECTION)\b\s*:?(.*)$/.exec(line);
    if (sec) {
      if (sections.has(sec[1])) throw fail(ln, `${sec[1]} appears twice (first on line ${sections.get(sec[1])!.line})`, sec[1]);
      cur = [];
      sections.set(sec[1], { line: ln, rows: cur });
      if (sec[2].trim()) cur.push({ line: ln, f: sec[2].trim().split(/\s+/) });
      continue;
    }
    const kv = /^([A-Z_]+)\s*:\s*(.*)$/.exec(line);
    if (kv) { header.set(kv[1], { value: kv[2].trim().replace(/^"|"$/g, ''), line: ln }); cur = null; continue; }
    if (cur) { cur.push({ line: ln, f: line.split(/\s+/) }); continue; }
    throw fail(ln, `expected "KEY : value" or a *_SECTION line, got ${quoteLine(line)}`);
  }
  /** Field k of a row as a finite number. */
  const num = (r: Row, k: number, field: string): number => {
    const raw = r.f[k];
    if (raw === undefined) throw fail(r.line, `${field} is missing`, field);
    const x = Number(raw);
    if (!Number.isFinite(x)) throw fail(r.line, `${field} is not a number: "${raw}"`, field);
    return x;
  };
  /** A numeric header value (`undefined` when absent). */
  const headerNum = (key: string, check: (x: number) => boolean, what: string): number | undefined => {
    const h = header.get(key);
    if (h === undefined) return undefined;
    const x = Number(h.value);
    if (h.value === '' || !Number.isFinite(x) || !check(x)) throw fail(h.line, `${key} must be ${what}, got "${h.value}"`, key);
    return x;
  };
  const name = header.get('NAME')?.value ?? fallbackName;
  const n = headerNum('DIMENSION', (x) => Number.isInteger(x) && x >= 2, 'an integer ≥ 2');
  if (n === undefined) throw fail(undefined, 'missing DIMENSION', 'DIMENSION');
  const capacity = headerNum('CAPACITY', (x) => x >= 0, 'a non-negative number') ?? 0;
  const ewtH = header.get('EDGE_WEIGHT_TYPE');
  const ewt = (ewtH?.value ?? 'EUC_2D').toUpperCase();
  const coordSec = sections.get('NODE_COORD_SECTION');
  const coords = coordSec?.rows ?? null;
  if (coordSec && coordSec.rows.length !== n) throw fail(coordSec.line, `NODE_COORD_SECTION has ${coordSec.rows.length} rows, DIMENSION is ${n}`, 'NODE_COORD_SECTION');
  const dist = sharedMatrix(n, file); // first: TooBig for a DIMENSION that cannot be held
  const ids: number[] = [];
  const idx = new Map<number, number>();
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  if (coords) {
    coords.forEach((r, i) => {
      const id = num(r, 0, 'node id');
      if (idx.has(id)) throw fail(r.line, `node ${id} appears twice in NODE_COORD_SECTION`, 'NODE_COORD_SECTION');
      ids.push(id); idx.set(id, i); xs[i] = num(r, 1, 'x coordinate'); ys[i] = num(r, 2, 'y coordinate');
    });
  } else for (let i = 0; i < n; i++) { ids.push(i + 1); idx.set(i + 1, i); }
  const at = (r: Row, what: string): number => {
    const id = num(r, 0, `${what} node id`);
    const i = idx.get(id);
    if (i === undefined) throw fail(r.line, `${what} refers to unknown node ${r.f[0]}`, what);
    return i;
  };

  let scale = 1;
  let exact: ((a: number, b: number) => number) | undefined;
  let reportDist: (a: number, b: number) => number;
  const euclid = (a: number, b: number): number => Math.sqrt((xs[a] - xs[b]) ** 2 + (ys[a] - ys[b]) ** 2);
  if (ewt === 'EUC_2D' || ewt === 'CEIL_2D' || ewt === 'EXACT_2D' || ewt === 'FLOAT_2D' || ewt === 'ATT') {
    if (!coords) throw fail(ewtH?.line, `${ewt} needs NODE_COORD_SECTION`, 'NODE_COORD_SECTION');
    let f: (a: number, b: number) => number;
    if (ewt === 'EUC_2D') f = (a, b) => Math.round(euclid(a, b));
    else if (ewt === 'CEIL_2D') f = (a, b) => Math.ceil(euclid(a, b));
    else if (ewt === 'ATT') f = (a, b) => { const r = Math.sqrt(((xs[a] - xs[b]) ** 2 + (ys[a] - ys[b]) ** 2) / 10); const t = Math.round(r); return t < r ? t + 1 : t; };
    else { scale = 1000; exact = (a, b) => euclid(a, b) * 1000; f = (a, b) => Math.round(euclid(a, b) * 1000); }
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dist[a * n + b] = f(a, b);
    reportDist = scale === 1 ? (a, b) => dist[a * n + b] : euclid;
  } else if (ewt === 'EXPLICIT') {
    const fmtH = header.get('EDGE_WEIGHT_FORMAT');
    const fmt = (fmtH?.value ?? 'FULL_MATRIX').toUpperCase();
    const need = fmt === 'FULL_MATRIX' ? n * n
      : fmt === 'LOWER_ROW' || fmt === 'UPPER_ROW' ? (n * (n - 1)) / 2
      : fmt === 'LOWER_DIAG_ROW' || fmt === 'UPPER_DIAG_ROW' ? (n * (n + 1)) / 2
      : -1;
    if (need < 0) throw instanceError(file, fmtH?.line, `VRPLIB: EDGE_WEIGHT_FORMAT ${fmt} is not supported (FULL_MATRIX, LOWER_ROW, LOWER_DIAG_ROW, UPPER_ROW and UPPER_DIAG_ROW are)`, 'EDGE_WEIGHT_FORMAT', 'Unsupported');
    const ws = sections.get('EDGE_WEIGHT_SECTION');
    if (!ws) throw fail(ewtH?.line, 'EDGE_WEIGHT_TYPE EXPLICIT needs EDGE_WEIGHT_SECTION', 'EDGE_WEIGHT_SECTION');
    const w: number[] = [];
    for (const r of ws.rows) {
      for (const raw of r.f) {
        const x = Number(raw);
        if (!Number.isFinite(x)) throw fail(r.line, `EDGE_WEIGHT_SECTION value "${raw}" is not a number`, 'EDGE_WEIGHT_SECTION');
        w.push(x);
      }
    }
    if (w.length < need) throw fail(ws.line, `EDGE_WEIGHT_SECTION has ${w.length} values; ${fmt} with DIMENSION ${n} needs ${need}`, 'EDGE_WEIGHT_SECTION');
    let k = 0;
    const set = (a: number, b: number): void => { const x = Math.round(w[k++]); dist[a * n + b] = x; dist[b * n + a] = x; };
    if (fmt === 'FULL_MATRIX') { for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dist[a * n + b] = Math.round(w[k++]); }
    else if (fmt === 'LOWER_ROW') { for (let a = 1; a < n; a++) for (let b = 0; b < a; b++) set(a, b); }
    else if (fmt === 'LOWER_DIAG_ROW') { for (let a = 0; a < n; a++) for (let b = 0; b <= a; b++) set(a, b); }
    else if (fmt === 'UPPER_ROW') { for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) set(a, b); }
    else { for (let a = 0; a < n; a++) for (let b = a; b < n; b++) set(a, b); }
    reportDist = (a, b) => dist[a * n + b];
  } else {
    throw instanceError(file, ewtH?.line, `VRPLIB: EDGE_WEIGHT_TYPE ${ewt} is not supported (EUC_2D, CEIL_2D, EXACT_2D, FLOAT_2D, ATT and EXPLICIT are)`, 'EDGE_WEIGHT_TYPE', 'Unsupported');
  }

  const demand = new Float64Array(n);
  for (const r of sections.get('DEMAND_SECTION')?.rows ?? []) demand[at(r, 'DEMAND_SECTION')] = num(r, 1, 'demand');
  // The first depot listed is the depot (the list ends with -1; none listed: the first node).
  const dr = sections.get('DEPOT_SECTION')?.rows[0];
  const depot = dr !== undefined && num(dr, 0, 'depot node id') >= 0 ? at(dr, 'DEPOT_SECTION') : 0;
  const tw = new Map<number, [number, number]>();
  for (const r of sections.get('TIME_WINDOW_SECTION')?.rows ?? []) {
    const i = at(r, 'TIME_WINDOW_SECTION');
    const open = num(r, 1, 'time window start');
    const close = num(r, 2, 'time window end');
    if (open > close) throw fail(r.line, `the time window of node ${r.f[0]} opens (${open}) after it closes (${close})`, 'TIME_WINDOW_SECTION');
    tw.set(i, [open * scale, close * scale]);
  }
  const service = new Float64Array(n);
  const st = headerNum('SERVICE_TIME', (x) => x >= 0, 'a non-negative number');
  if (st !== undefined) service.fill(st * scale);
  for (const r of sections.get('SERVICE_TIME_SECTION')?.rows ?? []) {
    const i = at(r, 'SERVICE_TIME_SECTION');
    const x = num(r, 1, 'service time');
    if (x < 0) throw fail(r.line, `the service time of node ${r.f[0]} is negative (${x})`, 'SERVICE_TIME_SECTION');
    service[i] = x * scale;
  }

  const stops: VrpStop[] = [];
  const stopIds: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i === depot) continue;
    const w = tw.get(i);
    stops.push({ place: i, demand: [demand[i]], service: service[i], windows: w ? [w] : undefined, label: String(ids[i]) });
    stopIds.push(ids[i]);
  }
  const nVeh = headerNum('VEHICLES', (x) => Number.isInteger(x) && x >= 1, 'a positive integer') ?? stops.length;
  const dw = tw.get(depot);
  const vehicles: VrpVehicle[] = [];
  for (let v = 0; v < nVeh; v++) vehicles.push({ start: depot, end: depot, capacity: capacity > 0 ? [capacity] : [], shift: dw ? [dw[0], dw[1]] : undefined });
  const time = dist;
  if (tw.size > 0 && exact) {
    // Time rounded up so that integer-feasible schedules stay feasible exactly.
    const t2 = sharedMatrix(n, file);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) t2[a * n + b] = Math.ceil(exact(a, b) - 1e-9);
    return { name, input: { places: n, time: t2, distance: dist, objective: 'distance', dimensions: 1, stops, vehicles }, ids: stopIds, scale, exact, reportDist };
  }
  return { name, input: { places: n, time, distance: dist, objective: 'distance', dimensions: 1, stops, vehicles }, ids: stopIds, scale, exact, reportDist };
}
