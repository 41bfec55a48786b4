/**
 * TIGER-style address-range CSV (Nominatim's preprocessed TIGER/Line format):
 * `from;to;interpolation;street;city;state;postcode;geometry` with interpolation ∈ all/odd/even and
 * geometry a WKT LINESTRING of "lon lat" pairs. Comma-separated files with the same header work too.
 */
import { EngineError } from '../core/errors.js';
import { isValidLatLon } from '../core/geo.js';

export interface TigerRange {
  from: number;
  to: number;
  /** 1 = every number, 2 = odd or even only. */
  step: number;
  street: string;
  city: string;
  state: string;
  postcode: string;
  lat: number[];
  lon: number[];
}

function splitRow(line: string, sep: string): string[] {
  if (sep === ';' || !line.includes('"')) return line.split(sep);
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === '"' && line[i + 1] === '"') { cur += '"'; i++; }
      else if (c === '"') q = false;
      else cur += c;
    } else if (c === '"') q = true;
    else if (c === sep) { out.push(cur); cur = ''; }
    else cur += c;
  }
  out.push(cur);
  return out;
}

/** Parses the CSV text. Malformed rows are skipped and counted; a missing header is an error. */
export function parseTigerCsv(text: string): { ranges: TigerRange[]; skipped: number } {
  const lines = text.split(/\r?\n/);
  const head = lines[0] ?? '';
  const sep = head.includes(';') ? ';' : ',';
  const cols = splitRow(head, sep).map((c) => c.trim().toLowerCase());
  const ix = (name: string, alt: string[] = []): number => {
    for (const n of [name, ...alt]) {
      const i = cols.indexOf(n);
      if (i >= 0) return i;
    }
    return -1;
  };
  const iFrom = ix('from', ['startnumber']);
  const iTo = ix('to', ['endnumber']);
  const iInt = ix('interpolation', ['step']);
  const iStreet = ix('street');
  const iCity = ix('city');
  const iState = ix('state');
  const iPost = ix('postcode', ['zip', 'postalcode']);
  const iGeom = ix('geometry', ['wkt', 'geom']);
  if (iFrom < 0 || iTo < 0 || iStreet < 0 || iGeom < 0) {
    throw new EngineError('InvalidInput', 'TIGER CSV: header must name from, to, street and geometry columns.', { path: 'tigerCsv' });
  }
  const ranges: TigerRange[] = [];
  let skipped = 0;
  for (let k = 1; k < lines.length; k++) {
    const line = lines[k];
    if (line.trim().length === 0) continue;
    const f = splitRow(line, sep);
    const from = Number(f[iFrom]);
    const to = Number(f[iTo]);
    const interp = iInt >= 0 ? (f[iInt] ?? '').trim().toLowerCase() : 'all';
    const step = interp === 'odd' || interp === 'even' || interp === '2' ? 2 : 1;
    const m = /LINESTRING\s*\(([^)]*)\)/i.exec(f[iGeom] ?? '');
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < 0 || !m) { skipped++; continue; }
    if (step === 2 && (from - to) % 2 !== 0) { skipped++; continue; }
    const lat: number[] = [];
    const lon: number[] = [];
    let bad = false;
    for (const pair of m[1].split(',')) {
      const [x, y] = pair.trim().split(/\s+/).map(Number);
      if (!isValidLatLon(y, x)) { bad = true; break; }
      lon.push(x);
      lat.push(y);
    }
    const street = (f[iStreet] ?? '').trim();
    if (bad || lat.length < 1 || street.length === 0) { skipped++; continue; }
    ranges.push({
      from, to, step, street,
      city: iCity >= 0 ? (f[iCity] ?? '').trim() : '',
      state: iState >= 0 ? (f[iState] ?? '').trim() : '',
      postcode: iPost >= 0 ? (f[iPost] ?? '').trim() : '',
      lat, lon,
    });
  }
  return { ranges, skipped };
}
