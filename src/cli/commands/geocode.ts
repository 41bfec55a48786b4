/**
 * `dispatchkit geocode`: the Geocode operation from the command line.
 *
 *   dispatchkit geocode --data ds.dkds spec.json            GeocodeSpecification → GeocodeResult JSON
 *   dispatchkit geocode --data ds.dkds --csv in.csv -o out.csv
 *   dispatchkit geocode --data ds.dkds --reverse 43.73,7.42
 *   dispatchkit geocode --osm extract.osm.pbf [--tiger ranges.csv] ...   (index built in memory)
 *
 * CSV mode (streaming, bounded memory; see docs/geocoding.md "CSV"): csv-parse reads the file
 * (quoting, BOM, `,` `;` or tab sniffed from the first line); the header is recognised by column
 * names in several languages (street/address/adresse/dirección/indirizzo/endereço/straße,
 * city/ville/ciudad/città/cidade/ort/stadt, postcode/zip/cp/plz/cap/código postal,
 * country/pays/país/paese/land, state/region) or given with `--columns street=2,city=3` (1-based
 * numbers, or header names); without either the columns are taken as street, city, state,
 * postcode, country. A lone address column is a free-text line (the geocoder reads "22 Avenue
 * Princesse Grace, 98000 Monaco" in Street). Every input column is kept and lat, lon, matchcode,
 * score, kind, the matched street, city, postcode and `error` are appended (`--jsonl`: one JSON
 * object per row instead). Rows are written in input order as their chunk completes; a row that
 * cannot be parsed is written with matchcode Error and its line, named on stderr, and the exit
 * code is 2. Progress goes to stderr.
 */
import { createReadStream, createWriteStream, readFileSync, statSync, type ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { DATA_OPTION, NAMES_OPTION, checkOutputPath, parseThreads, printJson, QUIET_OPTION, readJson, parseCommandArgs } from '../io.js';
import { csvField, csvRecords, detectHeader, parseColumns, resolveColumnNames, type ColumnMap } from '../csv.js';
import { ProgressPrinter } from '../progress.js';
import { BinFile } from '../../core/binfile.js';
import { EngineError, isEngineError } from '../../core/errors.js';
import { isValidLatLon } from '../../core/geo.js';
import { OsmPbfFile } from '../../osm/pbf.js';
import { GeocodeResultSchema, LocationSchema, type Address } from '../../records/index.js';
import { WorkerPool } from '../../workers/pool.js';
import { GeocodeIndex } from '../../geocode/geocode-index.js';
import { buildGeocodeIndex } from '../../geocode/build.js';
import { Geocoder, type AddressQuery, type GeocodeCandidate } from '../../geocode/search.js';
import { geocoderContext } from '../../ops/context.js';
import { candidateToLocation } from '../../ops/geocode.js';
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

/** Rows per geocoding chunk, and chunks in flight at most (bounded memory whatever the input size). */
const CSV_CHUNK = 256;
const CSV_IN_FLIGHT_PER_THREAD = 2;

interface CsvOptions {
  input: string;
  output?: string;
  jsonl: boolean;
  names: boolean;
  columns?: string;
  header?: boolean;
  limit: number;
  threads: number;
}

type Row = { line: number; cells: string[]; query?: AddressQuery; error?: string };

const OUT_COLUMNS = ['lat', 'lon', 'matchcode', 'score', 'kind', 'matched_street', 'matched_city', 'matched_postcode', 'error'];

/** The `--csv` input must be a readable file (or `-`); checked before any work starts. */
function checkCsvInput(input: string): void {
  if (input === '-') return;
  let st;
  try {
    st = statSync(input);
  } catch (e) {
    throw new EngineError('InvalidInput', `--csv ${input}: cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)}).`, { path: 'csv' });
  }
  if (st.isDirectory()) throw new EngineError('InvalidInput', `--csv ${input}: is a directory.`, { path: 'csv' });
}

function openInput(input: string): Readable {
  checkCsvInput(input);
  return input === '-' ? process.stdin : createReadStream(input);
}

/** Writes to a stream, waiting for it to drain when its buffer is full. */
async function writeOut(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await new Promise<void>((res, rej) => {
    const onErr = (e: Error) => rej(e);
    out.once('error', onErr);
    out.once('drain', () => { out.off('error', onErr); res(); });
  });
}

/**
 * CSV (or JSON lines) geocoding, streaming: records are read, geocoded in chunks of
 * {@link CSV_CHUNK} rows (on the worker pool when there is one) with at most a few chunks in
 * flight, and written in input order as they complete. Exit code 0, or 2 when some rows could not
 * be read (each is written as a row with matchcode `Error` and the reason in `error`, and named
 * with its line on stderr; the other rows are geocoded as usual).
 */
async function runCsv(geocoder: Geocoder, pool: WorkerPool | null, o: CsvOptions, progress: ProgressPrinter): Promise<number> {
  const source = openInput(o.input);
  const size = o.input === '-' ? 0 : statSync(o.input).size;
  const out: NodeJS.WritableStream = o.output ? createWriteStream(o.output) : process.stdout;
  // A write error is kept and thrown at the next write (no long-lived promise raced per chunk: its reactions would pile up).
  let outFailure: EngineError | null = null;
  out.on('error', (e: NodeJS.ErrnoException) => {
    outFailure ??= new EngineError('InvalidInput', `Cannot write ${o.output ?? 'the output'}: ${e.code ?? e.message}.`, { path: 'out' });
  });
  const write = async (text: string): Promise<void> => {
    if (outFailure) throw outFailure;
    try {
      await writeOut(out, text);
    } catch {
      throw outFailure ?? new EngineError('InvalidInput', `Cannot write ${o.output ?? 'the output'}.`, { path: 'out' });
    }
    if (outFailure) throw outFailure;
  };
  const cols = o.columns ? parseColumns(o.columns) : null;
  const search = (queries: AddressQuery[]): Promise<GeocodeCandidate[][]> => pool
    ? pool.run('geocode-search', { datasetKey: 'dataset', prefix: PREFIX, queries, limit: o.limit })
    : Promise.resolve(queries.map((q) => geocoder.search(q, { limit: o.limit })));
  const inFlightMax = Math.max(2, CSV_IN_FLIGHT_PER_THREAD * (pool ? o.threads : 1));

  let map: ColumnMap | null = null;
  let width = 0;
  let rows = 0, found = 0;
  const bad: string[] = []; // the first 20 messages (stderr); badCount counts them all
  let badCount = 0;
  const t0 = performance.now();
  const queue: { rows: Row[]; result: Promise<GeocodeCandidate[][]> }[] = [];
  let chunk: Row[] = [];

  const fieldsOf = (c: GeocodeCandidate | undefined) => c
    ? [c.lat.toFixed(7), c.lon.toFixed(7), c.matchCode, c.score.toFixed(3), c.kind, c.address.Street ?? '', c.address.City ?? '', c.address.PostalCode ?? '', '']
    : ['', '', 'None', '0', '', '', '', '', ''];
  const encodeLocation = (c: GeocodeCandidate) => LocationSchema.encode(candidateToLocation(c, true), { enums: o.names ? 'name' : 'int' });

  const flushHead = async (): Promise<void> => {
    const head = queue.shift()!;
    const candidates = await head.result;
    let k = 0;
    let text = '';
    for (const r of head.rows) {
      rows++;
      if (r.error !== undefined) {
        if (badCount++ < 20) bad.push(`line ${r.line}: ${r.error}`);
        if (o.jsonl) text += JSON.stringify({ Line: r.line, Error: r.error }) + '\n';
        else text += [...padded(r.cells.slice(0, width)), '', '', 'Error', '0', '', '', '', '', `line ${r.line}: ${r.error}`].map(csvField).join(',') + '\n';
        continue;
      }
      const cands = candidates[k++];
      if (cands.length > 0) found++;
      if (o.jsonl) text += JSON.stringify({ Line: r.line, Address: r.query, Locations: cands.map(encodeLocation) }) + '\n';
      else text += [...padded(r.cells), ...fieldsOf(cands[0])].map(csvField).join(',') + '\n';
    }
    await write(text);
    const done = size > 0 ? Math.min(size - 1, (source as ReadStream).bytesRead ?? 0) : rows;
    progress.onProgress({ phase: 'geocode', done, total: size, info: { rows } });
  };
  const padded = (cells: string[]) => (cells.length >= width ? cells : [...cells, ...Array<string>(width - cells.length).fill('')]);
  const submit = async (): Promise<void> => {
    if (chunk.length === 0) return;
    const rowsOfChunk = chunk;
    chunk = [];
    const queries = rowsOfChunk.filter((r) => r.query).map((r) => r.query!);
    const result = search(queries);
    result.catch(() => undefined);
    queue.push({ rows: rowsOfChunk, result });
    while (queue.length >= inFlightMax) await flushHead();
  };

  let first = true;
  for await (const rec of csvRecords(source)) {
    if (first) {
      first = false;
      if (rec.error !== undefined) {
        throw new EngineError('InvalidInput', `${o.input} line ${rec.line}: the first row cannot be read (${rec.error}).`, { path: 'csv' });
      }
      const detected = detectHeader(rec.cells);
      const isHeader = o.header ?? (detected !== null || (cols !== null && Object.keys(cols.byName).length > 0));
      width = rec.cells.length;
      map = cols
        ? { ...cols.byNumber, ...(Object.keys(cols.byName).length > 0 ? resolveColumnNames(cols.byName, rec.cells) : {}) }
        : (isHeader ? detected : null) ?? { Street: 0, City: 1, State: 2, PostalCode: 3, Country: 4 };
      if (!map || Object.keys(map).length === 0 || (isHeader && !cols && !detected)) {
        throw new EngineError('InvalidInput', `${o.input}: no address column recognised in the header (${rec.cells.join(', ')}); name them with --columns street=N,city=N,…`, { path: 'columns' });
      }
      for (const [f, i] of Object.entries(map)) {
        if (i! >= width) throw new EngineError('InvalidInput', `--columns: ${f} is column ${i! + 1} but the first row has ${width} columns.`, { path: 'columns' });
      }
      const outHeader = [...(isHeader ? rec.cells : Array.from({ length: width }, (_, i) => `col${i + 1}`)), ...OUT_COLUMNS];
      if (!o.jsonl) await write(outHeader.map(csvField).join(',') + '\n');
      if (isHeader) continue;
    }
    if (rec.error !== undefined) {
      chunk.push({ line: rec.line, cells: rec.cells ?? [], error: rec.error });
    } else {
      const q: AddressQuery = {};
      for (const [f, i] of Object.entries(map!) as [keyof Address, number][]) {
        const v = (rec.cells[i] ?? '').trim().slice(0, 1000);
        if (v) q[f] = v;
      }
      chunk.push({ line: rec.line, cells: rec.cells, query: q });
    }
    if (chunk.length >= CSV_CHUNK) await submit();
  }
  if (first) throw new EngineError('InvalidInput', `${o.input}: no rows.`, { path: 'csv' });
  await submit();
  while (queue.length > 0) await flushHead();
  if (o.output) {
    await new Promise<void>((res) => {
      out.once('error', () => res());
      out.end(res);
    });
    if (outFailure) throw outFailure;
  }
  progress.onProgress({ phase: 'geocode', done: Math.max(1, size), total: Math.max(1, size), info: { rows } });
  progress.end();
  process.stderr.write(`${found}/${rows - badCount} rows geocoded in ${((performance.now() - t0) / 1000).toFixed(2)} s\n`);
  if (badCount > 0) {
    for (const m of bad) process.stderr.write(`error [InvalidInput]: ${o.input} ${m}\n`);
    if (badCount > bad.length) process.stderr.write(`… and ${badCount - bad.length} more rows that could not be read (each named in the output)\n`);
    return EXIT.usage;
  }
  return EXIT.ok;
}

export const geocodeCommand: Command = {
  name: 'geocode',
  summary: 'Geocode: addresses → coordinates with MatchCode (GeocodeSpecification JSON, or a CSV file)',
  options: [
    { flag: '-d, --data <dataset.dkds>', description: 'the dataset to answer on (built with `dispatchkit build`)' },
    { flag: '--osm <extract.osm.pbf>', description: 'build a geocoder from this extract instead (no dataset needed)' },
    { flag: '--tiger <ranges.csv>', description: 'with --osm: TIGER-style address ranges to interpolate house numbers' },
    { flag: '--names', description: 'enum values as names instead of integers' },
    { flag: '--csv <in.csv|->', description: 'geocode a CSV file, streaming (separator and header sniffed)' },
    { flag: '-o, --out <out.csv>', description: 'with --csv: where to write', default: 'standard output' },
    { flag: '--jsonl', description: 'with --csv: JSON lines instead of CSV' },
    { flag: '--columns street=N,city=N,…', description: 'with --csv: which columns hold what (numbers from 1, or header names)', default: 'recognised by header name' },
    { flag: '--header / --no-header', description: 'with --csv: whether the first row is a header', default: 'sniffed' },
    { flag: '--reverse <lat,lon>', description: 'the nearest address or street of a coordinate' },
    { flag: '--threads N', description: 'worker threads for large batches (with --data)', default: '1' },
    { flag: '--limit N', description: 'candidates per address, 1 to 50', default: '5' },
    { flag: '-q, --quiet', description: 'no progress on stderr' },
  ],
  examples: [
    'dispatchkit geocode --data data/monaco-latest.dkds spec.json',
    'dispatchkit geocode --data data/monaco-latest.dkds --csv addresses.csv -o out.csv --threads 2',
    'dispatchkit geocode --osm fixtures/monaco-latest.osm.pbf --reverse 43.7396,7.4276',
  ],
  usage: 'dispatchkit geocode (--data <dataset.dkds> | --osm <extract.osm.pbf> [--tiger <ranges.csv>]) '
    + '(<spec.json|-> [--names] | --csv <in.csv|-> [-o <out.csv>] [--jsonl] [--columns street=N,city=N,…] [--header|--no-header] '
    + '| --reverse <lat,lon>) [--threads N] [--limit N] [--quiet]',
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      ...DATA_OPTION,
      osm: { type: 'string' },
      tiger: { type: 'string' },
      csv: { type: 'string' },
      out: { type: 'string', short: 'o' },
      jsonl: { type: 'boolean' },
      columns: { type: 'string' },
      header: { type: 'boolean' },
      'no-header': { type: 'boolean' },
      reverse: { type: 'string' },
      ...NAMES_OPTION,
      limit: { type: 'string' },
      threads: { type: 'string' },
      ...QUIET_OPTION,
    });
    const modes = (values.csv !== undefined ? 1 : 0) + (values.reverse !== undefined ? 1 : 0) + (positionals.length === 1 ? 1 : 0);
    const csvOnly = values.out !== undefined || values.jsonl || values.columns !== undefined || values.header || values['no-header'];
    if ((!values.data && !values.osm) || (values.data && values.osm) || modes !== 1 || positionals.length > 1
      || (csvOnly && values.csv === undefined) || (values.header && values['no-header'])) {
      process.stderr.write(`Usage: ${this.usage}\n`);
      return EXIT.usage;
    }
    const limit = values.limit !== undefined ? Number(values.limit) : 5;
    if (!Number.isInteger(limit) || limit < 1 || limit > 50) throw new EngineError('InvalidInput', '--limit must be a whole number from 1 to 50.', { path: 'limit' });
    const threads = parseThreads(values.threads, 1);
    if (values.columns !== undefined) parseColumns(values.columns);
    // Checked before the index is opened or built: a bad input or output path fails at once.
    if (values.csv !== undefined) checkCsvInput(values.csv);
    if (values.out !== undefined) checkOutputPath(values.out, '-o');
    const progress = new ProgressPrinter(process.stderr, values.quiet);
    const { index, buffer } = openIndex(values, progress);
    const geocoder = new Geocoder(index);

    if (values.reverse !== undefined) {
      const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(values.reverse);
      if (!m) throw new EngineError('InvalidInput', '--reverse takes "lat,lon" in degrees.', { path: 'reverse' });
      const lat = Number(m[1]), lon = Number(m[2]);
      if (!isValidLatLon(lat, lon)) throw new EngineError('InvalidInput', `--reverse: (${lat}, ${lon}) is not a valid latitude, longitude.`, { path: 'reverse' });
      const r = geocoder.reverse(lat, lon);
      printJson(r ?? { found: false });
      return r ? EXIT.ok : EXIT.failed;
    }
    // Batches run on worker threads when asked for and the index comes from a dataset file.
    const pool = threads > 1 && buffer instanceof SharedArrayBuffer ? new WorkerPool({ threads, shared: { dataset: buffer } }) : null;
    try {
      if (values.csv !== undefined) {
        return await runCsv(geocoder, pool, {
          input: values.csv, output: values.out, jsonl: !!values.jsonl, names: !!values.names, columns: values.columns,
          header: values.header ? true : values['no-header'] ? false : undefined, limit, threads,
        }, progress);
      }
      const spec = readJson(positionals[0]);
      const ctx = geocoderContext(geocoder, pool ?? new InlineExecutor(), { geocodePrefix: PREFIX });
      // Batches of 512 addresses or more go to the pool.
      const result = await Geocode.run(ctx, spec, { maxCandidates: limit, batchThreshold: 511, onProgress: progress.onProgress });
      progress.end();
      printJson(GeocodeResultSchema.encode(result, { enums: values.names ? 'name' : 'int' }));
      return result.Status === 'Failed' ? EXIT.failed : EXIT.ok;
    } finally {
      await pool?.close();
    }
  },
};
