// Small helpers for text on the page.

/** An element with attributes and children (strings become text: never parsed as HTML). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

const nf1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const nf2 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 });
const nfInt = new Intl.NumberFormat('en-US');

export const int = (x) => nfInt.format(Math.round(x));
export const num = (x) => (Number.isInteger(x) ? nfInt.format(x) : nf1.format(x));

/** A distance in the dispatch's unit. */
export function distance(x, unit) {
  return `${x < 10 ? nf2.format(x) : nf1.format(x)} ${unit === 'Mile' ? 'mi' : 'km'}`;
}

/** Seconds as "1 h 05 min", "7 min 20 s" or "40 s". */
export function duration(s) {
  s = Math.round(s);
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min`;
  if (minutes > 0) return `${minutes} min ${String(s % 60).padStart(2, '0')} s`;
  return `${s} s`;
}

/** The clock time of a record dateTime ("2026-12-01T09:03:35" → "09:03"), '' when unset. */
export function clock(dateTime) {
  if (!dateTime || dateTime.startsWith('0001-')) return '';
  const m = /T(\d\d:\d\d)/.exec(dateTime);
  return m ? m[1] : dateTime;
}

/** Today as YYYY-MM-DD (local). */
export function today() {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * The text colour for a label on `background` (a #rrggbb colour): white where it has a contrast of
 * at least 4.5:1 (WCAG AA for small text), else near-black.
 */
export function inkOn(background) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(String(background ?? ''));
  if (!m) return '#fff';
  const lin = (c) => { const x = parseInt(c, 16) / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  const L = 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
  return 1.05 / (L + 0.05) >= 4.5 ? '#fff' : '#111';
}
