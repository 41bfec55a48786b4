/**
 * `dispatchkit geocode`: the Geocode operation from the command line.
 *
 *   dispatchkit geocode --data ds.dkds spec.json            GeocodeSpecification → GeocodeResult JSON
 *   dispatchkit geocode --data ds.dkds --csv in.csv -o out.csv
 *   dispatchkit geocode --data ds.dkds --reverse 43.73,7.42
 *   dispatchkit geocode --osm extract.osm.pbf [--tiger ranges.csv] ...   (index built in memory)
 *
 * CSV mode: the header is detected (street/address, city/town, state/region, postcode/zip,
 * country, in any order; without a recognisable header the columns are taken in that order);
 * every input column is kept and lat, lon, matchcode, score, kind and the matched street, city,
 * postcode are appended. Progress goes to stderr.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { DATA_OPTION, NAMES_OPTION, printJson, QUIET_OPTION, readJson, parseCommandArgs } from '../io.js';
import { ProgressPrinter } from '../progress.js';
import { BinFile } from '../../core/binfile.js';
import { EngineError, isEngineError } from '../../core/errors.js';
import { OsmPbfFile } from '../../osm/pbf.js';
import { GeocodeResultSchema, type Address } from '../../records/index.js';
import { WorkerPool } from '../../workers/pool.js';
import { GeocodeIndex } from '../../geocode/geocode-index.js';
import { buildGeocodeIndex } from '../../geocode/build.js';
import { Geocoder } from '../../geocode/search.js';
import { geocoderContext } from '../../ops/context.js';
import { Geocode } from '../../ops/table.js';
import { InlineExecutor } from '../../workers/inline.js';

const PREFIX = 'geo';

function openIndex(values: { data?: string; osm?: string; tiger?: string }, progress: ProgressPrinter): { index: GeocodeIndex; buffer: ArrayBufferLike | null } {
  if (values.data) {
    let f: BinFile;
    try {
      f = BinFile.readFile(values.data, true);
    } catch (e) {
      if (isEngineError(e)) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new EngineError('InvalidInput', code === 'ENOENT' ? `Dataset file not found: ${values.data}` : `Cannot read the dataset "${values.data}" (${code ?? String(e)}).`, { path: 'data' });
    }
    if (!GeocodeIndex.has(f, PREFIX)) throw new EngineError('Unsupported', `${values.data} has no geocoder index (rebuild it with \`dispatchkit build\`).`);
    try {
      return { index: GeocodeIndex.fromSections(f, PREFIX), buffer: f.buffer };
    } catch (e) {
      if (isEngineError(e) && e.code === 'DatasetFormat') throw e;
      throw f.error(`the geocoder (sections "${PREFIX}.…") is damaged: ${e instanceof Error ? e.message : String(e)}`, { section: PREFIX }, e);
    }
  }
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(values.osm!);
  } catch {
    throw new EngineError('InvalidInput', `Cannot read ${values.osm}.`, { path: 'osm' });
  }
  let tigerCsv: string | undefined;
  try {
    tigerCsv = values.tiger ? readFileSync(values.tiger, 'utf8') : undefined;
  } catch {
    throw new EngineError('InvalidInput', `Cannot read ${values.tiger}.`, { path: 'tiger' });
  }
  const index = buildGeocodeIndex(new OsmPbfFile(bytes, { source: values.osm }), { tigerCsv, onProgress: progress.onProgress });
  progress.end();
  return { index, buffer: null };
}

// ----------------------------------------------------------------------------- CSV

/** RFC 4180-ish CSV: quoted fields, doubled quotes, CRLF; separator ',' or ';' (whichever the header uses more). */
export function parseCsv(text: string): string[][] {
  const firstLine = text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length);
  const sep = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : (firstLine.match(/\t/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? '\t' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') { cur += '"'; i++; }
      else if (c === '"') q = false;
      else cur += c;
    } else if (c === '"' && cur.length === 0) q = true;
    else if (c === sep) { row.push(cur); cur = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cur); cur = '';
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
    } else cur += c;
  }
  if (cur.length > 0 || row.length > 0) { row.push(cur); if (row.length > 1 || row[0] !== '') rows.push(row); }
  return rows;
}

function csvField(s: string): string {
  return /[",;\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const HEADER_NAMES: Record<keyof Address, RegExp> = {
  Street: /^(street|address|address ?1|addr|street ?address|line ?1|strasse|rue|via|calle|adresse|indirizzo|direccion)$/i,
  City: /^(city|town|locality|place|municipality|ort|ville|citta|ciudad|stadt)$/i,
  State: /^(state|region|province|county|st|bundesland)$/i,
  PostalCode: /^(postal ?code|postcode|post ?code|zip|zip ?code|plz|cp|cap|zipcode)$/i,
  Country: /^(country|country ?code|land|pays|paese|pais)$/i,
};

/** Column index per address field from a header row, or null when the row is not a header. */
export function detectHeader(row: string[]): Partial<Record<keyof Address, number>> | null {
  const map: Partial<Record<keyof Address, number>> = {};
  row.forEach((h, i) => {
    const name = h.trim().replace(/[_-]+/g, ' ');
    for (const [field, re] of Object.entries(HEADER_NAMES) as [keyof Address, RegExp][]) {
      if (map[field] === undefined && re.test(name)) { map[field] = i; break; }
    }
  });
  return map.Street !== undefined || map.City !== undefined || map.PostalCode !== undefined ? map : null;
}

async function runCsv(geocoder: Geocoder, input: string, output: string | undefined, limit: number, progress: ProgressPrinter): Promise<number> {
  let text: string;
  try {
    text = readFileSync(input === '-' ? 0 : input, 'utf8');
  } catch {
    throw new EngineError('InvalidInput', `Cannot read ${input}.`, { path: 'csv' });
  }
  const rows = parseCsv(text.replace(/^\uFEFF/, ''));
  if (rows.length === 0) throw new EngineError('InvalidInput', `${input}: no rows.`, { path: 'csv' });
  const header = detectHeader(rows[0]);
  const cols: Partial<Record<keyof Address, number>> = header ?? { Street: 0, City: 1, State: 2, PostalCode: 3, Country: 4 };
  const data = header ? rows.slice(1) : rows;
  const width = Math.max(...rows.map((r) => r.length));
  const outHeader = [...(header ? rows[0] : Array.from({ length: width }, (_, i) => `col${i + 1}`)), 'lat', 'lon', 'matchcode', 'score', 'kind', 'matched_street', 'matched_city', 'matched_postcode'];
  const lines: string[] = [outHeader.map(csvField).join(',')];
  let found = 0;
  const t0 = performance.now();
  data.forEach((r, i) => {
    const get = (f: keyof Address) => (cols[f] !== undefined ? (r[cols[f]!] ?? '').slice(0, 1000) : '');
    const c = geocoder.search({ Street: get('Street'), City: get('City'), State: get('State'), PostalCode: get('PostalCode'), Country: get('Country') }, { limit })[0];
    const cells = [...r, ...Array(Math.max(0, width - r.length)).fill('')];
    if (c) {
      found++;
      cells.push(c.lat.toFixed(7), c.lon.toFixed(7), c.matchCode, c.score.toFixed(3), c.kind, c.address.Street ?? '', c.address.City ?? '', c.address.PostalCode ?? '');
    } else cells.push('', '', 'None', '0', '', '', '', '');
    lines.push(cells.map(csvField).join(','));
    if ((i & 63) === 0 || i === data.length - 1) progress.onProgress({ phase: 'geocode', done: i + 1, total: data.length });
  });
  progress.end();
  const out = lines.join('\n') + '\n';
  if (output) writeFileSync(output, out);
  else process.stdout.write(out);
  process.stderr.write(`${found}/${data.length} rows geocoded in ${((performance.now() - t0) / 1000).toFixed(2)} s\n`);
  return EXIT.ok;
}

export const geocodeCommand: Command = {
  name: 'geocode',
  summary: 'Geocode: addresses → coordinates with MatchCode (GeocodeSpecification JSON, or a CSV file)',
  usage: 'dispatchkit geocode (--data <dataset.dkds> | --osm <extract.osm.pbf> [--tiger <ranges.csv>]) '
    + '(<spec.json|-> [--names] [--threads N] | --csv <in.csv|-> [-o <out.csv>] | --reverse <lat,lon>) [--limit N] [--quiet]',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      ...DATA_OPTION,
      osm: { type: 'string' },
      tiger: { type: 'string' },
      csv: { type: 'string' },
      out: { type: 'string', short: 'o' },
      reverse: { type: 'string' },
      ...NAMES_OPTION,
      limit: { type: 'string' },
      threads: { type: 'string' },
      ...QUIET_OPTION,
    });
    const modes = (values.csv !== undefined ? 1 : 0) + (values.reverse !== undefined ? 1 : 0) + (positionals.length === 1 ? 1 : 0);
    if ((!values.data && !values.osm) || (values.data && values.osm) || modes !== 1 || positionals.length > 1) {
      process.stderr.write(`Usage: ${this.usage}\n`);
      return EXIT.usage;
    }
    const limit = values.limit !== undefined ? Number(values.limit) : 5;
    if (!Number.isInteger(limit) || limit < 1 || limit > 50) throw new EngineError('InvalidInput', '--limit must be a whole number from 1 to 50.', { path: 'limit' });
    const progress = new ProgressPrinter(process.stderr, values.quiet);
    const { index, buffer } = openIndex(values, progress);
    const geocoder = new Geocoder(index);

    if (values.reverse !== undefined) {
      const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(values.reverse);
      if (!m) throw new EngineError('InvalidInput', '--reverse takes "lat,lon" in degrees.', { path: 'reverse' });
      const lat = Number(m[1]), lon = Number(m[2]);
      if (Math.abs(lat) > 90 || Math.abs(lon) > 180) throw new EngineError('InvalidInput', `--reverse: (${lat}, ${lon}) is not a valid latitude, longitude.`, { path: 'reverse' });
      const r = geocoder.reverse(lat, lon);
      printJson(r ?? { found: false });
      return r ? EXIT.ok : EXIT.failed;
    }
    if (values.csv !== undefined) return runCsv(geocoder, values.csv, values.out, limit, progress);

    const spec = readJson(positionals[0]);
    const threads = values.threads !== undefined ? Number(values.threads) : 1;
    if (!Number.isInteger(threads) || threads < 1) throw new EngineError('InvalidInput', '--threads must be a whole number ≥ 1.', { path: 'threads' });
    // Batches of 512 addresses or more run on worker threads when asked for and the index comes from a dataset file.
    const pool = threads > 1 && buffer instanceof SharedArrayBuffer ? new WorkerPool({ threads, shared: { dataset: buffer } }) : null;
    let result;
    try {
      const ctx = geocoderContext(geocoder, pool ?? new InlineExecutor(), { geocodePrefix: PREFIX });
      result = await Geocode.run(ctx, spec, { maxCandidates: limit, batchThreshold: 511, onProgress: progress.onProgress });
    } finally {
      await pool?.close();
    }
    progress.end();
    printJson(GeocodeResultSchema.encode(result, { enums: values.names ? 'name' : 'int' }));
    return result.Status === 'Failed' ? EXIT.failed : EXIT.ok;
  },
};
