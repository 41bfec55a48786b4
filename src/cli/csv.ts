/**
 * CSV input for the CLI, streaming: the separator is sniffed (`,`, `;` or tab, from the first
 * line outside quotes), a UTF-8 BOM is dropped, records are parsed by csv-parse (quoting, doubled
 * quotes, CRLF, newlines inside quoted fields), and every record carries the line it starts on.
 * A record csv-parse cannot read (an unclosed quote, a different number of columns than the first
 * record, a stray quote) is yielded as an error naming its line — never merged into a neighbour or
 * dropped silently.
 *
 * Header recognition (`detectHeader`) knows address column names in several languages (the table
 * of `records/columns.ts`, which the dispatcher's page reads too); `--columns` (`parseColumns`)
 * names the columns explicitly.
 */
import type { Readable } from 'node:stream';
import { parse, type CsvError } from 'csv-parse';
import { EngineError } from '../core/errors.js';
import type { Address } from '../records/index.js';
import { ADDRESS_FIELDS, columnsOfHeader, headerKey } from '../records/columns.js';

export type AddressField = keyof Address;
export type ColumnMap = Partial<Record<AddressField, number>>;

/** One record of the input: its cells, or why it could not be read; `line` is where it starts (1-based). */
export type CsvRecord = { line: number; cells: string[]; error?: undefined } | { line: number; cells?: string[]; error: string };

const SEPARATORS = [',', ';', '\t'] as const;

/** The separator of a CSV text from its first line (outside quotes): the most frequent of `,` `;` tab; `,` on a tie or none. */
export function sniffSeparator(head: string): ',' | ';' | '\t' {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && (c === ',' || c === ';' || c === '\t')) counts[c]++;
  }
  let best: ',' | ';' | '\t' = ',';
  for (const s of SEPARATORS) if (counts[s] > counts[best]) best = s;
  return best;
}

/** Whether `head` holds a whole first line (a line break outside quotes). */
function hasFirstLine(head: string): boolean {
  let quoted = false;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) return true;
  }
  return false;
}

const SNIFF_CHARS = 1 << 16;

/** Line breaks in a raw record (`\r\n`, `\n` or `\r`; csv-parse's raw text of a record ending in `\r\n` holds only the `\r`). */
function countNewlines(s: string): number {
  return s.match(/\r\n|\r|\n/g)?.length ?? 0;
}

function leadingNewlines(s: string): number {
  return countNewlines(/^[\r\n]*/.exec(s)![0]);
}

function describe(err: CsvError): string {
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED': return 'a quoted field is not closed (the input ends inside it)';
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const got = (err as CsvError & { record?: unknown[] }).record?.length;
      const expected = (err as CsvError & { columns?: unknown; max_record_size?: unknown }).message.match(/expect (\d+)/)?.[1];
      return `${got ?? '?'} columns where the first row has ${expected ?? 'a different number'}`;
    }
    case 'CSV_INVALID_CLOSING_QUOTE': return 'a closing quote is followed by other characters';
    case 'INVALID_OPENING_QUOTE': return 'a quote inside an unquoted field';
    default: return err.message;
  }
}

/**
 * The records of a CSV stream (text or bytes, UTF-8), in order, with the line each starts on.
 * Empty lines are skipped. Memory is bounded by csv-parse's buffers and the consumer's pace
 * (the async iterator applies back-pressure to `source`).
 */
export async function* csvRecords(source: Readable, opts: { separator?: ',' | ';' | '\t' } = {}): AsyncGenerator<CsvRecord> {
  source.setEncoding('utf8');
  const it = source[Symbol.asyncIterator]() as AsyncIterator<string>;
  let head = '';
  let ended = false;
  while (!ended && head.length < SNIFF_CHARS && !hasFirstLine(head)) {
    const r = await it.next();
    if (r.done) ended = true;
    else head += r.value;
  }
  if (head.charCodeAt(0) === 0xfeff) head = head.slice(1);
  const delimiter = opts.separator ?? sniffSeparator(head);
  const errors: { seq: number; raw: string; error: string; cells?: string[] }[] = [];
  let seq = 0;
  const options = {
    delimiter,
    raw: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_record: (rec: { record: string[]; raw: string }) => ({ ...rec, seq: seq++ }),
    on_skip: (err: CsvError | undefined, raw?: string) => {
      if (!err) return;
      const cells = (err as CsvError & { record?: unknown }).record;
      errors.push({ seq: seq++, raw: raw ?? '', error: describe(err), cells: Array.isArray(cells) ? cells.map(String) : undefined });
      return undefined;
    },
  };
  // With `raw`, on_record receives { record, raw } (the typings describe the plain record).
  const parser = parse(options as unknown as Parameters<typeof parse>[0]);
  (async () => {
    try {
      if (head) { if (!parser.write(head)) await new Promise((r) => parser.once('drain', r)); }
      while (!ended) {
        const r = await it.next();
        if (r.done) break;
        if (!parser.write(r.value)) await new Promise((res) => parser.once('drain', res));
      }
      parser.end();
    } catch (e) {
      parser.destroy(e as Error);
    }
  })();
  let line = 1;
  const flushErrors = function* (upTo: number): Generator<CsvRecord> {
    while (errors.length > 0 && errors[0].seq < upTo) {
      const e = errors.shift()!;
      const start = line + leadingNewlines(e.raw);
      line += countNewlines(e.raw);
      yield { line: start, error: e.error, cells: e.cells };
    }
  };
  for await (const rec of parser as AsyncIterable<{ record: string[]; raw: string; seq: number }>) {
    yield* flushErrors(rec.seq);
    const start = line + leadingNewlines(rec.raw);
    line += countNewlines(rec.raw);
    yield { line: start, cells: rec.record };
  }
  yield* flushErrors(Infinity);
}

// ----------------------------------------------------------------------------- headers

/** A header name as it is compared: the one rule of `records/columns.ts` (accents off, ß → ss, lower case, only letters and digits). */
export const normalizeHeader = headerKey;

/** Column index per address field from a header row (the names of `records/columns.ts`, first column per field), or null when the row is not a header. */
export function detectHeader(row: string[]): ColumnMap | null {
  const map: ColumnMap = {};
  columnsOfHeader(row).forEach((f, i) => {
    if (f !== undefined && (ADDRESS_FIELDS as readonly string[]).includes(f)) map[f as AddressField] = i;
  });
  return map.Street !== undefined || map.City !== undefined || map.PostalCode !== undefined ? map : null;
}

const FIELD_OF: Record<string, AddressField> = {
  street: 'Street', address: 'Street', city: 'City', state: 'State', region: 'State',
  postcode: 'PostalCode', postalcode: 'PostalCode', zip: 'PostalCode', country: 'Country',
};

/**
 * `--columns street=2,city=3` (1-based column numbers) or `street=Adresse,city=Ort` (header
 * names, which make the first row a header). Fields: street|address, city, state|region,
 * postcode|postalcode|zip, country.
 */
export function parseColumns(spec: string): { byNumber: ColumnMap; byName: Partial<Record<AddressField, string>> } {
  const byNumber: ColumnMap = {};
  const byName: Partial<Record<AddressField, string>> = {};
  for (const part of spec.split(',')) {
    const m = /^\s*([A-Za-z_]+)\s*=\s*(.+?)\s*$/.exec(part);
    const field = m ? FIELD_OF[m[1].toLowerCase().replace(/_/g, '')] : undefined;
    if (!m || !field) throw new EngineError('InvalidInput', `--columns: "${part}" is not field=column (fields: street, city, state, postcode, country).`, { path: 'columns' });
    if (/^\d+$/.test(m[2])) {
      const n = Number(m[2]);
      if (n < 1) throw new EngineError('InvalidInput', `--columns: column numbers start at 1 ("${part}").`, { path: 'columns' });
      byNumber[field] = n - 1;
    } else byName[field] = m[2];
  }
  return { byNumber, byName };
}

/** Resolves `--columns` header names against a header row; InvalidInput for a name not in it. */
export function resolveColumnNames(byName: Partial<Record<AddressField, string>>, header: string[]): ColumnMap {
  const out: ColumnMap = {};
  const names = header.map(normalizeHeader);
  for (const [field, name] of Object.entries(byName) as [AddressField, string][]) {
    const i = names.indexOf(normalizeHeader(name));
    if (i < 0) throw new EngineError('InvalidInput', `--columns: no column "${name}" in the header (${header.join(', ')}).`, { path: 'columns' });
    out[field] = i;
  }
  return out;
}

/**
 * One CSV output field, quoted when it holds a separator, quote or line break. Text that a
 * spreadsheet would run as a formula (it begins with `=`, `+`, `-`, `@`, a tab or a carriage
 * return, OWASP's "CSV injection") is written with a leading `'`; numbers (`-8.61`) stay numbers.
 */
export function csvField(s: string): string {
  const t = /^[=+\-@\t\r]/.test(s) && !NUMBER.test(s) ? `'${s}` : s;
  return /[",;\t\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
