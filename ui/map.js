// The map: Leaflet with the dataset's own roads as a vector backdrop (GET /ui/roads, drawn on a
// canvas, fetched again for each view), no tile server. Above it the plan: one SVG line per
// vehicle route (class `dk-route`, data-vehicle), and markers (class `dk-marker` plus `dk-stop`,
// `dk-depot`, `dk-unserved` or `dk-pending`) the tests and the page's legend can find.
import * as L from '/ui/vendor/leaflet/leaflet-src.esm.js';
import * as api from './api.js';
import { CLUSTER_FROM, ClusterLayer } from './cluster.js';
import { clock, h, inkOn } from './format.js';

const ROAD_PAD = 0.25;

export class PlanMap {
  /** @param {HTMLElement} el  @param {{Name: string, Attribution: string, Bounds: number[]}} dataset */
  constructor(el, dataset) {
    const [w, s, e, n] = dataset.Bounds;
    const bounds = L.latLngBounds([s, w], [n, e]);
    this.map = L.map(el, {
      zoomControl: true, attributionControl: true, minZoom: 11, maxZoom: 19, zoomSnap: 0.5,
      maxBounds: bounds.pad(0.5), maxBoundsViscosity: 0.8,
    });
    this.map.attributionControl.setPrefix(false).addAttribution(escapeText(dataset.Attribution));
    this.map.createPane('roads').style.zIndex = '250';
    this.roadRenderer = L.canvas({ pane: 'roads', padding: ROAD_PAD });
    this.routeRenderer = L.svg({ padding: 0.5 });
    this.roads = null;
    this.roadRequest = null;
    this.stopsLayer = L.layerGroup().addTo(this.map);
    this.depotLayer = L.layerGroup().addTo(this.map);
    this.planLayer = L.layerGroup().addTo(this.map);
    this.routeLines = new Map();
    /** The plan's stop markers by Location Name. */
    this.stopMarkers = new Map();
    /** What a click on the map does ({lat, lng}), and where a failure to draw the roads goes. */
    this.onClick = null;
    this.onError = (e) => { throw e; };
    this.map.on('click', (ev) => this.onClick?.(ev.latlng));
    this.map.fitBounds(bounds, { animate: false });
    this.roadsReady = this.loadRoads();
    this.map.on('moveend', () => this.loadRoads().catch((e) => this.onError(e)));
  }

  /** Fetches the roads of the view (with a margin) and replaces the backdrop; resolves when drawn. */
  async loadRoads() {
    this.roadRequest?.abort();
    const request = new AbortController();
    this.roadRequest = request;
    const b = this.map.getBounds().pad(ROAD_PAD);
    let data;
    try {
      data = await api.roads([b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], Math.round(this.map.getZoom()), request.signal);
    } catch (e) {
      if (e.name === 'AbortError') return;
      throw e;
    }
    if (request.signal.aborted) return;
    const layer = L.geoJSON(data, {
      renderer: this.roadRenderer, interactive: false,
      style: (f) => ({ color: f.properties.color, weight: f.properties.width, dashArray: f.properties.dash ?? undefined, opacity: 1, lineCap: 'round', lineJoin: 'round' }),
    });
    layer.addTo(this.map);
    this.roads?.remove();
    this.roads = layer;
  }

  /** The stops of the specification before a dispatch: grey points. */
  showStops(locations) {
    const markers = [];
    locations.forEach((l, i) => {
      if (!l.LatLong) return;
      markers.push(L.marker([l.LatLong.Latitude, l.LatLong.Longitude], { icon: icon('dk-pending', ''), keyboard: false })
        .bindTooltip(`${escapeText(l.Name ?? `Stop ${i + 1}`)}${l.Weight ? ` · weight ${l.Weight}` : ''}`));
    });
    // past a few hundred, clustered (ui/cluster.js): thousands of markers would hold the page
    this.pendingStops ??= new ClusterLayer(this.map, this.stopsLayer, 'pending');
    this.pendingStops.setMarkers(markers);
  }

  /** A marker per distinct start or finish place of the vehicles. */
  showDepots(vehicles) {
    this.depotLayer.clearLayers();
    const seen = new Map();
    for (const v of vehicles) {
      for (const [place, what] of [[v.StartLocation, 'start'], [v.FinishLocation, 'finish']]) {
        const p = place?.LatLong;
        if (!p) continue;
        const k = `${p.Latitude.toFixed(6)},${p.Longitude.toFixed(6)}`;
        if (!seen.has(k)) seen.set(k, { p, names: [] });
        seen.get(k).names.push(`${v.Name} ${what}`);
      }
    }
    for (const { p, names } of seen.values()) {
      L.marker([p.Latitude, p.Longitude], { icon: icon('dk-depot', 'D', 22), keyboard: false, zIndexOffset: 1000 })
        .bindTooltip(escapeText([...new Set(names)].join(', ')))
        .addTo(this.depotLayer);
    }
  }

  /**
   * Draws a plan: `geojson` from /ui/plan-geojson (vehicle routes and their stops), `unserved`
   * [{location, reason}] marked apart. `isDepot(feature)` tells the vehicles' own starts and
   * finishes (drawn by showDepots) from the stops.
   */
  showPlan(geojson, unserved, isDepot) {
    this.clearPlan();
    this.showStops([]);
    const colors = new Map();
    for (const f of geojson.features) {
      if (f.properties.kind !== 'vehicle-route') continue;
      colors.set(f.properties.index, f.properties.color);
      if (!f.geometry) continue;
      const latlngs = f.geometry.coordinates.map(([lon, lat]) => [lat, lon]);
      L.polyline(latlngs, { renderer: this.routeRenderer, color: '#fff', weight: 8, opacity: 0.9, interactive: false, className: 'dk-route-casing' }).addTo(this.planLayer);
      const line = L.polyline(latlngs, { renderer: this.routeRenderer, color: f.properties.color, weight: 4.5, opacity: 0.95, className: 'dk-route' })
        .bindTooltip(escapeText(f.properties.vehicle), { sticky: true })
        .addTo(this.planLayer);
      line.getElement().dataset.vehicle = f.properties.vehicle;
      line.getElement().dataset.index = String(f.properties.index);
      this.routeLines.set(f.properties.index, line);
    }
    const visits = new Map();
    const stopMarkers = [];
    for (const f of geojson.features) {
      if (f.properties.kind !== 'stop' || isDepot(f)) continue;
      const p = f.properties;
      const [lon, lat] = f.geometry.coordinates;
      const k = (visits.get(p.index) ?? 0) + 1;
      visits.set(p.index, k);
      const eta = clock(p.TimeEstimatedArrival);
      const m = L.marker([lat, lon], { icon: icon('dk-stop', String(k), 20, colors.get(p.index)), keyboard: false, riseOnHover: true })
        .bindTooltip(`${escapeText(p.Name ?? '')}<br>${escapeText(p.vehicle)} · stop ${k}${eta ? ` · ${eta}` : ''}`);
      // tagged on each add: a clustered marker's element exists only while it is drawn
      m.on('add', () => Object.assign(m.getElement().dataset, { vehicle: p.vehicle, stop: p.Name ?? '' }));
      stopMarkers.push(m);
      this.stopMarkers.set(p.Name, m);
      // hovering a stop on the map picks out its block on the timeline
      m.on('mouseover', () => this.onStopHover?.(p.Name));
      m.on('mouseout', () => this.onStopHover?.(null));
    }
    const unservedMarkers = [];
    for (const { location, reason } of unserved) {
      if (!location.LatLong) continue;
      unservedMarkers.push(L.marker([location.LatLong.Latitude, location.LatLong.Longitude], { icon: icon('dk-unserved', '×', 20), keyboard: false, zIndexOffset: 500 })
        .bindTooltip(`<strong>Not served:</strong> ${escapeText(location.Name ?? '')}<br>${escapeText(reason)}`));
    }
    // the plan's stops and those left out, clustered past a few hundred in all (ui/cluster.js)
    const many = stopMarkers.length + unservedMarkers.length > CLUSTER_FROM;
    this.planStops ??= new ClusterLayer(this.map, this.planLayer, 'stop');
    this.planStops.setMarkers(stopMarkers, many);
    this.unservedStops ??= new ClusterLayer(this.map, this.planLayer, 'unserved');
    this.unservedStops.setMarkers(unservedMarkers, many);
  }

  /** Picks out a stop's marker (its block hovered on the timeline), or none (null). */
  highlightStop(name) {
    for (const [n, m] of this.stopMarkers) m.getElement()?.classList.toggle('dk-hover', n === name);
  }

  clearPlan() {
    this.stopMarkers.clear();
    this.planLayer.clearLayers();
    this.routeLines.clear();
    this.liveLayer?.clearLayers();
  }

  /**
   * The live state over the plan: each van at its last fix (`dk-van`), stops that are over greyed
   * (`dk-done`), late ones ringed red (`dk-late`), and new orders waiting for the next re-plan
   * (`dk-order`). `where(name)` gives a stop's [lat, lon].
   */
  showLive(live, where, orders = []) {
    this.liveLayer ??= L.layerGroup().addTo(this.map);
    this.liveLayer.clearLayers();
    for (const v of live?.Vehicles ?? []) {
      for (const name of v.Done ?? []) {
        const p = where(name);
        if (p) L.marker(p, { icon: icon('dk-done', '✓', 20), keyboard: false, zIndexOffset: 600 }).bindTooltip(`${escapeText(name)}: done`).addTo(this.liveLayer);
      }
      for (const r of v.Remaining ?? []) {
        const p = r.Late && where(r.Name);
        if (p) L.marker(p, { icon: icon('dk-late', '!', 22), keyboard: false, zIndexOffset: 700 }).bindTooltip(`${escapeText(r.Name)}: late (${clock(r.TimeEstimatedArrival)})`).addTo(this.liveLayer);
      }
      if (v.Position) {
        const m = L.marker([v.Position.Latitude, v.Position.Longitude], { icon: icon('dk-van', '🚚', 24), keyboard: false, zIndexOffset: 2000 })
          .bindTooltip(`${escapeText(v.Name)} · ${clock(v.Position.TimeStamp)}${v.Next ? ` → ${escapeText(v.Next)}` : ''}`)
          .addTo(this.liveLayer);
        m.getElement().dataset.vehicle = v.Name;
      }
    }
    for (const o of orders) {
      L.marker([o.LatLong.Latitude, o.LatLong.Longitude], { icon: icon('dk-order', '+', 20), keyboard: false, zIndexOffset: 800 })
        .bindTooltip(`${escapeText(o.Name)}: new order, in the next re-plan`).addTo(this.liveLayer);
    }
  }

  /** Emphasises one route (index), or none (null). */
  highlight(index) {
    for (const [i, line] of this.routeLines) {
      line.setStyle({ opacity: index === null || i === index ? 0.95 : 0.25, weight: i === index ? 6 : 4.5 });
      if (i === index) line.bringToFront();
    }
  }

  fitTo(latlngs) {
    if (latlngs.length > 0) this.map.fitBounds(L.latLngBounds(latlngs).pad(0.08), { maxZoom: 17 });
  }

  /** Centres the map on a place, close up. */
  showPlace(lat, lon, zoom = 18) {
    this.map.setView([lat, lon], zoom);
  }

  /** A crosshair cursor while map clicks do something. */
  setPicking(on) {
    this.map.getContainer().classList.toggle('picking', on);
  }
}

function icon(kind, text, size = 18, color) {
  const html = h('span', { class: 'dk-marker-body', style: color ? `background:${color};color:${inkOn(color)}` : undefined }, text).outerHTML;
  return L.divIcon({ className: `dk-marker ${kind}`, html, iconSize: [size, size], iconAnchor: [size / 2, size / 2], tooltipAnchor: [size / 2, 0] });
}

/** Text for Leaflet's tooltips and attribution, which take HTML. */
function escapeText(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
