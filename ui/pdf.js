// A small PDF 1.4 writer with no dependency (the driver sheet's "Download PDF"): A4 pages that
// break by themselves, the standard fonts Helvetica and Helvetica-Bold in WinAnsiEncoding (text
// mapped from Unicode to Windows-1252; a character outside it becomes a close ASCII fallback or
// '?'), text, lines, rectangles and one JPEG image per page (/DCTDecode). Content streams are
// not compressed, so the text can be read back from the file. Pure: no DOM, no globals (it runs
// in the browser and under Node's tests alike).
//
// Layout is top-down: `y` is the distance from the top edge of the page in points (1/72 in); the
// writer turns it into PDF's bottom-up coordinates. The flowing calls (`paragraph`, `table`,
// `image`, `space`) move the cursor and start a new page when the next piece does not fit.

/** A4 in points. */
export const A4 = Object.freeze({ width: 595.28, height: 841.89 });

// ------------------------------------------------------------------------------ Windows-1252

/** Windows-1252's 0x80–0x9F block, by Unicode code point (the rest of 0xA0–0xFF is Latin-1). */
const CP1252_HIGH = new Map([
  [0x20ac, 0x80], [0x201a, 0x82], [0x0192, 0x83], [0x201e, 0x84], [0x2026, 0x85], [0x2020, 0x86], [0x2021, 0x87],
  [0x02c6, 0x88], [0x2030, 0x89], [0x0160, 0x8a], [0x2039, 0x8b], [0x0152, 0x8c], [0x017d, 0x8e], [0x2018, 0x91],
  [0x2019, 0x92], [0x201c, 0x93], [0x201d, 0x94], [0x2022, 0x95], [0x2013, 0x96], [0x2014, 0x97], [0x02dc, 0x98],
  [0x2122, 0x99], [0x0161, 0x9a], [0x203a, 0x9b], [0x0153, 0x9c], [0x017e, 0x9e], [0x0178, 0x9f],
]);

/** Close ASCII stand-ins for common characters Windows-1252 lacks (after accents are stripped). */
const FALLBACK = new Map(Object.entries({
  '→': '->', '←': '<-', '↑': '^', '↓': 'v', '↔': '<->', '⇒': '=>', '≤': '<=', '≥': '>=', '≠': '!=', '≈': '~',
  '−': '-', '‐': '-', '‑': '-', '‒': '-', '―': '-', '′': "'", '″': '"', '∙': '\u00b7', '⋅': '\u00b7',
  'ł': 'l', 'Ł': 'L', 'đ': 'd', 'Đ': 'D', 'ı': 'i', 'ħ': 'h', 'Ħ': 'H', 'ŋ': 'n', 'Ŋ': 'N', 'ẞ': 'SS', 'ŉ': "'n",
  '✓': 'v', '✔': 'v', '✗': 'x', '✘': 'x',
}));

/** The Windows-1252 byte of one code point, or -1. */
function cp1252(cp) {
  if ((cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff)) return cp;
  return CP1252_HIGH.get(cp) ?? -1;
}

/**
 * `text` as WinAnsiEncoding bytes (an array of 0–255): NFC first (a decomposed "é" is one
 * character), then each character by Windows-1252; outside it, the character without its accents
 * ("ő" → "o"), a close ASCII stand-in ("→" → "->"), or '?'. Tabs and line breaks become spaces;
 * other control characters '?'. Never throws (a lone surrogate is '?').
 */
export function winAnsi(text) {
  const out = [];
  const s = String(text ?? '').normalize('NFC');
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    const b = cp1252(cp);
    if (b >= 0) { out.push(b); continue; }
    if (cp === 0x09 || cp === 0x0a || cp === 0x0b || cp === 0x0c || cp === 0x0d || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x202f || cp === 0x205f || cp === 0x3000) {
      out.push(0x20);
      continue;
    }
    // a zero-width character or a stray combining mark: nothing to draw
    if ((cp >= 0x200b && cp <= 0x200f) || cp === 0xfeff || cp === 0x2060 || /^\p{M}$/u.test(ch)) continue;
    const bare = ch.normalize('NFD').replace(/\p{M}+/gu, '');
    if (bare !== '' && bare !== ch && [...bare].every((c) => cp1252(c.codePointAt(0)) >= 0)) {
      for (const c of bare) out.push(cp1252(c.codePointAt(0)));
      continue;
    }
    const alt = FALLBACK.get(ch);
    if (alt !== undefined) {
      for (const c of alt) out.push(cp1252(c.codePointAt(0)));
      continue;
    }
    out.push(0x3f);
  }
  return out;
}

// ------------------------------------------------------------------------------ font metrics

// Glyph widths (1/1000 em) of the standard fonts for WinAnsi codes 32–255, from Adobe's AFM files.
// Codes WinAnsi leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) are never written.
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 350,
  556, 350, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 350, 611, 350,
  350, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944, 350, 500, 667,
  278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333,
  400, 584, 333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611,
  667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
  722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
  556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500,
];
const HELVETICA_BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
  975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
  333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
  611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, 350,
  556, 350, 278, 556, 500, 1000, 556, 556, 333, 1000, 667, 333, 1000, 350, 611, 350,
  350, 278, 278, 500, 500, 350, 556, 1000, 333, 1000, 556, 333, 944, 350, 500, 667,
  278, 333, 556, 556, 556, 556, 280, 556, 333, 737, 370, 556, 584, 333, 737, 333,
  400, 584, 333, 333, 333, 611, 556, 278, 333, 333, 365, 556, 834, 834, 834, 611,
  722, 722, 722, 722, 722, 722, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
  722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
  556, 556, 556, 556, 556, 556, 889, 556, 556, 556, 556, 556, 278, 278, 278, 278,
  611, 611, 611, 611, 611, 611, 611, 584, 611, 611, 611, 611, 611, 556, 611, 556,
];

/** The width in points of `text` in Helvetica (or Helvetica-Bold) at `size`. */
export function textWidth(text, size = 10, bold = false) {
  return bytesWidth(winAnsi(text), size, bold);
}

function bytesWidth(bytes, size, bold) {
  const w = bold ? HELVETICA_BOLD : HELVETICA;
  let sum = 0;
  for (const b of bytes) sum += w[b - 32] ?? 556;
  return (sum * size) / 1000;
}

/**
 * `text` broken into lines no wider than `width` (at `size`, bold or not): at spaces, a word
 * longer than a line cut where it must. Line breaks in the text are kept. Always at least one line.
 */
export function wrapText(text, width, size = 10, bold = false) {
  const lines = [];
  const max = Math.max(width, size); // a line holds at least one character
  for (const para of String(text ?? '').split(/\r\n|\r|\n/)) {
    let line = '';
    for (const word of para.split(/[ \t]+/).filter(Boolean)) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (textWidth(candidate, size, bold) <= max) { line = candidate; continue; }
      if (line !== '') lines.push(line);
      line = word;
      while (textWidth(line, size, bold) > max) {
        const chars = [...line];
        let n = 1;
        while (n < chars.length && textWidth(chars.slice(0, n + 1).join(''), size, bold) <= max) n++;
        lines.push(chars.slice(0, n).join(''));
        line = chars.slice(n).join('');
      }
    }
    lines.push(line);
  }
  return lines;
}

// ------------------------------------------------------------------------------ syntax

/** A number as PDF writes it: at most 2 decimals, never an exponent, never NaN. */
export function num(x) {
  const v = Number.isFinite(x) ? Math.max(-1e6, Math.min(1e6, x)) : 0;
  const r = Math.round(v * 100) / 100;
  return Object.is(r, -0) ? '0' : String(r);
}

/**
 * A PDF literal string of WinAnsi text: `(` `)` `\` escaped, every byte outside printable ASCII
 * as an octal escape (the file stays ASCII outside images), and the keywords "endstream" and
 * "endobj" broken by an escape so that no scanner mistakes text for structure.
 */
export function pdfString(text) {
  let s = '';
  for (const b of winAnsi(text)) {
    if (b === 0x28 || b === 0x29 || b === 0x5c) s += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b > 0x7e) s += `\\${b.toString(8).padStart(3, '0')}`;
    else s += String.fromCharCode(b);
  }
  return `(${s.replace(/end(stream|obj)/g, '\\145nd$1')})`;
}

/** A colour as three 0–1 components: '#rrggbb', '#rgb' or [r, g, b] (0–1); black otherwise. */
function rgb(c) {
  if (Array.isArray(c) && c.length === 3) return c.map((x) => num(Math.max(0, Math.min(1, Number(x) || 0)))).join(' ');
  const m = typeof c === 'string' ? /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(c.trim()) : null;
  if (!m) return '0 0 0';
  const hex = m[1].length === 3 ? [...m[1]].map((d) => d + d).join('') : m[1];
  return [0, 2, 4].map((i) => num(parseInt(hex.slice(i, i + 2), 16) / 255)).join(' ');
}

// ------------------------------------------------------------------------------ JPEG

/**
 * Width, height and colour components of a baseline or progressive JPEG (its SOF marker), or
 * null when `bytes` is not a JPEG this writer can embed.
 */
export function jpegInfo(bytes) {
  if (!(bytes instanceof Uint8Array) || bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let i = 2;
  while (i + 3 < bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1];
    if (marker === 0xff) { i++; continue; } // fill byte
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { i += 2; continue; }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image or scan before any frame header
    const len = (bytes[i + 2] << 8) | bytes[i + 3];
    if (len < 2) return null;
    const sof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (sof) {
      if (i + 9 >= bytes.length) return null;
      const height = (bytes[i + 5] << 8) | bytes[i + 6];
      const width = (bytes[i + 7] << 8) | bytes[i + 8];
      const components = bytes[i + 9];
      if (width === 0 || height === 0 || ![1, 3, 4].includes(components)) return null;
      return { width, height, components };
    }
    i += 2 + len;
  }
  return null;
}

// ------------------------------------------------------------------------------ the document

const FONT = { regular: 'F1', bold: 'F2' };

/**
 * A PDF document laid out from the top of each page down. Options: `title` (the document's
 * Info), `margin` (points, 40), `footer(pageNumber, pageCount)` → text drawn at the foot of each
 * page when the file is written.
 */
export class PdfDocument {
  constructor({ title = '', margin = 40, footer = null, size = A4 } = {}) {
    this.title = String(title ?? '');
    this.margin = margin;
    this.footer = footer;
    this.pageWidth = size.width;
    this.pageHeight = size.height;
    /** Per page: {ops: string[], image: {bytes, info} | null}. */
    this.pages = [];
    this.y = 0;
    this.addPage();
  }

  /** The width between the margins. */
  get contentWidth() {
    return this.pageWidth - 2 * this.margin;
  }

  /** The lowest `y` content may reach (room is kept for the footer). */
  get bottom() {
    return this.pageHeight - this.margin - (this.footer ? 14 : 0);
  }

  get page() {
    return this.pages[this.pages.length - 1];
  }

  /** Starts a new page; the cursor goes to its top margin. */
  addPage() {
    this.pages.push({ ops: [], image: null });
    this.y = this.margin;
    return this;
  }

  /** Whether the cursor is at the top of its page (nothing flowed onto it yet). */
  get atTop() {
    return this.y <= this.margin + 0.01;
  }

  /** Makes room for `height` points: a new page when they do not fit (unless the page is still empty). */
  ensure(height) {
    if (this.y + height > this.bottom && !this.atTop) this.addPage();
    return this;
  }

  /** Moves the cursor down `height` points (never past the page's end: a new page instead). */
  space(height) {
    if (this.y + height > this.bottom) this.addPage();
    else this.y += height;
    return this;
  }

  // -------------------------------------------------------------- drawing at a place on the page

  /** One line of text with its baseline at (`x`, `y`) from the page's top-left. */
  text(x, y, text, { size = 10, bold = false, color = null } = {}) {
    // the colour is part of the graphics state, which BT/ET do not save: q/Q keep it to this text
    this.page.ops.push(`q BT ${rgb(color ?? '#000000')} rg /${bold ? FONT.bold : FONT.regular} ${num(size)} Tf 1 0 0 1 ${num(x)} ${num(this.pageHeight - y)} Tm ${pdfString(text)} Tj ET Q`);
    return this;
  }

  /** A straight line. */
  line(x1, y1, x2, y2, { width = 0.5, color = '#000000' } = {}) {
    this.page.ops.push(`q ${rgb(color)} RG ${num(width)} w ${num(x1)} ${num(this.pageHeight - y1)} m ${num(x2)} ${num(this.pageHeight - y2)} l S Q`);
    return this;
  }

  /** A rectangle with its top-left corner at (`x`, `y`): filled, stroked or both. */
  rect(x, y, w, h, { fill = null, stroke = null, width = 0.5 } = {}) {
    if (!fill && !stroke) stroke = '#000000';
    const paint = fill && stroke ? 'B' : fill ? 'f' : 'S';
    this.page.ops.push(`q ${fill ? `${rgb(fill)} rg ` : ''}${stroke ? `${rgb(stroke)} RG ${num(width)} w ` : ''}${num(x)} ${num(this.pageHeight - y - h)} ${num(w)} ${num(h)} re ${paint} Q`);
    return this;
  }

  // -------------------------------------------------------------- flowing content

  /**
   * Text wrapped to the content width (less `indent`), line by line down the page, breaking
   * pages as needed. `keepWithNext` points below its first line must fit on the same page (a
   * heading kept with the first line of what follows).
   */
  paragraph(text, { size = 10, bold = false, color = null, indent = 0, lineHeight = 1.3, after = 2, keepWithNext = 0 } = {}) {
    const lead = size * lineHeight;
    const lines = wrapText(text, this.contentWidth - indent, size, bold);
    this.ensure(lead + keepWithNext);
    for (const line of lines) {
      this.ensure(lead);
      this.text(this.margin + indent, this.y + size, line, { size, bold, color });
      this.y += lead;
    }
    this.y += after;
    return this;
  }

  /**
   * A table: `columns` [{title, width (points), align: 'left'|'right'}], `rows` lists of cell
   * texts. A cell's text wraps within its column (at most `maxLines` lines, the last ending in
   * '…' when cut); a row is never split across pages, and the header row repeats on every page.
   * `rowFill(i)` → a background colour for row i (or null).
   */
  table(columns, rows, { size = 9, padding = 3, maxLines = 6, rowFill = null, headerFill = '#e9edf2', lineColor = '#c8ccd2' } = {}) {
    const lead = size * 1.25;
    const widths = columns.map((c) => c.width);
    const total = widths.reduce((a, w) => a + w, 0);
    const cells = (texts, bold) => columns.map((c, k) => {
      const inner = widths[k] - 2 * padding;
      let lines = wrapText(texts?.[k] ?? '', inner, size, bold);
      if (lines.length > maxLines) {
        lines = lines.slice(0, maxLines);
        let last = `${lines[maxLines - 1]}…`;
        while (textWidth(last, size, bold) > inner && last.length > 1) last = `${[...last].slice(0, -2).join('')}…`;
        lines[maxLines - 1] = last;
      }
      return lines;
    });
    const heightOf = (lines) => Math.max(...lines.map((l) => l.length)) * lead + 2 * padding;
    const draw = (lines, bold, fill) => {
      const h = heightOf(lines);
      const x0 = this.margin;
      if (fill) this.rect(x0, this.y, total, h, { fill });
      let x = x0;
      lines.forEach((cell, k) => {
        const c = columns[k];
        // one cell's lines are written one after another (a reader reading the stream in order gets the cell's text whole)
        cell.forEach((line, j) => {
          const w = textWidth(line, size, bold);
          const tx = c.align === 'right' ? x + widths[k] - padding - w : x + padding;
          this.text(tx, this.y + padding + j * lead + size * 0.85, line, { size, bold });
        });
        x += widths[k];
      });
      this.line(x0, this.y + h, x0 + total, this.y + h, { color: lineColor });
      this.y += h;
    };
    const header = cells(columns.map((c) => c.title), true);
    const drawHeader = () => draw(header, true, headerFill);
    const first = rows.length ? cells(rows[0], false) : null;
    this.ensure(heightOf(header) + (first ? heightOf(first) : 0));
    drawHeader();
    rows.forEach((row, i) => {
      const lines = i === 0 ? first : cells(row, false);
      if (this.y + heightOf(lines) > this.bottom) {
        this.addPage();
        drawHeader();
      }
      draw(lines, false, rowFill ? rowFill(i) : null);
    });
    return this;
  }

  /**
   * A JPEG (its bytes) at the cursor, `width` points wide (the content width by default) and at
   * most `maxHeight` high, keeping its proportions. One image a page: a second one starts a new
   * page. Throws on bytes that are not a JPEG (the caller decides what to draw instead).
   */
  image(bytes, { width = this.contentWidth, maxHeight = Infinity, after = 6 } = {}) {
    const info = jpegInfo(bytes);
    if (!info) throw new Error('not a JPEG image (baseline or progressive, 1, 3 or 4 components)');
    let w = Math.min(width, this.contentWidth);
    let h = (w * info.height) / info.width;
    const room = Math.min(maxHeight, this.bottom - this.margin);
    if (h > room) {
      w = (w * room) / h;
      h = room;
    }
    if (this.page.image) this.addPage();
    else this.ensure(h);
    this.page.image = { bytes, info };
    this.page.ops.push(`q ${num(w)} 0 0 ${num(h)} ${num(this.margin)} ${num(this.pageHeight - this.y - h)} cm /Im1 Do Q`);
    this.y += h + after;
    return this;
  }

  // -------------------------------------------------------------- the file

  /** The file's bytes: header, objects, cross-reference table, trailer. */
  toBytes() {
    const chunks = [];
    let length = 0;
    const offsets = [];
    const ascii = (s) => {
      const b = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 0xff;
      return b;
    };
    const put = (part) => {
      const b = typeof part === 'string' ? ascii(part) : part;
      chunks.push(b);
      length += b.length;
    };
    // object numbers: 1 catalog, 2 pages, 3–4 fonts, 5 info, then per page: page, contents, image?
    let next = 6;
    const layout = this.pages.map((p) => ({ page: next++, contents: next++, image: p.image ? next++ : 0 }));
    const count = this.pages.length;
    const obj = (n, body) => {
      offsets[n] = length;
      put(`${n} 0 obj\n`);
      for (const part of Array.isArray(body) ? body : [body]) put(part);
      put('\nendobj\n');
    };

    put('%PDF-1.4\n');
    put(new Uint8Array([0x25, 0xe2, 0xe3, 0xcf, 0xd3, 0x0a])); // a binary comment: the file holds binary data
    obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
    obj(2, `<< /Type /Pages /Count ${count} /Kids [${layout.map((l) => `${l.page} 0 R`).join(' ')}] >>`);
    obj(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
    obj(4, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
    obj(5, `<< /Producer (dispatchkit)${this.title ? ` /Title ${pdfString(this.title)}` : ''} >>`);
    this.pages.forEach((p, i) => {
      const l = layout[i];
      const ops = [...p.ops];
      if (this.footer) {
        const text = String(this.footer(i + 1, count) ?? '');
        if (text) ops.push(`q BT 0.4 0.4 0.4 rg /${FONT.regular} 8 Tf 1 0 0 1 ${num(this.margin)} ${num(this.margin - 12)} Tm ${pdfString(text)} Tj ET Q`);
      }
      const xobject = l.image ? ` /XObject << /Im1 ${l.image} 0 R >>` : '';
      obj(l.page, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${num(this.pageWidth)} ${num(this.pageHeight)}] /Resources << /ProcSet [/PDF /Text${l.image ? ' /ImageB /ImageC' : ''}] /Font << /F1 3 0 R /F2 4 0 R >>${xobject} >> /Contents ${l.contents} 0 R >>`);
      const content = ops.join('\n');
      obj(l.contents, [`<< /Length ${content.length} >>\nstream\n`, content, '\nendstream']);
      if (l.image) {
        const { bytes, info } = p.image;
        const space = info.components === 1 ? '/DeviceGray' : info.components === 4 ? '/DeviceCMYK' : '/DeviceRGB';
        obj(l.image, [
          `<< /Type /XObject /Subtype /Image /Width ${info.width} /Height ${info.height} /ColorSpace ${space} /BitsPerComponent 8 /Filter /DCTDecode /Length ${bytes.length} >>\nstream\n`,
          bytes, '\nendstream',
        ]);
      }
    });
    const size = next;
    const xref = length;
    let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
    for (let n = 1; n < size; n++) table += `${String(offsets[n]).padStart(10, '0')} 00000 n \n`;
    put(table);
    put(`trailer\n<< /Size ${size} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${xref}\n%%EOF\n`);

    const out = new Uint8Array(length);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
