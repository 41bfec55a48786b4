/**
 * Offline route maps as SVG: a web-mercator view (256-px tile convention) with the road graph as
 * backdrop, route polylines, numbered markers, a scale bar and the attribution.
 *
 * The backdrop reads the graph through its road box index (graph/road-index.ts: a Flatbush R-tree
 * over the edges' web-mercator boxes, persisted in the dataset; built once per graph when it has
 * none). A render searches the view's box, keeps the edges of the classes drawn at that zoom, and
 * writes one `<path>` per road style with relative moves rounded to 0.1 px, dropping points closer
 * than 1 px to the last kept one and chaining edges that continue each other. The output is a pure function of its
 * input (same input → same bytes) and has no external references.
 */
import { isValidLatLon, MERCATOR_MAX_LAT as MAX_LAT, mercatorX as mercX, mercatorY as mercY } from '../core/geo.js';
import type { RoadGraph } from '../graph/road-graph.js';
import { RoadBoxIndex } from '../graph/road-index.js';
import { HighwayClass } from '../osm/car-profile.js';

export interface ArgbColor {
  /** 0..255 each. */
  a: number;
  r: number;
  g: number;
  b: number;
}

export interface MapRoute {
  lat: ArrayLike<number>;
  lon: ArrayLike<number>;
  color: ArgbColor;
}

export interface MapMarker {
  lat: number;
  lon: number;
  label: string;
}

export interface MapOptions {
  width: number;
  height: number;
  /** View centre; without `zoom`, the zoom fits the routes and markers around this centre. */
  center?: { lat: number; lon: number };
  /** Web-mercator zoom 1..20 (fractions allowed); 0 / undefined = fit the routes and markers. */
  zoom?: number;
  /** Drawn in array order (later on top). */
  routes: MapRoute[];
  /** Numbered circles, drawn on top of everything but the scale bar and attribution. */
  markers?: MapMarker[];
  /** Margin kept free around the fitted content, in px (default 24). */
  marginPx?: number;
  /** Attribution text, bottom right (default "© OpenStreetMap contributors"). */
  attribution?: string;
  /** Units of the scale bar (default metric: m / km; imperial: ft / mi). */
  scaleUnit?: 'metric' | 'imperial';
}

export const MAX_MAP_SIDE = 4096;
export const MAX_MAP_PIXELS = 8_388_608;

/** Fit zoom for a single point, and the largest fitted zoom. */
const SINGLE_POINT_ZOOM = 16;
const MAX_FIT_ZOOM = 18;
const MAX_ZOOM = 20;
const DEFAULT_MARGIN = 24;
const DEFAULT_ATTRIBUTION = '© OpenStreetMap contributors';
const EARTH_CIRCUMFERENCE_M = 2 * Math.PI * 6378137;
const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';
const BACKGROUND = '#f2efe9';

/**
 * `null` when `width` × `height` is an acceptable map size, else the message saying why not
 * (the operation layer turns it into its error).
 */
export function checkMapSize(width: number, height: number): string | null {
  const size = `MapSize ${width}×${height}`;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    return `${size} is invalid: width and height must be whole numbers of pixels, at least 1`;
  }
  if (width > MAX_MAP_SIDE || height > MAX_MAP_SIDE || width * height > MAX_MAP_PIXELS) {
    return `${size} is too large: at most ${MAX_MAP_SIDE} px a side and ${MAX_MAP_PIXELS} pixels`;
  }
  return null;
}

/** `data:image/svg+xml;base64,…` for an SVG string (UTF-8). */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

// ---------------------------------------------------------------------------------------------
// Web mercator, normalised to 0..1 (x east, y south); a pixel at zoom z is 256·2^z of these.

function latOfMercY(y: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;
}

/** The view a map is drawn in. */
export interface MapView {
  width: number;
  height: number;
  zoom: number;
  center: { lat: number; lon: number };
  /** Ground metres per pixel at the centre latitude. */
  metresPerPixel: number;
  /** Map pixel (x right, y down; may lie outside the map) of a coordinate. */
  toPixel(lat: number, lon: number): { x: number; y: number };
}

interface ViewParams {
  width: number;
  height: number;
  zoom: number;
  /** Pixels per normalised unit (256·2^zoom). */
  scale: number;
  /** Normalised coordinates of the centre. */
  cx: number;
  cy: number;
  /** Pixel origin: pixel = normalised · scale − origin. */
  ox: number;
  oy: number;
}

function viewParams(opts: MapOptions): ViewParams {
  const { width, height } = opts;
  const bad = checkMapSize(width, height);
  if (bad) throw new RangeError(bad);
  if (opts.zoom !== undefined && !(Number.isFinite(opts.zoom) && opts.zoom >= 0 && opts.zoom <= MAX_ZOOM)) {
    throw new RangeError(`Map zoom ${opts.zoom} is out of range: 1 to ${MAX_ZOOM}, or 0 to fit the routes and stops`);
  }
  if (opts.center && !isValidLatLon(opts.center.lat, opts.center.lon)) {
    throw new RangeError(`Map centre ${opts.center.lat}, ${opts.center.lon} is not a valid latitude, longitude`);
  }
  const margin = Math.max(0, opts.marginPx ?? DEFAULT_MARGIN);
  // Bounds of everything to fit, normalised.
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const add = (lat: number, lon: number) => {
    if (!Number.isFinite(lat) || !Number.isFinite(lon)) return;
    const x = mercX(lon);
    const y = mercY(lat);
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  };
  for (const r of opts.routes) {
    const n = Math.min(r.lat.length, r.lon.length);
    for (let i = 0; i < n; i++) add(r.lat[i], r.lon[i]);
  }
  for (const m of opts.markers ?? []) add(m.lat, m.lon);
  const empty = x0 > x1;

  let cx: number, cy: number;
  if (opts.center) {
    cx = mercX(opts.center.lon);
    cy = mercY(opts.center.lat);
  } else if (!empty) {
    cx = (x0 + x1) / 2;
    cy = (y0 + y1) / 2;
  } else {
    cx = 0.5;
    cy = 0.5;
  }
  let zoom = opts.zoom ?? 0;
  if (zoom === 0) {
    if (empty) {
      zoom = Math.max(0, Math.log2(Math.min(width, height) / 256));
    } else {
      // Extents around the centre (symmetric when the centre is given).
      const dx = opts.center ? 2 * Math.max(Math.abs(x0 - cx), Math.abs(x1 - cx)) : x1 - x0;
      const dy = opts.center ? 2 * Math.max(Math.abs(y0 - cy), Math.abs(y1 - cy)) : y1 - y0;
      if (dx <= 0 && dy <= 0) {
        zoom = SINGLE_POINT_ZOOM;
      } else {
        const aw = Math.max(1, width - 2 * margin);
        const ah = Math.max(1, height - 2 * margin);
        const zx = dx > 0 ? Math.log2(aw / (dx * 256)) : Infinity;
        const zy = dy > 0 ? Math.log2(ah / (dy * 256)) : Infinity;
        zoom = Math.min(MAX_FIT_ZOOM, Math.max(0, Math.min(zx, zy)));
      }
    }
  }
  const scale = 256 * 2 ** zoom;
  return { width, height, zoom, scale, cx, cy, ox: cx * scale - width / 2, oy: cy * scale - height / 2 };
}

function metresPerPixel(v: ViewParams): number {
  return (Math.cos((latOfMercY(v.cy) * Math.PI) / 180) * EARTH_CIRCUMFERENCE_M) / v.scale;
}

/** The view `renderMapSvg` draws for these options (zoom, centre, projection). */
export function mapView(opts: MapOptions): MapView {
  const v = viewParams(opts);
  return {
    width: v.width,
    height: v.height,
    zoom: v.zoom,
    center: { lat: latOfMercY(v.cy), lon: v.cx * 360 - 180 },
    metresPerPixel: metresPerPixel(v),
    toPixel: (lat, lon) => ({ x: mercX(lon) * v.scale - v.ox, y: mercY(lat) * v.scale - v.oy }),
  };
}

// ---------------------------------------------------------------------------------------------
// Road styles

interface RoadStyle {
  classes: readonly number[];
  /** Drawn from this zoom on. */
  minZoom: number;
  color: string;
  width: number;
  dash?: string;
}

const C = HighwayClass;
/** In drawing order: minor roads first. */
const ROAD_STYLES: readonly RoadStyle[] = [
  { classes: [C.service, C.living_street], minZoom: 14.5, color: '#d3d0cb', width: 1 },
  { classes: [C.residential, C.unclassified, C.road], minZoom: 13.5, color: '#c2beb7', width: 1.6 },
  { classes: [C.tertiary, C.tertiary_link], minZoom: 12, color: '#b3ab9c', width: 2.2 },
  { classes: [C.secondary, C.secondary_link], minZoom: 9, color: '#e6cf6e', width: 2.8 },
  { classes: [C.primary, C.primary_link], minZoom: 7, color: '#f0a85a', width: 3.4 },
  { classes: [C.trunk, C.trunk_link], minZoom: 5, color: '#e8794f', width: 4 },
  { classes: [C.motorway, C.motorway_link], minZoom: 0, color: '#d9576f', width: 4.6 },
  { classes: [C.ferry, C.shuttle_train], minZoom: 8, color: '#4a7fd0', width: 1.6, dash: '6 4' },
];
/** Class number → style index. */
const STYLE_OF_CLASS = new Int8Array(256).fill(-1);
ROAD_STYLES.forEach((s, i) => s.classes.forEach((c) => (STYLE_OF_CLASS[c] = i)));

function roadWidthFactor(zoom: number): number {
  return Math.min(1.5, Math.max(0.5, 0.5 + (zoom - 12) * 0.2));
}

// ---------------------------------------------------------------------------------------------
// Per-graph drawing data: the edges' index and the render's scratch

interface EdgeScratch {
  /** The edges by web-mercator box. */
  index: RoadBoxIndex;
  /** Normalised mercator y of every geometry point (computed once per graph and thread). */
  pointY: Float64Array;
  /** Selection marks (style + 1) per edge, all zero between renders. */
  mark: Uint8Array;
  /** Selected edge ids. */
  sel: Uint32Array;
  sorted: Uint32Array;
}

const scratches = new WeakMap<RoadGraph, EdgeScratch>();

function edgeScratch(g: RoadGraph): EdgeScratch {
  let s = scratches.get(g);
  if (!s) {
    const la = g.geomLat;
    const pointY = new Float64Array(la.length);
    for (let i = 0; i < la.length; i++) pointY[i] = mercY(la[i]);
    const E = g.numEdges;
    s = { index: RoadBoxIndex.of(g), pointY, mark: new Uint8Array(E), sel: new Uint32Array(E), sorted: new Uint32Array(E) };
    scratches.set(g, s);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Compact path data

/** Integer tenths of a pixel → shortest decimal text ("12.3", ".5", "-4"). */
function num(t: number): string {
  const a = t < 0 ? -t : t;
  const i = Math.floor(a / 10);
  const f = a - i * 10;
  const s = f === 0 ? String(i) : i === 0 ? '.' + f : i + '.' + f;
  return t < 0 ? '-' + s : s;
}

/**
 * Builds path data from polylines given point by point in tenths of a pixel: drops segments
 * wholly outside the (padded) view, points closer than `minDist` to the last kept one, and
 * continues the current subpath when a polyline starts where the last one ended.
 */
class PathBuilder {
  d = '';
  private open = false;
  private needL = false;
  private sep = false;
  /** Last emitted point. */
  private penX = 0;
  private penY = 0;
  /** Previous input point, its outcode, and whether it was dropped. */
  private prevX = 0;
  private prevY = 0;
  private prevOut = 0;
  private prevSkipped = false;
  private first = true;

  constructor(
    private readonly x0: number,
    private readonly y0: number,
    private readonly x1: number,
    private readonly y1: number,
    private readonly minDist2: number,
  ) {}

  begin(): void {
    this.first = true;
  }

  point(x: number, y: number): void {
    const out = (x < this.x0 ? 1 : x > this.x1 ? 2 : 0) | (y < this.y0 ? 4 : y > this.y1 ? 8 : 0);
    if (this.first) {
      this.first = false;
      if (this.open && (x !== this.penX || y !== this.penY)) this.open = false;
      this.prevX = x;
      this.prevY = y;
      this.prevOut = out;
      this.prevSkipped = false;
      return;
    }
    if ((out & this.prevOut) !== 0) {
      // Segment wholly on one outer side: not drawn.
      if (this.open && this.prevSkipped) this.emit(this.prevX, this.prevY);
      this.open = false;
    } else {
      if (!this.open) {
        this.d += 'M' + num(this.prevX) + (this.prevY < 0 ? '' : ' ') + num(this.prevY);
        this.penX = this.prevX;
        this.penY = this.prevY;
        this.open = true;
        this.needL = true;
      }
      const dx = x - this.penX;
      const dy = y - this.penY;
      if (dx * dx + dy * dy < this.minDist2) {
        this.prevSkipped = true;
      } else {
        this.emit(x, y);
        this.prevSkipped = false;
      }
    }
    this.prevX = x;
    this.prevY = y;
    this.prevOut = out;
  }

  /** Ends a polyline (its last point is kept even when close to the one before). */
  end(): void {
    if (this.open && this.prevSkipped) {
      this.emit(this.prevX, this.prevY);
      this.prevSkipped = false;
    }
  }

  /** Starts a new subpath for the next polyline even if it continues this one. */
  cut(): void {
    this.open = false;
  }

  private emit(x: number, y: number): void {
    const dx = x - this.penX;
    const dy = y - this.penY;
    if (dx === 0 && dy === 0) return;
    let s: string;
    if (this.needL) {
      s = 'l';
      this.needL = false;
      this.sep = false;
    } else {
      s = '';
    }
    if (this.sep && dx >= 0) s += ' ';
    s += num(dx);
    if (dy >= 0) s += ' ';
    s += num(dy);
    this.d += s;
    this.sep = true;
    this.penX = x;
    this.penY = y;
  }
}

// ---------------------------------------------------------------------------------------------
// Text

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text safe inside an XML element or attribute (characters XML 1.0 forbids become U+FFFD). */
function xmlText(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}

/** Fixed short decimal text for attribute values (deterministic, no exponent). */
function fx(v: number, digits = 1): string {
  const s = v.toFixed(digits);
  return s.includes('.') ? s.replace(/\.?0+$/, '') || '0' : s;
}

function hex2(v: number): string {
  const c = Math.max(0, Math.min(255, Math.round(Number.isFinite(v) ? v : 0)));
  return c.toString(16).padStart(2, '0');
}

function colorAttrs(c: ArgbColor, what: 'stroke' | 'fill'): string {
  const a = Math.max(0, Math.min(255, Math.round(Number.isFinite(c.a) ? c.a : 255)));
  return `${what}="#${hex2(c.r)}${hex2(c.g)}${hex2(c.b)}" ${what}-opacity="${fx(a / 255, 3)}"`;
}

/** Rough text width in px for the sans-serif font (used to size boxes; deterministic). */
function textWidth(s: string, size: number): number {
  return [...s].length * size * 0.6;
}

// ---------------------------------------------------------------------------------------------
// Scale bar

const FOOT_M = 0.3048;
const MILE_M = 1609.344;

function niceBelow(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  const m = v / p;
  return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * p;
}

function numText(v: number): string {
  return String(Number(v.toPrecision(6)));
}

/** The scale bar's length in px and its label, for a bar at most `maxPx` long. */
function scaleBar(mpp: number, maxPx: number, unit: 'metric' | 'imperial'): { px: number; label: string } {
  const maxM = mpp * maxPx;
  if (unit === 'imperial') {
    if (maxM >= MILE_M) {
      const mi = niceBelow(maxM / MILE_M);
      return { px: (mi * MILE_M) / mpp, label: `${numText(mi)} mi` };
    }
    const ft = niceBelow(maxM / FOOT_M);
    return { px: (ft * FOOT_M) / mpp, label: `${numText(ft)} ft` };
  }
  const m = niceBelow(maxM);
  return { px: m / mpp, label: m >= 1000 ? `${numText(m / 1000)} km` : `${numText(m)} m` };
}

// ---------------------------------------------------------------------------------------------
// The map

/** Padding (px) beyond the map edge within which geometry is still drawn (covers stroke widths). */
const VIEW_PAD = 16;

/**
 * Renders a map as a standalone SVG 1.1 document. `graph` may be null (no road backdrop).
 * Throws a RangeError for a bad size, zoom or centre (callers check {@link checkMapSize} first).
 */
export function renderMapSvg(graph: RoadGraph | null, opts: MapOptions): string {
  const v = viewParams(opts);
  const { width: W, height: H } = v;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">`,
    `<rect width="${W}" height="${H}" fill="${BACKGROUND}"/>`,
  );
  if (graph && graph.numEdges > 0) out.push(...backdrop(graph, v));

  // Routes: white casing, then the line, route by route.
  const T = 10; // tenths of a pixel
  const vx0 = -VIEW_PAD * T, vy0 = -VIEW_PAD * T, vx1 = (W + VIEW_PAD) * T, vy1 = (H + VIEW_PAD) * T;
  for (const r of opts.routes) {
    const b = new PathBuilder(vx0, vy0, vx1, vy1, 0.5 * 0.5 * T * T);
    b.begin();
    const n = Math.min(r.lat.length, r.lon.length);
    for (let i = 0; i < n; i++) {
      const la = r.lat[i];
      const lo = r.lon[i];
      if (!Number.isFinite(la) || !Number.isFinite(lo)) {
        b.end();
        b.cut();
        b.begin();
        continue;
      }
      b.point(Math.round((mercX(lo) * v.scale - v.ox) * T), Math.round((mercY(la) * v.scale - v.oy) * T));
    }
    b.end();
    if (!b.d) continue;
    out.push(
      `<path d="${b.d}" fill="none" stroke="#ffffff" stroke-opacity="0.9" stroke-width="8" stroke-linejoin="round" stroke-linecap="round"/>`,
      `<path d="${b.d}" fill="none" ${colorAttrs(r.color, 'stroke')} stroke-width="5" stroke-linejoin="round" stroke-linecap="round"/>`,
    );
  }

  // Markers.
  const markers = opts.markers ?? [];
  if (markers.length) {
    out.push(`<g font-family="${FONT}" font-size="11" font-weight="bold" text-anchor="middle">`);
    for (const m of markers) {
      if (!Number.isFinite(m.lat) || !Number.isFinite(m.lon)) continue;
      const x = mercX(m.lon) * v.scale - v.ox;
      const y = mercY(m.lat) * v.scale - v.oy;
      if (x < -50 || y < -50 || x > W + 50 || y > H + 50) continue;
      const label = String(m.label ?? '');
      const r = Math.max(9, textWidth(label, 11) / 2 + 4);
      out.push(
        `<circle cx="${fx(x)}" cy="${fx(y)}" r="${fx(r)}" fill="#1f4e8c" stroke="#ffffff" stroke-width="2"/>`,
        `<text x="${fx(x)}" y="${fx(y + 4)}" fill="#ffffff">${xmlText(label)}</text>`,
      );
    }
    out.push('</g>');
  }

  // Scale bar, bottom left.
  const bar = scaleBar(metresPerPixel(v), Math.max(20, Math.min(120, W * 0.3)), opts.scaleUnit ?? 'metric');
  const bx = 8, by = H - 8;
  const bw = bar.px;
  out.push(
    `<g id="scale-bar" font-family="${FONT}" font-size="10">`,
    `<rect x="${bx - 4}" y="${by - 22}" width="${fx(Math.max(bw, textWidth(bar.label, 10)) + 8)}" height="26" fill="#ffffff" fill-opacity="0.7"/>`,
    `<path d="M${bx} ${by - 5}v5h${fx(bw)}v-5" fill="none" stroke="#333333" stroke-width="1.5"/>`,
    `<text x="${bx}" y="${by - 9}" fill="#333333">${xmlText(bar.label)}</text>`,
    '</g>',
  );

  // Attribution, bottom right.
  const attribution = opts.attribution ?? DEFAULT_ATTRIBUTION;
  if (attribution) {
    const tw = textWidth(attribution, 10);
    out.push(
      `<g id="attribution" font-family="${FONT}" font-size="10">`,
      `<rect x="${fx(W - tw - 8)}" y="${H - 15}" width="${fx(tw + 8)}" height="15" fill="#ffffff" fill-opacity="0.7"/>`,
      `<text x="${W - 4}" y="${H - 4}" text-anchor="end" fill="#333333">${xmlText(attribution)}</text>`,
      '</g>',
    );
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/**
 * The edges of the styles drawn at `zoom` whose box meets the normalised view [qx0, qx1] ×
 * [qy0, qy1], sorted by style (minor roads first), edge ids ascending within a style (so way
 * pieces chain): `sorted[counts[st] .. counts[st + 1])` are style `st`'s. The arrays are the
 * graph's scratch, valid until the next selection.
 */
function selectEdges(g: RoadGraph, qx0: number, qy0: number, qx1: number, qy1: number, zoom: number): { sorted: Uint32Array; counts: Uint32Array } {
  const { index, mark, sel, sorted } = edgeScratch(g);
  const cls = g.edgeClass;
  const styleOn = new Uint8Array(ROAD_STYLES.length);
  ROAD_STYLES.forEach((s, i) => (styleOn[i] = zoom >= s.minZoom ? 1 : 0));
  const counts = new Uint32Array(ROAD_STYLES.length + 1);
  let ns = 0;
  const hits = index.search(qx0, qy0, qx1, qy1);
  for (let k = 0; k < hits.length; k++) {
    const e = hits[k];
    const st = STYLE_OF_CLASS[cls[e]];
    if (st < 0 || styleOn[st] === 0) continue;
    mark[e] = st + 1;
    sel[ns++] = e;
    counts[st + 1]++;
  }
  // Counting sort by style, edge ids ascending within a style (so way pieces chain).
  if (ns * Math.log2(ns + 2) < g.numEdges) {
    sel.subarray(0, ns).sort();
  } else {
    ns = 0;
    for (let e = 0; e < g.numEdges; e++) if (mark[e] !== 0) sel[ns++] = e;
  }
  for (let i = 1; i <= ROAD_STYLES.length; i++) counts[i] += counts[i - 1];
  const pos = counts.slice();
  for (let i = 0; i < ns; i++) {
    const e = sel[i];
    sorted[pos[mark[e] - 1]++] = e;
    mark[e] = 0;
  }
  return { sorted, counts };
}

/** The roads of one style as lines of [lon, lat] points (a vector layer for a browser map). */
export interface RoadLayerStyle {
  color: string;
  width: number;
  dash?: string;
  lines: [number, number][][];
}

/**
 * The dataset's roads inside a box, as drawn at `zoom` (the classes of that zoom, points closer
 * than about a pixel dropped), one entry per style, minor roads first — what a browser map draws
 * as its own backdrop, no tile server involved.
 */
export function roadLayer(g: RoadGraph, bbox: { west: number; south: number; east: number; north: number }, zoom: number): RoadLayerStyle[] {
  const qx0 = mercX(bbox.west), qx1 = mercX(bbox.east), qy0 = mercY(bbox.north), qy1 = mercY(bbox.south);
  const { sorted, counts } = selectEdges(g, qx0, qy0, qx1, qy1, zoom);
  const py = edgeScratch(g).pointY;
  const { edgeGeomStart: gs, geomLon: lo, geomLat: la } = g;
  // about one pixel, in normalised units, squared
  const tol = 1 / (256 * 2 ** zoom);
  const tol2 = tol * tol;
  const out: RoadLayerStyle[] = [];
  for (let st = 0; st < ROAD_STYLES.length; st++) {
    if (counts[st + 1] === counts[st]) continue;
    const s = ROAD_STYLES[st];
    const lines: [number, number][][] = [];
    for (let k = counts[st]; k < counts[st + 1]; k++) {
      const e = sorted[k];
      const line: [number, number][] = [];
      let lx = NaN, ly = NaN;
      for (let i = gs[e], t = gs[e + 1]; i < t; i++) {
        const x = (lo[i] + 180) / 360, y = py[i];
        const last = i === t - 1;
        if (!last && line.length > 0 && (x - lx) ** 2 + (y - ly) ** 2 < tol2) continue;
        line.push([Math.round(lo[i] * 1e6) / 1e6, Math.round(la[i] * 1e6) / 1e6]);
        lx = x; ly = y;
      }
      if (line.length >= 2) lines.push(line);
    }
    out.push({ color: s.color, width: Math.round(s.width * roadWidthFactor(zoom) * 100) / 100, ...(s.dash ? { dash: s.dash } : {}), lines });
  }
  return out;
}

/** The road backdrop: one `<path>` per style with drawn edges, minor roads first. */
function backdrop(g: RoadGraph, v: ViewParams): string[] {
  const S = v.scale;
  // View in normalised units, padded.
  const qx0 = (v.ox - VIEW_PAD) / S, qy0 = (v.oy - VIEW_PAD) / S;
  const qx1 = (v.ox + v.width + VIEW_PAD) / S, qy1 = (v.oy + v.height + VIEW_PAD) / S;
  const { sorted, counts } = selectEdges(g, qx0, qy0, qx1, qy1, v.zoom);

  const T = 10;
  const KX = (S * T) / 360, BX = 180 * KX - v.ox * T;
  const KY = S * T, BY = -v.oy * T;
  const { edgeGeomStart: gs, geomLon: lo } = g;
  const py = edgeScratch(g).pointY;
  const f = roadWidthFactor(v.zoom);
  // Points closer than this to the last kept one are dropped: 1 px, 1.5 px below zoom 14 (long overview paths).
  const minDist = v.zoom >= 14 ? 1 : 1.5;
  const parts: string[] = [];
  for (let st = 0; st < ROAD_STYLES.length; st++) {
    if (counts[st + 1] === counts[st]) continue;
    const b = new PathBuilder(-VIEW_PAD * T, -VIEW_PAD * T, (v.width + VIEW_PAD) * T, (v.height + VIEW_PAD) * T, minDist * minDist * T * T);
    for (let k = counts[st]; k < counts[st + 1]; k++) {
      const e = sorted[k];
      b.begin();
      for (let i = gs[e], t = gs[e + 1]; i < t; i++) b.point(Math.round(lo[i] * KX + BX), Math.round(py[i] * KY + BY));
      b.end();
    }
    if (!b.d) continue;
    const s = ROAD_STYLES[st];
    parts.push(
      `<path d="${b.d}" fill="none" stroke="${s.color}" stroke-width="${fx(s.width * f, 2)}" stroke-linejoin="round" stroke-linecap="round"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
    );
  }
  return parts;
}
