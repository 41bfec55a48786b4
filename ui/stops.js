// Stops from a file: CSV (a header row naming the columns), JSON (a list of Locations, a whole
// DispatchSpecification, or GeoJSON points). Every stop becomes a contract Location; rows that
// cannot be read are reported by line and skipped, never guessed.
import { CSV_COLUMNS, HEADER_FOLD } from '../columns.js';

/** The separator of a CSV text: the most frequent of `,` `;` tab on its first line (outside quotes). */
function sniffSeparator(text) {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && c in counts) counts[c]++;
  }
  return Object.keys(counts).reduce((best, s) => (counts[s] > counts[best] ? s : best), ',');
}

/** CSV records (RFC 4180: quotes, doubled quotes, line breaks inside quotes), each with the line it starts on. */
export function parseCsv(text) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const sep = sniffSeparator(text);
  const rows = [];
  let cells = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  const endRow = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0].trim() !== '') rows.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
    } else if (c === '"' && cell.trim() === '') { cell = ''; quoted = true; }
    else if (c === sep) { cells.push(cell); cell = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
      start = ++line;
    } else cell += c;
  }
  if (quoted) throw new Error(`line ${start}: a quoted field is not closed`);
  if (cell !== '' || cells.length > 0) endRow();
  return rows;
}

/** A header cell folded as the one rule says (src/records/columns.ts HEADER_FOLD: NFD, lower case, then its replacements). */
export function headerKey(h) {
  let s = String(h).normalize(HEADER_FOLD.form).toLowerCase();
  for (const [pattern, flags, to] of HEADER_FOLD.replace) s = s.replace(new RegExp(pattern, flags), to);
  return s;
}

/** Folded column name → the field it fills: the table the CLI reads too (src/records/columns.ts, served as /ui/columns.js). */
const FIELD_OF = new Map(Object.entries(CSV_COLUMNS).flatMap(([field, names]) => names.map((n) => [n, field])));

/** The field each column of a header row fills (undefined: none); a field named twice is read from its first column, as the CLI does. */
export function columnsOfHeader(cells) {
  const seen = new Set();
  return cells.map((c) => {
    const f = FIELD_OF.get(headerKey(c));
    if (f === undefined || seen.has(f)) return undefined;
    seen.add(f);
    return f;
  });
}
const NUMBERS = new Set(['Latitude', 'Longitude', 'Weight', 'Volume', 'Skids', 'Priority', 'Wait']);
const ADDRESS = new Set(['Street', 'City', 'State', 'PostalCode', 'Country']);

/** A number as written in a CSV cell ("12.5", "12,5"), or NaN. */
function number(s) {
  const t = s.trim();
  return t === '' ? NaN : Number(/^-?\d+,\d+$/.test(t) ? t.replace(',', '.') : t);
}

/** Stops from CSV text: `{ locations, errors, lines }` (errors name the line; `lines[i]` is where `locations[i]` was read). */
export function stopsFromCsv(text) {
  const rows = parseCsv(text);
  if (rows.length === 0) return { locations: [], errors: ['The file has no rows.'] };
  let fields = columnsOfHeader(rows[0].cells);
  let body = rows.slice(1);
  if (!fields.includes('Latitude') && !fields.includes('Street') && !fields.includes('City')) {
    // no header: Name, Latitude, Longitude[, Weight] when the first row reads that way
    const [, la, lo] = rows[0].cells.map(number);
    if (!Number.isFinite(la) || !Number.isFinite(lo)) {
      return { locations: [], errors: ['The first row names no Latitude/Longitude or address columns (see the hint for the column names).'] };
    }
    fields = ['Name', 'Latitude', 'Longitude', 'Weight'];
    body = rows;
  }
  const locations = [];
  const errors = [];
  /** The line each location was read from (messages about Locations[i] name it). */
  const lines = [];
  for (const { line, cells } of body) {
    const loc = {};
    const address = {};
    let bad = null;
    cells.forEach((raw, i) => {
      const f = fields[i];
      const v = raw.trim();
      if (!f || v === '' || bad) return;
      if (NUMBERS.has(f)) {
        const n = number(v);
        if (!Number.isFinite(n)) { bad = `${f} "${v}" is not a number`; return; }
        if (f === 'Latitude' || f === 'Longitude') (loc.LatLong ??= {})[f] = n;
        else loc[f] = n;
      } else if (ADDRESS.has(f)) address[f] = v;
      else loc[f] = v;
    });
    if (!bad && loc.LatLong && (loc.LatLong.Latitude === undefined || loc.LatLong.Longitude === undefined)) bad = 'Latitude and Longitude go together';
    if (!bad && loc.LatLong && (Math.abs(loc.LatLong.Latitude) > 90 || Math.abs(loc.LatLong.Longitude) > 180)) bad = 'the coordinates are off the globe';
    if (Object.keys(address).length > 0) loc.Address = address;
    if (!bad && !loc.LatLong && !loc.Address) bad = 'neither coordinates nor an address';
    if (bad) errors.push(`line ${line}: ${bad}`);
    else {
      locations.push(loc);
      lines.push(line);
    }
  }
  return { locations, errors, lines };
}

/** Stops (and, for a DispatchSpecification, its vehicles and options) from JSON text. */
export function stopsFromJson(text) {
  const data = JSON.parse(text);
  const pick = (o, k) => (o && typeof o === 'object' ? Object.entries(o).find(([x]) => x.toLowerCase() === k.toLowerCase())?.[1] : undefined);
  if (Array.isArray(data)) return { locations: data.filter((l) => l && typeof l === 'object'), errors: [] };
  if (pick(data, 'type') === 'FeatureCollection') {
    const locations = [];
    const errors = [];
    (pick(data, 'features') ?? []).forEach((f, i) => {
      const c = f?.geometry?.type === 'Point' ? f.geometry.coordinates : null;
      if (!c) { errors.push(`features[${i}]: not a Point`); return; }
      const p = f.properties ?? {};
      locations.push({ ...p, Name: p.Name ?? p.name ?? undefined, LatLong: { Latitude: c[1], Longitude: c[0] } });
    });
    return { locations, errors };
  }
  const locations = pick(data, 'Locations');
  if (!Array.isArray(locations)) throw new Error('The JSON is neither a list of Locations, a DispatchSpecification nor a GeoJSON FeatureCollection.');
  const vehicles = pick(data, 'Vehicles');
  const options = {};
  for (const k of ['DispatchMode', 'MinimumOptimization', 'DistanceUnit', 'RouteOptimize', 'CurrentTime']) {
    const v = pick(data, k);
    if (v !== undefined && v !== null) options[k] = v;
  }
  // the whole specification too: the page reads it through the API's rules (ui/check.js)
  return { locations, vehicles: Array.isArray(vehicles) ? vehicles : undefined, options, errors: [], specification: data };
}

/** Stops from a file's text, by its name (and content when the name says little). */
export function stopsFromFile(name, text) {
  const lower = name.toLowerCase();
  const looksJson = /^\s*[[{]/.test(text);
  if (lower.endsWith('.json') || lower.endsWith('.geojson') || (!lower.endsWith('.csv') && looksJson)) return stopsFromJson(text);
  return stopsFromCsv(text);
}

/** A "HH:MM" time on a date ("2026-12-01") as a record dateTime; anything else unchanged. */
export function onDate(value, date) {
  if (typeof value !== 'string') return value;
  const m = /^(\d{1,2}):(\d\d)(?::(\d\d))?$/.exec(value.trim());
  return m ? `${date}T${m[1].padStart(2, '0')}:${m[2]}:${m[3] ?? '00'}` : value;
}
