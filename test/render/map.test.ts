/** Route maps: SVG structure and determinism, views, sizes, scale bar, and pixels of the PNG. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import type { RoadGraph } from '../../src/graph/road-graph.js';
import {
  checkMapSize, mapView, MAX_MAP_PIXELS, MAX_MAP_SIDE, renderMapSvg, svgDataUrl, svgToPng, type MapOptions,
} from '../../src/render/index.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { decodePng, findAll, parseXml, pixel, type XmlElement } from './helpers.js';

let engine: Engine;
let graph: RoadGraph;
let lat: number[] = [];
let lon: number[] = [];

const STOPS = [
  { lat: 43.7395, lon: 7.428 },
  { lat: 43.7276, lon: 7.4155 },
  { lat: 43.7335, lon: 7.4205 },
];
const RED = { a: 255, r: 220, g: 30, b: 60 };
const ROAD_COLOURS = ['#d3d0cb', '#c2beb7', '#b3ab9c', '#e6cf6e', '#f0a85a', '#e8794f', '#d9576f', '#4a7fd0'];

beforeAll(async () => {
  const { dataset, buffer } = await fixtureDataset('monaco');
  graph = dataset.graph;
  engine = await Engine.open(buffer, { threads: 1 });
  const r = await engine.calculateRoute({ Locations: STOPS.map((s) => ({ LatLong: { Latitude: s.lat, Longitude: s.lon } })) });
  expect(r.Status).toBe('Success');
  lat = r.Route!.Points!.map((p) => p.Latitude);
  lon = r.Route!.Points!.map((p) => p.Longitude);
});
afterAll(() => engine?.close());

function options(extra: Partial<MapOptions> = {}): MapOptions {
  return {
    width: 800,
    height: 600,
    routes: [{ lat, lon, color: RED }],
    markers: STOPS.map((s, i) => ({ ...s, label: String(i + 1) })),
    ...extra,
  };
}

const paths = (svg: XmlElement) => findAll(svg, 'path');
const routePaths = (svg: XmlElement, hex: string) => paths(svg).filter((p) => p.attrs.stroke === hex && p.attrs['stroke-width'] === '5');
const roadPaths = (svg: XmlElement) => paths(svg).filter((p) => ROAD_COLOURS.includes(p.attrs.stroke));
const group = (svg: XmlElement, id: string) => findAll(svg, 'g').find((g) => g.attrs.id === id);

describe('renderMapSvg', () => {
  it('is a well-formed standalone SVG 1.1 document with backdrop, route, markers, scale bar and attribution', () => {
    const text = renderMapSvg(graph, options());
    const svg = parseXml(text);
    expect(svg.name).toBe('svg');
    expect(svg.attrs).toMatchObject({ xmlns: 'http://www.w3.org/2000/svg', version: '1.1', width: '800', height: '600', viewBox: '0 0 800 600' });
    // Background first.
    expect(svg.children[0]).toMatchObject({ name: 'rect', attrs: { width: '800', height: '600' } });
    expect(svg.children[0].attrs.fill).toMatch(/^#[0-9a-f]{6}$/);
    // No external references.
    expect(text.replace('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:|href|url\(/);
    // Roads of several classes, minor ones before major ones.
    const roads = roadPaths(svg);
    expect(roads.length).toBeGreaterThanOrEqual(3);
    const order = roads.map((p) => ROAD_COLOURS.indexOf(p.attrs.stroke));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    for (const p of [...roads, ...routePaths(svg, '#dc1e3c')]) expect(p.attrs.d).toMatch(/^(M-?[\d.]+[ -]?-?[\d.]+(l(-?[\d.]+[ -]?)+)?)+$/);
    // The route: white casing under a 5-px line in the route colour.
    const route = routePaths(svg, '#dc1e3c');
    expect(route).toHaveLength(1);
    expect(route[0].attrs['stroke-opacity']).toBe('1');
    expect(route[0].attrs['stroke-linejoin']).toBe('round');
    const all = paths(svg);
    const k = all.indexOf(route[0]);
    expect(all[k - 1].attrs).toMatchObject({ stroke: '#ffffff', d: route[0].attrs.d });
    expect(all.indexOf(roads[roads.length - 1])).toBeLessThan(k);
    // One numbered marker per stop.
    const circles = findAll(svg, 'circle');
    expect(circles).toHaveLength(3);
    const labels = findAll(svg, 'text').map((t) => t.text);
    expect(labels).toEqual(expect.arrayContaining(['1', '2', '3']));
    // Scale bar and attribution.
    expect(group(svg, 'scale-bar')!.children.find((c) => c.name === 'text')!.text).toMatch(/^(1|2|5)(0*) (m|km)$/);
    expect(group(svg, 'attribution')!.children.find((c) => c.name === 'text')!.text).toBe('© OpenStreetMap contributors');
  });

  it('is deterministic: same input, same bytes (also after other renders)', () => {
    const a = renderMapSvg(graph, options());
    renderMapSvg(graph, options({ center: { lat: 43.73, lon: 7.42 }, zoom: 17 }));
    renderMapSvg(null, options());
    expect(renderMapSvg(graph, options())).toBe(a);
  });

  it('draws routes in array order with their opacity, each above its own casing', () => {
    const blue = { a: 128, r: 0, g: 0x66, b: 0xff };
    const svg = parseXml(renderMapSvg(graph, options({ routes: [{ lat, lon, color: RED }, { lat: lat.slice(0, 50), lon: lon.slice(0, 50), color: blue }] })));
    const red = routePaths(svg, '#dc1e3c')[0];
    const second = routePaths(svg, '#0066ff')[0];
    expect(second.attrs['stroke-opacity']).toBe('0.502');
    const all = paths(svg);
    expect(all.indexOf(second)).toBeGreaterThan(all.indexOf(red));
  });

  it('without a graph: no backdrop, still a valid map', () => {
    const svg = parseXml(renderMapSvg(null, options()));
    expect(roadPaths(svg)).toHaveLength(0);
    expect(routePaths(svg, '#dc1e3c')).toHaveLength(1);
    expect(findAll(svg, 'circle')).toHaveLength(3);
  });

  it('fit view: every route point and marker inside the margin, touching it on one axis', () => {
    for (const marginPx of [24, 60]) {
      const o = options({ marginPx });
      const v = mapView(o);
      expect(v.zoom).toBeGreaterThan(12);
      expect(v.zoom).toBeLessThanOrEqual(18);
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      const pts = [...lat.map((la, i) => [la, lon[i]]), ...STOPS.map((s) => [s.lat, s.lon])];
      for (const [la, lo] of pts) {
        const { x, y } = v.toPixel(la, lo);
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
      expect(x0).toBeGreaterThanOrEqual(marginPx - 1e-6);
      expect(y0).toBeGreaterThanOrEqual(marginPx - 1e-6);
      expect(x1).toBeLessThanOrEqual(800 - marginPx + 1e-6);
      expect(y1).toBeLessThanOrEqual(600 - marginPx + 1e-6);
      const tight = Math.min(x0 - marginPx + 800 - marginPx - x1, y0 - marginPx + 600 - marginPx - y1);
      expect(tight).toBeLessThan(1e-6);
      // Centred.
      expect((x0 + x1) / 2).toBeCloseTo(400, 6);
      expect((y0 + y1) / 2).toBeCloseTo(300, 6);
    }
  });

  it('a single point fits at zoom 16; nothing at all shows the world', () => {
    const v = mapView({ width: 400, height: 300, routes: [], markers: [{ lat: 43.73, lon: 7.42, label: 'A' }] });
    expect(v.zoom).toBe(16);
    expect(v.toPixel(43.73, 7.42).x).toBeCloseTo(200, 6);
    expect(v.toPixel(43.73, 7.42).y).toBeCloseTo(150, 6);
    const w = mapView({ width: 512, height: 512, routes: [] });
    expect(w.zoom).toBe(1);
    expect(w.toPixel(0, -180).x).toBeCloseTo(0, 6);
    expect(w.toPixel(0, 180).x).toBeCloseTo(512, 6);
    expect(w.toPixel(0, 0).y).toBeCloseTo(256, 6);
    expect(w.toPixel(85.0511287798, 0).y).toBeCloseTo(0, 4); // north up
    expect(w.toPixel(-85.0511287798, 0).y).toBeCloseTo(512, 4);
    expect(parseXml(renderMapSvg(graph, { width: 512, height: 512, routes: [] })).name).toBe('svg');
  });

  it('center + zoom: that view (256-px tiles), the route clipped to it, a different map than the fit', () => {
    const center = { lat: 43.7335, lon: 7.4205 };
    const o = options({ center, zoom: 18 });
    const v = mapView(o);
    expect(v.zoom).toBe(18);
    expect(v.center.lat).toBeCloseTo(center.lat, 9);
    expect(v.center.lon).toBeCloseTo(center.lon, 9);
    expect(v.toPixel(center.lat, center.lon)).toEqual({ x: 400, y: 300 });
    // 256·2^18 px around the world at the equator → about 0.6 m a pixel here.
    expect(v.metresPerPixel).toBeCloseTo((Math.cos((center.lat * Math.PI) / 180) * 2 * Math.PI * 6378137) / (256 * 2 ** 18), 9);
    const east = v.toPixel(center.lat, center.lon + 360 / 2 ** 18 / 256 * 100);
    expect(east.x).toBeCloseTo(500, 6);
    const zoomed = renderMapSvg(graph, o);
    const fit = renderMapSvg(graph, options());
    expect(zoomed).not.toBe(fit);
    const dz = routePaths(parseXml(zoomed), '#dc1e3c')[0].attrs.d;
    const df = routePaths(parseXml(fit), '#dc1e3c')[0].attrs.d;
    expect(dz.length).toBeLessThan(df.length); // most of the route is outside this view
    // Every subpath of the clipped route starts near the view.
    for (const m of dz.matchAll(/M(-?[\d.]+)[ ]?(-?[\d.]+)/g)) {
      const x = Number(m[1]), y = Number(m[2]);
      expect(x).toBeGreaterThan(-1000); expect(x).toBeLessThan(1800);
      expect(y).toBeGreaterThan(-1000); expect(y).toBeLessThan(1600);
    }
    // The backdrop at zoom 18 is a small part of the town: fewer road bytes than the fit.
    const bytes = (s: string) => roadPaths(parseXml(s)).reduce((n, p) => n + p.attrs.d.length, 0);
    expect(bytes(zoomed)).toBeGreaterThan(0);
    expect(bytes(zoomed)).toBeLessThan(bytes(fit));
  });

  it('a centre without zoom fits the content around that centre', () => {
    const center = { lat: 43.735, lon: 7.42 };
    const v = mapView(options({ center }));
    expect(v.toPixel(center.lat, center.lon).x).toBeCloseTo(400, 6);
    for (const s of STOPS) {
      const { x, y } = v.toPixel(s.lat, s.lon);
      expect(x).toBeGreaterThanOrEqual(23.99); expect(x).toBeLessThanOrEqual(776.01);
      expect(y).toBeGreaterThanOrEqual(23.99); expect(y).toBeLessThanOrEqual(576.01);
    }
  });

  it('at a low zoom drops minor roads', () => {
    const svg = parseXml(renderMapSvg(graph, options({ center: { lat: 43.735, lon: 7.42 }, zoom: 11.5 })));
    const colours = roadPaths(svg).map((p) => p.attrs.stroke);
    expect(colours).not.toContain('#d3d0cb'); // service
    expect(colours).not.toContain('#c2beb7'); // residential
    const full = roadPaths(parseXml(renderMapSvg(graph, options({ center: { lat: 43.735, lon: 7.42 }, zoom: 16 })))).map((p) => p.attrs.stroke);
    expect(full).toContain('#d3d0cb');
    expect(full).toContain('#c2beb7');
  });

  it('scale bar: a round length whose pixels match the label, metric and imperial', () => {
    for (const [scaleUnit, re] of [['metric', /^(\d+(?:\.\d+)?) (m|km)$/], ['imperial', /^(\d+(?:\.\d+)?) (ft|mi)$/]] as const) {
      for (const zoom of [5, 12, 15.3, 18, 20]) {
        const o = options({ center: { lat: 43.735, lon: 7.42 }, zoom, scaleUnit });
        const g = group(parseXml(renderMapSvg(null, o)), 'scale-bar')!;
        const m = re.exec(g.children.find((c) => c.name === 'text')!.text);
        expect(m, `${scaleUnit} z${zoom}`).not.toBeNull();
        const value = Number(m![1]);
        expect(String(value)).toMatch(/^[125]0*$|^0\.0*[125]$/);
        const metres = value * { m: 1, km: 1000, ft: 0.3048, mi: 1609.344 }[m![2] as 'm'];
        const px = Number(/h(-?[\d.]+)/.exec(g.children.find((c) => c.name === 'path')!.attrs.d)![1]);
        expect(px).toBeGreaterThan(10);
        expect(px).toBeLessThanOrEqual(240);
        expect(px * mapView(o).metresPerPixel).toBeCloseTo(metres, -Math.floor(Math.log10(metres)) + 1);
      }
    }
  });

  it('escapes text and accepts any label', () => {
    const text = renderMapSvg(null, options({
      attribution: 'Data <OSM> & "friends" \u0001',
      markers: [{ lat: STOPS[0].lat, lon: STOPS[0].lon, label: '<&>' }, { lat: STOPS[1].lat, lon: STOPS[1].lon, label: '12' }],
    }));
    const svg = parseXml(text);
    expect(findAll(svg, 'text').map((t) => t.text)).toEqual(expect.arrayContaining(['<&>', '12', 'Data <OSM> & "friends" \uFFFD']));
    expect(text).not.toContain('\u0001');
  });

  it('svgDataUrl', () => {
    const svg = renderMapSvg(null, options());
    const url = svgDataUrl(svg);
    expect(url.startsWith('data:image/svg+xml;base64,')).toBe(true);
    expect(Buffer.from(url.slice('data:image/svg+xml;base64,'.length), 'base64').toString('utf8')).toBe(svg);
  });

  it('rejects bad sizes, zooms and centres', () => {
    expect(() => renderMapSvg(graph, options({ width: 5000, height: 5000 }))).toThrow(/too large/);
    expect(() => renderMapSvg(graph, options({ zoom: 21 }))).toThrow(/zoom/);
    expect(() => renderMapSvg(graph, options({ zoom: NaN }))).toThrow(/zoom/);
    expect(() => renderMapSvg(graph, options({ center: { lat: 91, lon: 0 }, zoom: 3 }))).toThrow(/centre/);
  });
});

describe('checkMapSize', () => {
  it('accepts sizes within the limits, with clear messages otherwise', () => {
    expect(MAX_MAP_SIDE).toBe(4096);
    expect(MAX_MAP_PIXELS).toBe(8_388_608);
    expect(checkMapSize(800, 600)).toBeNull();
    expect(checkMapSize(1, 1)).toBeNull();
    expect(checkMapSize(4096, 2048)).toBeNull();
    expect(checkMapSize(5000, 5000)).toBe('MapSize 5000×5000 is too large: at most 4096 px a side and 8388608 pixels');
    expect(checkMapSize(4097, 10)).toMatch(/too large/);
    expect(checkMapSize(4096, 2049)).toMatch(/too large/);
    for (const [w, h] of [[0, 10], [-5, 10], [10.5, 10], [10, NaN], [10, Infinity]]) {
      expect(checkMapSize(w, h)).toMatch(new RegExp(`^MapSize ${w}×${h} is invalid`));
    }
  });
});

/** Distance from (x, y) to the segment a→b. */
function segDist(x: number, y: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax, dy = by - ay;
  const t = dx === 0 && dy === 0 ? 0 : Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - ax - t * dx, y - ay - t * dy);
}

describe('svgToPng', () => {
  it('renders the map: a PNG whose pixels show the route colour on the route and not away from it', async () => {
    const o = options();
    const png = await svgToPng(renderMapSvg(graph, o));
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    const img = decodePng(png);
    expect([img.width, img.height]).toEqual([800, 600]);
    const v = mapView(o);
    const pts = lat.map((la, i) => v.toPixel(la, lon[i]));
    const marks = STOPS.map((s) => v.toPixel(s.lat, s.lon));
    const near = (x: number, y: number, d: number) =>
      pts.some((p, i) => i > 0 && segDist(x, y, pts[i - 1].x, pts[i - 1].y, p.x, p.y) < d) || marks.some((m) => Math.hypot(m.x - x, m.y - y) < d + 12);
    // The longest route segments, at their midpoints (clear of markers): the route colour.
    const segs = pts.slice(1).map((p, i) => ({ i, len: Math.hypot(p.x - pts[i].x, p.y - pts[i].y) })).sort((a, b) => b.len - a.len);
    let checked = 0;
    for (const { i } of segs.slice(0, 10)) {
      const mx = (pts[i].x + pts[i + 1].x) / 2, my = (pts[i].y + pts[i + 1].y) / 2;
      if (marks.some((m) => Math.hypot(m.x - mx, m.y - my) < 16)) continue;
      const [r, g, b, a] = pixel(img, mx, my);
      expect([r, g, b, a].map((c, k) => Math.abs(c - [RED.r, RED.g, RED.b, 255][k]) <= 12), `pixel ${mx},${my} = ${[r, g, b, a]}`).toEqual([true, true, true, true]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(5);
    // Pixels far from the route and markers (and off the corner boxes) are never route red.
    let far = 0;
    for (let y = 20; y < 560; y += 20) {
      for (let x = 20; x < 780; x += 20) {
        if (near(x, y, 20)) continue;
        const [r, g, b] = pixel(img, x, y);
        expect(Math.abs(r - RED.r) + Math.abs(g - RED.g) + Math.abs(b - RED.b), `pixel ${x},${y}`).toBeGreaterThan(60);
        far++;
      }
    }
    expect(far).toBeGreaterThan(300);
  });

  it('the backdrop draws the roads of the graph where they are (grid index finds edges near the view edges too)', async () => {
    const E = graph.numEdges;
    let checked = 0;
    for (let k = 0; k < 12; k++) {
      const e = Math.floor(((k + 0.5) * E) / 12);
      if (graph.edgeClass[e] > 12 && graph.edgeClass[e] !== 14) continue; // service, ferry: drawn only at some zooms
      const i = graph.edgeGeomStart[e];
      const la = graph.geomLat[i], lo = graph.geomLon[i];
      // The vertex lies 70 px from the centre of a 200×160 map, towards a corner that varies.
      const dx = k % 2 ? 70 : -70, dy = k % 4 < 2 ? 50 : -50;
      const mpp = mapView({ width: 200, height: 160, routes: [], center: { lat: la, lon: lo }, zoom: 17 }).metresPerPixel;
      // Centre of the map such that the vertex lands near (100 + dx, 80 + dy).
      const c = { lat: la + (dy * mpp) / 111_320, lon: lo - (dx * mpp) / (111_320 * Math.cos((la * Math.PI) / 180)) };
      const o: MapOptions = { width: 200, height: 160, routes: [], center: c, zoom: 17, attribution: '' };
      const at = mapView(o).toPixel(la, lo);
      expect(Math.abs(at.x - 100 - dx)).toBeLessThan(3);
      expect(Math.abs(at.y - 80 - dy)).toBeLessThan(3);
      const img = decodePng(await svgToPng(renderMapSvg(graph, o)));
      expect(pixel(img, at.x, at.y), `edge ${e} at ${at.x},${at.y}`).not.toEqual([0xf2, 0xef, 0xe9, 255]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it('without a graph the background shows; width scales the image', async () => {
    const o = options();
    const img = decodePng(await svgToPng(renderMapSvg(null, o), { width: 400 }));
    expect([img.width, img.height]).toEqual([400, 300]);
    const v = mapView(o);
    const pts = lat.map((la, i) => v.toPixel(la, lon[i]));
    const marks = STOPS.map((s) => v.toPixel(s.lat, s.lon));
    // Pixels at least 30 px from the route and the markers, off the corner boxes: background #f2efe9.
    let bg = 0;
    for (let y = 10; y < 560; y += 25) {
      for (let x = 10; x < 790; x += 25) {
        if (pts.some((p, i) => i > 0 && segDist(x, y, pts[i - 1].x, pts[i - 1].y, p.x, p.y) < 30) || marks.some((m) => Math.hypot(m.x - x, m.y - y) < 30)) continue;
        expect(pixel(img, x / 2, y / 2), `pixel ${x},${y}`).toEqual([0xf2, 0xef, 0xe9, 255]);
        bg++;
      }
    }
    expect(bg).toBeGreaterThan(200);
    await expect(svgToPng('<svg', {})).rejects.toThrow();
  });
});
