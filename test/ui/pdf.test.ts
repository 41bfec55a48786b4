/**
 * ui/pdf.js, the driver sheet's dependency-free PDF 1.4 writer, under Node (it touches no DOM):
 * the file is read back with a small reader written here (header, cross-reference table,
 * trailer, objects, stream lengths, the text of the content streams decoded from WinAnsi).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
// the page's own module (plain browser JavaScript, no DOM at import)
// @ts-expect-error the page is plain JavaScript without declarations
import * as pdfModule from '../../ui/pdf.js';

interface Doc {
  contentWidth: number;
  pages: unknown[];
  y: number;
  paragraph(text: string, opts?: Record<string, unknown>): Doc;
  table(columns: { title: string; width: number; align?: string }[], rows: string[][], opts?: Record<string, unknown>): Doc;
  image(bytes: Uint8Array, opts?: Record<string, unknown>): Doc;
  text(x: number, y: number, text: string, opts?: Record<string, unknown>): Doc;
  line(x1: number, y1: number, x2: number, y2: number, opts?: Record<string, unknown>): Doc;
  rect(x: number, y: number, w: number, h: number, opts?: Record<string, unknown>): Doc;
  toBytes(): Uint8Array;
}
const pdf = pdfModule as {
  PdfDocument: new (opts?: { title?: string; footer?: (i: number, n: number) => string }) => Doc;
  winAnsi(text: string): number[];
  pdfString(text: string): string;
  wrapText(text: string, width: number, size?: number, bold?: boolean): string[];
  textWidth(text: string, size?: number, bold?: boolean): number;
  jpegInfo(bytes: Uint8Array): { width: number; height: number; components: number } | null;
};

// ------------------------------------------------------------------------------ a reader

/** Windows-1252 → Unicode, written out here (Node's TextDecoder reads 0x80–0x9F as Latin-1). */
const HIGH: Record<number, number> = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021, 0x88: 0x02c6,
  0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201c,
  0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc, 0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a,
  0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};
const fromWinAnsi = (bytes: number[]): string => String.fromCodePoint(...bytes.map((b) => HIGH[b] ?? b));
const latin1 = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

/** The bytes of a PDF literal string's body (escapes undone). */
function unescape(body: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') { out.push(c.charCodeAt(0)); continue; }
    const d = body[++i];
    const oct = /^[0-7]{1,3}/.exec(body.slice(i))?.[0];
    if (oct) { out.push(parseInt(oct, 8) & 0xff); i += oct.length - 1; continue; }
    const simple: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };
    if (d in simple) out.push(simple[d]);
  }
  return out;
}

interface Parsed {
  text: string;
  objects: Map<number, string>;
  streams: Map<number, Uint8Array>;
  /** The strings shown by Tj in each page's content stream, in order, decoded. */
  pageTexts: string[][];
  images: number[];
}

/**
 * Reads `bytes` the way a PDF reader starts: `startxref` → the xref table → every object at its
 * offset ("n 0 obj"); each stream's /Length bytes, then "endstream". Fails the test on any
 * inconsistency.
 */
function readPdf(bytes: Uint8Array): Parsed {
  const text = latin1(bytes);
  expect(text.startsWith('%PDF-1.4\n')).toBe(true);
  expect(text.endsWith('%%EOF\n')).toBe(true);
  const sx = /startxref\n(\d+)\n%%EOF\n$/.exec(text);
  expect(sx, 'startxref at the end').not.toBeNull();
  const xrefAt = Number(sx![1]);
  expect(text.slice(xrefAt, xrefAt + 5)).toBe('xref\n');
  const head = /^xref\n0 (\d+)\n/.exec(text.slice(xrefAt))!;
  const size = Number(head[1]);
  const entriesAt = xrefAt + head[0].length;
  const trailer = /trailer\n<< \/Size (\d+) \/Root (\d+) 0 R \/Info (\d+) 0 R >>/.exec(text.slice(entriesAt + size * 20));
  expect(trailer, 'the trailer right after the xref entries').not.toBeNull();
  expect(Number(trailer![1])).toBe(size);
  const objects = new Map<number, string>();
  const streams = new Map<number, Uint8Array>();
  for (let n = 0; n < size; n++) {
    const entry = text.slice(entriesAt + n * 20, entriesAt + (n + 1) * 20);
    expect(entry, `xref entry ${n} is 20 bytes`).toMatch(n === 0 ? /^0000000000 65535 f \n$/ : /^\d{10} 00000 n \n$/);
    if (n === 0) continue;
    const at = Number(entry.slice(0, 10));
    expect(text.slice(at, at + `${n} 0 obj\n`.length), `xref entry ${n} points at its object`).toBe(`${n} 0 obj\n`);
    const bodyAt = at + `${n} 0 obj\n`.length;
    const dict = /^<<.*?>>(?=\n(stream|endobj))/s.exec(text.slice(bodyAt, bodyAt + 4000))?.[0] ?? '';
    const length = /\/Length (\d+)/.exec(dict);
    if (text.startsWith('\nstream\n', bodyAt + dict.length) && length) {
      const from = bodyAt + dict.length + '\nstream\n'.length;
      const to = from + Number(length[1]);
      expect(text.slice(to, to + '\nendstream\nendobj\n'.length), `object ${n}: the stream ends at its /Length`).toBe('\nendstream\nendobj\n');
      streams.set(n, bytes.subarray(from, to));
      objects.set(n, dict);
    } else {
      const end = text.indexOf('\nendobj\n', bodyAt);
      expect(end).toBeGreaterThan(0);
      objects.set(n, text.slice(bodyAt, end));
    }
  }
  const root = objects.get(Number(trailer![2]))!;
  expect(root).toMatch(/\/Type \/Catalog/);
  const pagesRef = Number(/\/Pages (\d+) 0 R/.exec(root)![1]);
  const pagesDict = objects.get(pagesRef)!;
  const kids = [...(/\/Kids \[([^\]]*)\]/.exec(pagesDict)![1].matchAll(/(\d+) 0 R/g))].map((m) => Number(m[1]));
  expect(Number(/\/Count (\d+)/.exec(pagesDict)![1])).toBe(kids.length);
  const pageTexts: string[][] = [];
  const images: number[] = [];
  for (const k of kids) {
    const page = objects.get(k)!;
    expect(page).toMatch(/\/Type \/Page\b/);
    expect(page).toMatch(/\/MediaBox \[0 0 595\.28 841\.89\]/);
    const contents = streams.get(Number(/\/Contents (\d+) 0 R/.exec(page)![1]))!;
    const im = /\/Im1 (\d+) 0 R/.exec(page);
    if (im) images.push(Number(im[1]));
    const content = latin1(contents);
    expect(content, 'content streams are ASCII').toMatch(/^[\x20-\x7e\n]*$/);
    pageTexts.push([...content.matchAll(/\(((?:\\[0-7]{1,3}|\\.|[^\\()])*)\) Tj/g)].map((m) => fromWinAnsi(unescape(m[1]))));
  }
  return { text, objects, streams, pageTexts, images };
}

/** A minimal JPEG: SOI, APP0 (JFIF), SOF0 with the size, EOI — enough for the header a reader needs. */
function tinyJpeg(width: number, height: number): Uint8Array {
  return new Uint8Array([
    0xff, 0xd8,
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
    0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01,
    0xff, 0xd9,
  ]);
}

// ------------------------------------------------------------------------------ the tests

describe('ui/pdf.js', () => {
  it('writes a valid file: every xref offset points at its object, each stream ends at its /Length', () => {
    const doc = new pdf.PdfDocument({ title: 'Driver sheet' });
    doc.paragraph('Hello, driver', { bold: true, size: 16 });
    doc.line(40, 100, 300, 100);
    doc.rect(40, 110, 100, 20, { fill: '#eeeeee', stroke: '#333' });
    const r = readPdf(doc.toBytes());
    expect(r.pageTexts).toEqual([['Hello, driver']]);
    expect([...r.objects.values()].some((o) => /\/BaseFont \/Helvetica \/Encoding \/WinAnsiEncoding/.test(o))).toBe(true);
    expect([...r.objects.values()].some((o) => /\/BaseFont \/Helvetica-Bold \/Encoding \/WinAnsiEncoding/.test(o))).toBe(true);
    expect(r.text).toContain('/Title (Driver sheet)');
    // the drawing operators are in the page's content
    const content = latin1([...r.streams.values()][0]);
    expect(content).toMatch(/40 741\.89 m 300 741\.89 l S/);
    expect(content).toMatch(/re B Q/);
  });

  it('a coloured text does not colour what follows (each text keeps its colour to itself)', () => {
    const doc = new pdf.PdfDocument();
    doc.paragraph('warning', { color: '#a15c00' });
    doc.paragraph('plain');
    const content = latin1([...readPdf(doc.toBytes()).streams.values()][0]);
    expect(content).toMatch(/^q BT 0\.63 0\.36 0 rg \/F1 10 Tf .*\(warning\) Tj ET Q$/m);
    expect(content).toMatch(/^q BT 0 0 0 rg \/F1 10 Tf .*\(plain\) Tj ET Q$/m);
  });

  it('breaks pages by itself: 300 lines go onto several A4 pages, in order, with the footer on each', () => {
    const doc = new pdf.PdfDocument({ footer: (i, n) => `page ${i} of ${n}` });
    for (let i = 1; i <= 300; i++) doc.paragraph(`Line ${i}`, { size: 10 });
    const r = readPdf(doc.toBytes());
    expect(r.pageTexts.length).toBeGreaterThanOrEqual(5);
    const lines = r.pageTexts.flatMap((t) => t.filter((s) => s.startsWith('Line ')));
    expect(lines).toEqual(Array.from({ length: 300 }, (_, i) => `Line ${i + 1}`));
    r.pageTexts.forEach((t, i) => expect(t.at(-1)).toBe(`page ${i + 1} of ${r.pageTexts.length}`));
    // every line's baseline is inside the page, above the footer
    for (const s of r.streams.values()) {
      for (const m of latin1(s).matchAll(/1 0 0 1 [\d.]+ ([\d.]+) Tm \(Line/g)) {
        expect(Number(m[1])).toBeGreaterThan(40);
        expect(Number(m[1])).toBeLessThan(841.89 - 40);
      }
    }
  });

  it('wraps long text within the width and keeps every word', () => {
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`);
    const lines = pdf.wrapText(words.join(' '), 200, 10);
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) expect(pdf.textWidth(l, 10)).toBeLessThanOrEqual(200);
    expect(lines.join(' ')).toBe(words.join(' '));
    // a word longer than the line is cut, nothing lost
    const long = 'x'.repeat(500);
    expect(pdf.wrapText(long, 100, 10).join('')).toBe(long);
    // Helvetica's widths: "W" is wider than "i", bold wider than regular
    expect(pdf.textWidth('W', 10)).toBeCloseTo(9.44, 2);
    expect(pdf.textWidth('i', 10)).toBeCloseTo(2.22, 2);
    expect(pdf.textWidth('abc', 10, true)).toBeGreaterThan(pdf.textWidth('abc', 10));
  });

  it('encodes accented text in WinAnsi: é ç ã ß € as single Windows-1252 bytes', () => {
    expect(pdf.winAnsi('é ç ã ß €')).toEqual([0xe9, 0x20, 0xe7, 0x20, 0xe3, 0x20, 0xdf, 0x20, 0x80]);
    expect(pdf.pdfString('Café € ß')).toBe('(Caf\\351 \\200 \\337)');
    // a decomposed "é" (e + combining acute) is the same byte
    expect(pdf.winAnsi('e\u0301')).toEqual([0xe9]);
    // outside Windows-1252: without the accent, an ASCII stand-in, or '?'
    expect(fromWinAnsi(pdf.winAnsi('Łódź Kraków → Őrség ≤ 5'))).toBe('Lódz Kraków -> Orség <= 5');
    expect(fromWinAnsi(pdf.winAnsi('東京 😀 Ωμέγα'))).toBe('?? ? ?????');
    const doc = new pdf.PdfDocument();
    doc.paragraph('Spélugues, Garçon, São Paulo, Straße, 5 €, „Zitat“ – “quote” — Œuvre');
    const r = readPdf(doc.toBytes());
    expect(r.pageTexts[0]).toEqual(['Spélugues, Garçon, São Paulo, Straße, 5 €, „Zitat“ – “quote” — Œuvre']);
  });

  it('escapes ( ) and \\ in text', () => {
    expect(pdf.pdfString('a(b)c\\d')).toBe('(a\\(b\\)c\\\\d)');
    const doc = new pdf.PdfDocument({ title: 'x) /Root 9 0 R (' });
    doc.paragraph('Turn left (toll) onto A\\B ((nested)');
    const r = readPdf(doc.toBytes());
    expect(r.pageTexts[0]).toEqual(['Turn left (toll) onto A\\B ((nested)']);
    expect(r.text).toContain('/Title (x\\) /Root 9 0 R \\()');
  });

  it('embeds a JPEG by reference: an image XObject with /DCTDecode, drawn by the page; one a page', () => {
    expect(pdf.jpegInfo(tinyJpeg(320, 180))).toEqual({ width: 320, height: 180, components: 3 });
    expect(pdf.jpegInfo(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    const jpeg = tinyJpeg(320, 180);
    const doc = new pdf.PdfDocument();
    doc.paragraph('Map');
    doc.image(jpeg);
    doc.image(tinyJpeg(100, 100)); // a second image: on a page of its own
    const r = readPdf(doc.toBytes());
    expect(r.images).toHaveLength(2);
    const [first] = r.images;
    expect(r.objects.get(first)).toMatch(/\/Subtype \/Image \/Width 320 \/Height 180 \/ColorSpace \/DeviceRGB \/BitsPerComponent 8 \/Filter \/DCTDecode \/Length 41/);
    expect([...r.streams.get(first)!]).toEqual([...jpeg]);
    const pageContent = latin1(r.streams.get(Number(/\/Contents (\d+) 0 R/.exec([...r.objects.values()].find((o) => o.includes(`/Im1 ${first} 0 R`))!)![1]))!);
    // drawn at the content width, in proportion: 515.28 × 289.84
    expect(pageContent).toMatch(/q 515\.28 0 0 289\.84 40 [\d.]+ cm \/Im1 Do Q/);
    expect(() => doc.image(new Uint8Array([1, 2, 3]))).toThrow(/not a JPEG/);
  });

  it('tables: header repeated on each page, rows never split, cells wrapped whole', () => {
    const doc = new pdf.PdfDocument();
    const columns = [{ title: '#', width: 30, align: 'right' }, { title: 'Stop', width: 120 }, { title: 'ETA', width: 50 }];
    const rows = Array.from({ length: 120 }, (_, i) => [String(i + 1), `Stop number ${i + 1} on the long avenue of the harbour`, '09:00']);
    doc.table(columns, rows);
    const r = readPdf(doc.toBytes());
    expect(r.pageTexts.length).toBeGreaterThan(2);
    for (const t of r.pageTexts) expect(t.slice(0, 3)).toEqual(['#', 'Stop', 'ETA']);
    // each row's cells follow one another on one page: "n", the wrapped name (its lines in a row), "09:00"
    const all = r.pageTexts.map((t) => t.slice(3).join(' ')).join(' ');
    for (const row of rows) expect(all).toContain(`${row[0]} ${row[1]} 09:00`);
  });

  it('a hostile string never breaks the file: any Unicode in the title, text, tables and footer', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.constantFrom(')', '(', '\\', ') Tj ET\nendstream\nendobj\n', '\nxref\n0 1\n', '%%EOF', 'startxref\n0\n', '\u0000\r\n\t', '\ud800', '\\\\)', '>> endobj'),
      ), { minLength: 1, maxLength: 12 }),
      (texts) => {
        const doc = new pdf.PdfDocument({ title: texts[0], footer: () => texts.at(-1)! });
        for (const t of texts) doc.paragraph(t, { bold: t.length % 2 === 0 });
        doc.table([{ title: texts[0], width: 100 }, { title: 'B', width: 200 }], texts.map((t) => [t, t]));
        const r = readPdf(doc.toBytes());
        // what was drawn reads back as the text's WinAnsi form
        const drawn = r.pageTexts.flat().join('');
        for (const t of texts) {
          const expected = fromWinAnsi(pdf.winAnsi(t)).replace(/ +/g, '');
          expect(drawn.replace(/ +/g, '')).toContain(expected);
        }
      },
    ), { numRuns: 150, seed: 25 });
  });
});
