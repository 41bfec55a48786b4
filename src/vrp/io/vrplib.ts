/**
 * VRPLIB / CVRPLIB (TSPLIB-style) files: CVRP, and VRPTW when TIME_WINDOW_SECTION is present.
 * EDGE_WEIGHT_TYPE EUC_2D = nint of the Euclidean distance per edge (TSPLIB), CEIL_2D = ceiling,
 * EXACT_2D / FLOAT_2D = unrounded (scaled by 1000 internally), EXPLICIT with FULL_MATRIX,
 * LOWER_ROW, LOWER_DIAG_ROW, UPPER_ROW, UPPER_DIAG_ROW. The fleet is free (one vehicle per
 * customer) unless the file says VEHICLES. Travel time = distance.
 */
import { invalidInput } from '../../core/errors.js';
import type { VrpStop, VrpVehicle } from '../model.js';
import type { BenchInstance } from './common.js';

export function parseVrplib(text: string, fallbackName = 'vrplib'): BenchInstance {
  const header = new Map<string, string>();
  const sections = new Map<string, string[][]>();
  let cur: string[][] | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line === 'EOF') continue;
    const kv = /^([A-Z_]+)\s*:\s*(.*)$/.exec(line);
    if (kv) { header.set(kv[1], kv[2].trim().replace(/^"|"$/g, '')); cur = null; continue; }
    const sec = /^([A-Z_]+_SECTION)\b\s*:?(.*)$/.exec(line);
    if (sec) { cur = []; sections.set(sec[1], cur); if (sec[2].trim()) cur.push(sec[2].trim().split(/\s+/)); continue; }
    if (cur) cur.push(line.split(/\s+/));
  }
  const name = header.get('NAME') ?? fallbackName;
  const n = Number(header.get('DIMENSION'));
  if (!Number.isInteger(n) || n < 2) throw invalidInput('instance', 'VRPLIB: missing or bad DIMENSION');
  const capacity = Number(header.get('CAPACITY') ?? '0');
  const ewt = (header.get('EDGE_WEIGHT_TYPE') ?? 'EUC_2D').toUpperCase();
  const coords = sections.get('NODE_COORD_SECTION');
  const ids: number[] = [];
  const idx = new Map<number, number>();
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  if (coords) {
    if (coords.length !== n) throw invalidInput('instance', `VRPLIB: NODE_COORD_SECTION has ${coords.length} rows, DIMENSION is ${n}`);
    coords.forEach((r, i) => { const id = Number(r[0]); ids.push(id); idx.set(id, i); xs[i] = Number(r[1]); ys[i] = Number(r[2]); });
  } else for (let i = 0; i < n; i++) { ids.push(i + 1); idx.set(i + 1, i); }
  const at = (id: string, what: string): number => {
    const i = idx.get(Number(id));
    if (i === undefined) throw invalidInput('instance', `VRPLIB: ${what} refers to unknown node ${id}`);
    return i;
  };

  let scale = 1;
  let exact: ((a: number, b: number) => number) | undefined;
  let reportDist: (a: number, b: number) => number;
  const dist = new Int32Array(new SharedArrayBuffer(n * n * 4));
  const euclid = (a: number, b: number): number => Math.sqrt((xs[a] - xs[b]) ** 2 + (ys[a] - ys[b]) ** 2);
  if (ewt === 'EUC_2D' || ewt === 'CEIL_2D' || ewt === 'EXACT_2D' || ewt === 'FLOAT_2D' || ewt === 'ATT') {
    if (!coords) throw invalidInput('instance', `VRPLIB: ${ewt} needs NODE_COORD_SECTION`);
    let f: (a: number, b: number) => number;
    if (ewt === 'EUC_2D') f = (a, b) => Math.round(euclid(a, b));
    else if (ewt === 'CEIL_2D') f = (a, b) => Math.ceil(euclid(a, b));
    else if (ewt === 'ATT') f = (a, b) => { const r = Math.sqrt(((xs[a] - xs[b]) ** 2 + (ys[a] - ys[b]) ** 2) / 10); const t = Math.round(r); return t < r ? t + 1 : t; };
    else { scale = 1000; exact = (a, b) => euclid(a, b) * 1000; f = (a, b) => Math.round(euclid(a, b) * 1000); }
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dist[a * n + b] = f(a, b);
    reportDist = scale === 1 ? (a, b) => dist[a * n + b] : euclid;
  } else if (ewt === 'EXPLICIT') {
    const fmt = (header.get('EDGE_WEIGHT_FORMAT') ?? 'FULL_MATRIX').toUpperCase();
    const w = (sections.get('EDGE_WEIGHT_SECTION') ?? []).flat().map(Number);
    let k = 0;
    const set = (a: number, b: number): void => { const x = Math.round(w[k++]); dist[a * n + b] = x; dist[b * n + a] = x; };
    if (fmt === 'FULL_MATRIX') { for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dist[a * n + b] = Math.round(w[k++]); }
    else if (fmt === 'LOWER_ROW') { for (let a = 1; a < n; a++) for (let b = 0; b < a; b++) set(a, b); }
    else if (fmt === 'LOWER_DIAG_ROW') { for (let a = 0; a < n; a++) for (let b = 0; b <= a; b++) set(a, b); }
    else if (fmt === 'UPPER_ROW') { for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) set(a, b); }
    else if (fmt === 'UPPER_DIAG_ROW') { for (let a = 0; a < n; a++) for (let b = a; b < n; b++) set(a, b); }
    else throw invalidInput('instance', `VRPLIB: EDGE_WEIGHT_FORMAT ${fmt} is not supported`);
    if (w.length < k || w.slice(0, k).some((x) => Number.isNaN(x))) throw invalidInput('instance', 'VRPLIB: EDGE_WEIGHT_SECTION too short');
    reportDist = (a, b) => dist[a * n + b];
  } else throw invalidInput('instance', `VRPLIB: EDGE_WEIGHT_TYPE ${ewt} is not supported`);

  const demand = new Float64Array(n);
  for (const r of sections.get('DEMAND_SECTION') ?? []) demand[at(r[0], 'DEMAND_SECTION')] = Number(r[1]);
  const depots = (sections.get('DEPOT_SECTION') ?? []).map((r) => Number(r[0])).filter((x) => x >= 0);
  const depot = depots.length > 0 ? at(String(depots[0]), 'DEPOT_SECTION') : 0;
  const tw = new Map<number, [number, number]>();
  for (const r of sections.get('TIME_WINDOW_SECTION') ?? []) tw.set(at(r[0], 'TIME_WINDOW_SECTION'), [Number(r[1]) * scale, Number(r[2]) * scale]);
  const service = new Float64Array(n);
  const st = header.get('SERVICE_TIME');
  if (st !== undefined) service.fill(Number(st) * scale);
  for (const r of sections.get('SERVICE_TIME_SECTION') ?? []) service[at(r[0], 'SERVICE_TIME_SECTION')] = Number(r[1]) * scale;

  const stops: VrpStop[] = [];
  const stopIds: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i === depot) continue;
    const w = tw.get(i);
    stops.push({ place: i, demand: [demand[i]], service: service[i], windows: w ? [w] : undefined, label: String(ids[i]) });
    stopIds.push(ids[i]);
  }
  const nVeh = header.has('VEHICLES') ? Number(header.get('VEHICLES')) : stops.length;
  const dw = tw.get(depot);
  const vehicles: VrpVehicle[] = [];
  for (let v = 0; v < nVeh; v++) vehicles.push({ start: depot, end: depot, capacity: capacity > 0 ? [capacity] : [], shift: dw ? [dw[0], dw[1]] : undefined });
  const time = dist;
  if (tw.size > 0 && exact) {
    // Time rounded up so that integer-feasible schedules stay feasible exactly.
    const t2 = new Int32Array(new SharedArrayBuffer(n * n * 4));
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) t2[a * n + b] = Math.ceil(exact(a, b) - 1e-9);
    return { name, input: { places: n, time: t2, distance: dist, objective: 'distance', dimensions: 1, stops, vehicles }, ids: stopIds, scale, exact, reportDist };
  }
  return { name, input: { places: n, time, distance: dist, objective: 'distance', dimensions: 1, stops, vehicles }, ids: stopIds, scale, exact, reportDist };
}
