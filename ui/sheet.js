// The driver sheet of one route (issue #25 item 6): the vehicle, the date and the route's totals,
// the stops in order (ETA, window, service time, weight, load), the route's map and its
// turn-by-turn directions in a chosen culture. On screen an overlay dialog; printed, the only
// thing on the paper (ui/sheet.css); downloaded, a PDF of the same data (ui/pdf.js).
//
// The directions and the map come from one CalculateRoute through the route's places in order
// (the call of the route list's "Directions", plus a MapSize: the server draws the map, an SVG
// data URL shown as an <img>); another culture asks again for the directions alone.
import * as api from './api.js';
import { clock, distance, duration, h, num } from './format.js';
import { download } from './plan.js';
import { PdfDocument } from './pdf.js';

/** The cultures of the directions' message catalogs (src/route/text/), with their own names. */
export const CULTURES = [
  ['en-US', 'English'], ['de-DE', 'Deutsch'], ['fr-FR', 'Français'], ['es-ES', 'Español'], ['it-IT', 'Italiano'],
];

/** The map asked of CalculateRoute, in pixels (16:9; drawn at twice the size for the PDF). */
const MAP_SIZE = { Width: 800, Height: 450 };

/**
 * The culture of the sheet for a tag such as navigator.language: one of {@link CULTURES}, exact
 * or of the same language ("de-AT" → de-DE), else en-US.
 */
export function cultureOf(tag) {
  const t = String(tag ?? '').trim().replace(/_/g, '-').toLowerCase();
  const exact = CULTURES.find(([c]) => c.toLowerCase() === t);
  if (exact) return exact[0];
  const lang = /^([a-z]{2,3})(?:-|$)/.exec(t)?.[1];
  return CULTURES.find(([c]) => c.slice(0, 2) === lang)?.[0] ?? 'en-US';
}

const dateOf = (t) => (typeof t === 'string' && /^\d{4}-\d\d-\d\d/.test(t) && !t.startsWith('0001-') ? t.slice(0, 10) : '');

/** A window as "09:00–12:00" ("09:00–" or "–12:00" with one bound), '' without one. */
function windowText(from, to) {
  const a = clock(from);
  const b = clock(to);
  return a || b ? `${a}–${b}` : '';
}

/** An Address on one line. */
function addressText(a) {
  if (!a || typeof a !== 'object') return '';
  const city = [a.PostalCode, a.City].filter(Boolean).join(' ');
  return [a.Street, city, a.State, a.Country].filter((x) => x !== undefined && x !== null && String(x).trim() !== '').join(', ');
}

/**
 * What the sheet shows of `route` (a route of ui/plan.js `makePlan`), the same for the page and
 * the PDF: {vehicle, date, summary, hasAddress, rows: [{number, visit, end, name, address, eta,
 * window, service, weight, load}]}. `number` is the place's number on the route — the start is 1
 * — as CalculateRoute numbers the map's markers and the directions' "arrived at stop N" (`visit`
 * is the plan's count of stops, the route list's #). `load` is the plan's load after the stop
 * (the weight of the stops served so far, the route table's Σ Weight); a second window
 * (…Arrival2/…Departure2) follows the first.
 */
export function sheetModel(plan, route) {
  const first = route.rows[0]?.location;
  let placed = 0;
  const rows = route.rows.map(({ location: l, end, visit, load }, k) => ({
    number: l.LatLong ? String(++placed) : '', visit, end,
    name: l.Name ?? (end ? (k === 0 ? 'Start' : 'Finish') : `Stop ${visit}`),
    address: addressText(l.Address),
    eta: clock(l.TimeEstimatedArrival),
    window: [windowText(l.TimeConstraintArrival, l.TimeConstraintDeparture), windowText(l.TimeConstraintArrival2, l.TimeConstraintDeparture2)].filter(Boolean).join(', '),
    service: l.Wait > 0 ? duration(l.Wait) : '',
    weight: l.Weight ? num(l.Weight) : '',
    load: end ? '' : num(load),
  }));
  const loadText = route.capacity > 0 ? `load ${num(route.weight)} / ${num(route.capacity)}` : `load ${num(route.weight)}`;
  const summary = [
    `${route.stops} stop${route.stops === 1 ? '' : 's'}`, distance(route.distance, plan.unit), `${duration(route.time)} driving`, loadText,
    route.start ? `${clock(route.start)}–${clock(route.end)}` : null,
  ].filter(Boolean);
  return {
    vehicle: route.vehicle,
    date: dateOf(first?.TimeEstimatedArrival) || dateOf(route.spec?.Tin) || dateOf(plan.specification.CurrentTime),
    summary, rows, hasAddress: rows.some((r) => r.address !== ''), unit: plan.unit,
  };
}

/** '#rrggbb' or '#rgb' as a RouteColor (ARGB); undefined for anything else. */
function routeColor(color) {
  const m = typeof color === 'string' ? /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color) : null;
  if (!m) return undefined;
  const hex = m[1].length === 3 ? [...m[1]].map((d) => d + d).join('') : m[1];
  return { A: 220, R: parseInt(hex.slice(0, 2), 16), G: parseInt(hex.slice(2, 4), 16), B: parseInt(hex.slice(4, 6), 16) };
}

/**
 * The route's directions in `culture` (and its map with `withMap`): one CalculateRoute through
 * the route's places in order. {culture, legs: [{from, to, distance, time, steps: [{text,
 * distance, warnings}]}], map (a data URL or null), notes (the answer's Errors when it fell back)}.
 */
async function fetchDirections(plan, route, culture, withMap) {
  const locations = route.rows.map(({ location: l }) => ({ Name: l.Name, LatLong: l.LatLong })).filter((l) => l.LatLong);
  if (locations.length < 2) return { culture, legs: [], map: null, notes: [] };
  const RouteOptions = { Culture: culture, DistanceUnit: plan.unit, RouteOptimize: plan.specification.RouteOptimize ?? 'MinimizeTime' };
  if (withMap) Object.assign(RouteOptions, { MapSize: { ...MAP_SIZE }, RouteColor: routeColor(route.color) });
  const res = await api.operation('route', { Locations: locations, RouteOptions });
  if (res.Status === 'Failed') throw new Error(res.Errors?.[0]?.Message ?? 'CalculateRoute failed.');
  const legs = (res.Route?.RouteLegs ?? []).map((leg, k) => ({
    from: locations[k]?.Name ?? `Stop ${k}`, to: locations[k + 1]?.Name ?? `Stop ${k + 1}`,
    distance: leg.Distance ?? 0, time: leg.Time ?? 0,
    steps: (leg.Itinerary?.Items ?? []).map((it) => ({
      text: it.Text ?? '', distance: it.Distance ?? 0, warnings: (it.Warnings ?? []).map((w) => w.Text).filter(Boolean),
    })),
  }));
  return { culture, legs, map: typeof res.Route?.Map === 'string' ? res.Route.Map : null, notes: (res.Errors ?? []).map((e) => e.Message).filter(Boolean) };
}

// ------------------------------------------------------------------------------ the dialog

/** The open sheet: {el, restore (the element focused before), …}, or null. */
let open = null;

/**
 * Opens the driver sheet of `route` (of `plan`, both from ui/plan.js `makePlan`) with its
 * directions in `culture` (see {@link cultureOf}); an open sheet is replaced.
 */
export function openSheet(plan, route, { culture } = {}) {
  const restore = open?.restore ?? document.activeElement;
  if (open) closeSheet({ restoreFocus: false });
  const model = sheetModel(plan, route);
  const state = {
    plan, route, model, restore, seq: 0, directions: null, pending: null,
    culture: cultureOf(culture),
  };

  const select = h('select', { id: 'sheet-culture', 'data-testid': 'sheet-culture' },
    CULTURES.map(([c, name]) => h('option', { value: c }, `${name} (${c})`)));
  select.value = state.culture;
  select.addEventListener('change', () => load(state, select.value, false));
  const pdfButton = h('button', { type: 'button', 'data-testid': 'sheet-pdf' }, 'Download PDF');
  pdfButton.addEventListener('click', () => downloadPdf(state, pdfButton));
  const closeButton = h('button', { type: 'button', class: 'sheet-close', 'data-testid': 'sheet-close' }, 'Close');
  closeButton.addEventListener('click', () => closeSheet());

  state.img = h('img', { class: 'sheet-map-image', 'data-testid': 'sheet-map', alt: `Map of the route of ${model.vehicle}`, hidden: true });
  state.img.addEventListener('load', () => { state.img.hidden = false; state.mapNote.hidden = true; state.el.dataset.map = 'ready'; });
  state.img.addEventListener('error', () => { state.mapNote.textContent = 'The map could not be shown.'; state.el.dataset.map = 'failed'; });
  state.mapNote = h('p', { class: 'muted sheet-map-note' }, 'Drawing the map…');
  state.directionsEl = h('div', { class: 'sheet-directions-body', 'data-testid': 'sheet-directions' });

  const paper = h('div', { class: 'sheet-paper' },
    h('div', { class: 'sheet-toolbar' },
      h('label', {}, 'Directions in ', select),
      state.status = h('span', { class: 'sheet-status error', role: 'alert' }),
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', 'data-testid': 'sheet-print', onclick: () => window.print() }, 'Print'),
      pdfButton, closeButton),
    h('header', { class: 'sheet-head' },
      h('h2', { id: 'sheet-title' }, `Driver sheet · ${model.vehicle}`),
      h('p', { class: 'sheet-meta' }, [model.date, ...model.summary].filter(Boolean).join(' · '))),
    h('figure', { class: 'sheet-map' }, state.img, state.mapNote),
    stopsTable(model),
    h('section', { class: 'sheet-directions', 'aria-labelledby': 'sheet-directions-title' },
      h('h3', { id: 'sheet-directions-title' }, 'Directions'), state.directionsEl));
  state.el = h('div', {
    id: 'sheet', class: 'sheet-overlay', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'sheet-title',
    tabindex: '-1', 'data-testid': 'sheet', dataset: { vehicle: model.vehicle, directions: 'loading', map: 'loading' },
  }, paper);
  // on the document: the focus may have left the dialog (a click on its text, a button gone)
  state.onKey = (e) => onKey(e, state);
  document.addEventListener('keydown', state.onKey);
  // a click on the shade around the paper closes it
  state.el.addEventListener('click', (e) => { if (e.target === state.el) closeSheet(); });
  document.body.append(state.el);
  open = state;
  closeButton.focus();
  load(state, state.culture, true);
}

/** Closes the open sheet (if any) and gives the focus back to where it was. */
export function closeSheet({ restoreFocus = true } = {}) {
  if (!open) return;
  const { el, restore, onKey: keyHandler } = open;
  open.seq++; // answers still on their way are dropped
  open = null;
  document.removeEventListener('keydown', keyHandler);
  el.remove();
  if (restoreFocus && restore && restore.isConnected && typeof restore.focus === 'function') restore.focus();
}

/** Escape closes; Tab stays within the dialog. */
function onKey(e, state) {
  if (e.defaultPrevented) return;
  if (e.key === 'Escape') {
    e.preventDefault();
    e.stopPropagation();
    closeSheet();
    return;
  }
  if (e.key !== 'Tab') return;
  const focusable = [...state.el.querySelectorAll('button, select, [href], input, [tabindex]:not([tabindex="-1"])')].filter((x) => !x.disabled && x.offsetParent !== null);
  if (focusable.length === 0) return;
  const firstEl = focusable[0];
  const lastEl = focusable[focusable.length - 1];
  if (!state.el.contains(document.activeElement)) {
    e.preventDefault();
    (e.shiftKey ? lastEl : firstEl).focus();
  } else if (e.shiftKey && (document.activeElement === firstEl || document.activeElement === state.el)) {
    e.preventDefault();
    lastEl.focus();
  } else if (!e.shiftKey && document.activeElement === lastEl) {
    e.preventDefault();
    firstEl.focus();
  }
}

const TITLES = {
  '#': 'The place\'s number on the route (the start is 1), as on the map and in the directions',
  Window: 'When the stop may be served (TimeConstraintArrival–TimeConstraintDeparture)',
  Service: 'Time spent at the stop',
  Load: 'Weight of the stops served so far, after this stop',
};

function stopsTable(model) {
  const head = ['#', 'Stop', model.hasAddress ? 'Address' : null, 'ETA', 'Window', 'Service', 'Weight', 'Load'].filter(Boolean);
  return h('table', { class: 'sheet-stops', 'data-testid': 'sheet-stops' },
    h('thead', {}, h('tr', {}, head.map((t) => h('th', { scope: 'col', title: TITLES[t] }, t)))),
    h('tbody', {}, model.rows.map((r) => h('tr', { class: r.end ? 'end' : undefined },
      h('td', { class: 'num' }, r.number),
      h('td', { class: 'sheet-stop-name' }, r.name),
      model.hasAddress ? h('td', {}, r.address) : null,
      h('td', { class: 'sheet-eta' }, r.eta),
      h('td', {}, r.window),
      h('td', { class: 'num' }, r.service),
      h('td', { class: 'num' }, r.weight),
      h('td', { class: 'num' }, r.load)))));
}

/** Asks for the directions in `culture` (and the map the first time) and shows them. */
async function load(state, culture, withMap) {
  const seq = ++state.seq;
  state.culture = culture;
  state.el.dataset.directions = 'loading';
  state.directionsEl.replaceChildren(h('p', { class: 'muted' }, 'Routing…'));
  const pending = fetchDirections(state.plan, state.route, culture, withMap);
  state.pending = pending;
  try {
    const d = await pending;
    if (seq !== state.seq) return;
    state.directions = d;
    if (withMap) {
      if (d.map) state.img.src = d.map;
      else {
        state.mapNote.textContent = 'No map: this route has no leg to drive.';
        state.el.dataset.map = 'none';
      }
    }
    state.directionsEl.replaceChildren(directionsList(d, state.model.unit));
    state.el.dataset.culture = d.culture;
    state.el.dataset.directions = 'ready';
  } catch (e) {
    if (seq !== state.seq) return;
    state.directions = null;
    if (withMap) {
      state.mapNote.textContent = 'No map: the route could not be calculated.';
      state.el.dataset.map = 'failed';
    }
    state.directionsEl.replaceChildren(h('p', { class: 'error', role: 'alert' }, `Directions: ${e.message}`));
    state.el.dataset.directions = 'failed';
  }
}

function directionsList(d, unit) {
  if (d.legs.length === 0) return h('p', { class: 'muted' }, 'This route has no leg to drive.');
  return h('div', {},
    d.notes.length ? h('p', { class: 'muted' }, d.notes.join(' ')) : null,
    h('ol', { class: 'sheet-legs' }, d.legs.map((leg) => h('li', { class: 'sheet-leg' },
      h('h4', {}, `${leg.from} → ${leg.to}`, h('span', { class: 'muted' }, ` ${distance(leg.distance, unit)} · ${duration(leg.time)}`)),
      h('ol', { class: 'sheet-steps' }, leg.steps.map((s) => h('li', {},
        s.text, s.distance > 0 ? h('span', { class: 'muted' }, ` ${distance(s.distance, unit)}`) : null,
        s.warnings.map((w) => h('span', { class: 'warning' }, ` ${w}`)))))))));
}

// ------------------------------------------------------------------------------ the PDF

/** File names keep to characters every file system takes. */
const fileSafe = (s) => String(s).replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '_').trim() || 'vehicle';

/**
 * Builds the sheet's PDF (waiting for directions still on their way) and downloads
 * `<vehicle>-sheet.pdf`. The button stays enabled (a disabled button would lose the focus) and
 * says it is busy; a second click meanwhile does nothing.
 */
async function downloadPdf(state, button) {
  if (state.building) return;
  state.building = true;
  button.setAttribute('aria-busy', 'true');
  try {
    await state.pending?.catch(() => {});
    const jpeg = await mapJpeg(state.img).catch(() => null);
    const bytes = sheetPdf(state.model, state.directions, jpeg);
    download(`${fileSafe(state.model.vehicle)}-sheet.pdf`, 'application/pdf', bytes);
    state.status.textContent = '';
  } catch (e) {
    state.status.textContent = `PDF: ${e.message}`;
  } finally {
    state.building = false;
    button.removeAttribute('aria-busy');
  }
}

/** The map <img> as JPEG bytes (drawn on a canvas at twice its size, on white), or null without a map. */
async function mapJpeg(img) {
  if (!img.getAttribute('src')) return null;
  if (!img.complete || img.naturalWidth === 0) await img.decode();
  const scale = 2;
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth * scale;
  canvas.height = img.naturalHeight * scale;
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.drawImage(img, 0, 0, canvas.width, canvas.height);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.85));
  return blob ? new Uint8Array(await blob.arrayBuffer()) : null;
}

/**
 * The sheet as a PDF (bytes): the same model as the page's sheet, the directions (or a note
 * without them) and the map (JPEG bytes, or none). Pure: no DOM.
 */
export function sheetPdf(model, directions, jpeg) {
  const title = `Driver sheet · ${model.vehicle}`;
  const doc = new PdfDocument({ title, footer: (i, n) => `${model.vehicle}${model.date ? ` · ${model.date}` : ''} · page ${i} of ${n}` });
  doc.paragraph(title, { size: 16, bold: true, after: 2 });
  doc.paragraph([model.date, ...model.summary].filter(Boolean).join(' · '), { size: 10, color: '#555555', after: 8 });
  if (jpeg) {
    try {
      doc.image(jpeg, { maxHeight: 290, after: 10 });
    } catch {
      doc.paragraph('(The map could not be included.)', { size: 9, color: '#777777', after: 8 });
    }
  }
  const w = doc.contentWidth;
  const columns = [
    { title: '#', width: 24, align: 'right' },
    { title: 'Stop', width: 0 },
    ...(model.hasAddress ? [{ title: 'Address', width: 110 }] : []),
    { title: 'ETA', width: 34 },
    { title: 'Window', width: 66 },
    { title: 'Service', width: 50, align: 'right' },
    { title: 'Weight', width: 44, align: 'right' },
    { title: 'Load', width: 40, align: 'right' },
  ];
  columns[1].width = w - columns.reduce((a, c) => a + c.width, 0);
  doc.table(columns, model.rows.map((r) => [
    r.number, r.name, ...(model.hasAddress ? [r.address] : []),
    r.eta, r.window, r.service, r.weight, r.load,
  ]), { rowFill: (i) => (model.rows[i].end ? '#f2f3f5' : null) });
  doc.space(14);
  doc.paragraph(directions ? `Directions (${directions.culture})` : 'Directions', { size: 13, bold: true, after: 4, keepWithNext: 30 });
  if (!directions) doc.paragraph('The directions could not be calculated.', { size: 10 });
  else if (directions.legs.length === 0) doc.paragraph('This route has no leg to drive.', { size: 10 });
  else {
    directions.legs.forEach((leg, k) => {
      doc.paragraph(`${k + 1}. ${leg.from} → ${leg.to} · ${distance(leg.distance, model.unit)} · ${duration(leg.time)}`, { size: 10.5, bold: true, after: 3, keepWithNext: 14 });
      leg.steps.forEach((s, j) => {
        doc.paragraph(`${j + 1}. ${s.text}${s.distance > 0 ? ` (${distance(s.distance, model.unit)})` : ''}`, { size: 9.5, indent: 14, after: 1 });
        for (const warning of s.warnings) doc.paragraph(`! ${warning}`, { size: 9, indent: 26, color: '#a15c00', after: 1 });
      });
      doc.space(6);
    });
  }
  return doc.toBytes();
}
