// Markers by the thousand: a layer that draws up to CLUSTER_FROM markers as they are, and more as
// clusters (supercluster, mourner's; served by the package under /ui/vendor/supercluster/). A
// cluster is one marker `dk-marker dk-cluster dk-cluster-<kind>` showing its count (`data-count`);
// a click zooms in to where it splits. Only what lies in the view (with a margin) is in the DOM:
// after each move the view's clusters and single markers are worked out again, and markers that
// stay are kept (no flicker, little DOM work). A single marker is the caller's own Leaflet marker,
// with its classes, tooltip and handlers — the same as without clustering.
import * as L from '/ui/vendor/leaflet/leaflet-src.esm.js';
import Supercluster from '/ui/vendor/supercluster/supercluster.js';

/** Up to this many markers are drawn as they are (what small plans always looked like); more are clustered. */
export const CLUSTER_FROM = 500;
/**
 * Cluster radius in screen pixels (supercluster's `extent` is set to Leaflet's 256-pixel tiles):
 * with the view's size it bounds the markers in the DOM (a 1400 × 900 view holds a few hundred at most).
 */
const RADIUS = 50;
/** From this zoom on every marker is drawn alone (the map goes to 19). */
const MAX_CLUSTER_ZOOM = 17;
/** The view's margin (a share of its size) whose markers are drawn too, so a short pan shows no gap. */
const MARGIN = 0.15;

export class ClusterLayer {
  /** @param {L.Map} map  @param {L.LayerGroup} parent  @param {string} kind  the cluster's class suffix (pending, stop, unserved) */
  constructor(map, parent, kind) {
    this.map = map;
    this.parent = parent;
    this.kind = kind;
    this.layer = L.layerGroup();
    /** @type {L.Marker[]} */
    this.markers = [];
    this.index = null;
    /** What is drawn now: key ('c<id>' a cluster, 'p<i>' a marker) → its Leaflet marker. */
    this.shown = new Map();
    this.onMove = () => this.render();
  }

  /**
   * Replaces the markers (Leaflet markers, not on the map yet): clustered when there are more than
   * CLUSTER_FROM (or `cluster` says so: layers drawn together decide together), else added as they are, in order.
   */
  setMarkers(markers, cluster = markers.length > CLUSTER_FROM) {
    this.clear();
    // the parent may have been cleared since (PlanMap.clearPlan)
    if (!this.parent.hasLayer(this.layer)) this.parent.addLayer(this.layer);
    this.markers = markers;
    if (!cluster || markers.length === 0) {
      for (const m of markers) this.layer.addLayer(m);
      return;
    }
    this.index = new Supercluster({ radius: RADIUS, extent: 256, maxZoom: MAX_CLUSTER_ZOOM, minPoints: 2 });
    this.index.load(markers.map((m, i) => {
      const p = m.getLatLng();
      return { type: 'Feature', properties: { i }, geometry: { type: 'Point', coordinates: [p.lng, p.lat] } };
    }));
    this.map.on('moveend', this.onMove);
    this.render();
  }

  /** Removes every marker. */
  clear() {
    this.map.off('moveend', this.onMove);
    this.layer.clearLayers();
    this.shown.clear();
    this.index = null;
    this.markers = [];
  }

  /** Whether the markers are clustered now. */
  get clustered() {
    return this.index !== null;
  }

  /** Draws the view's clusters and markers (keeping those already drawn). */
  render() {
    if (!this.index) return;
    if (!this.parent.hasLayer(this.layer)) return this.clear(); // its parent was cleared
    const b = this.map.getBounds().pad(MARGIN);
    const zoom = Math.floor(this.map.getZoom());
    const items = this.index.getClusters([Math.max(-180, b.getWest()), Math.max(-85, b.getSouth()), Math.min(180, b.getEast()), Math.min(85, b.getNorth())], zoom);
    const next = new Map();
    for (const f of items) {
      const key = f.properties.cluster ? `c${f.properties.cluster_id}` : `p${f.properties.i}`;
      next.set(key, this.shown.get(key) ?? this.make(f));
    }
    for (const [key, m] of this.shown) if (!next.has(key)) this.layer.removeLayer(m);
    for (const [key, m] of next) if (!this.shown.has(key)) this.layer.addLayer(m);
    this.shown = next;
  }

  /** The marker of one item of the index: the caller's marker, or a cluster's. */
  make(f) {
    if (!f.properties.cluster) return this.markers[f.properties.i];
    const n = f.properties.point_count;
    const [lon, lat] = f.geometry.coordinates;
    const size = n < 100 ? 30 : n < 1000 ? 36 : 42;
    const body = document.createElement('span');
    body.className = 'dk-marker-body';
    body.textContent = f.properties.point_count_abbreviated;
    const m = L.marker([lat, lon], {
      icon: L.divIcon({ className: `dk-marker dk-cluster dk-cluster-${this.kind}`, html: body.outerHTML, iconSize: [size, size], iconAnchor: [size / 2, size / 2] }),
      keyboard: false, title: `${n} stops: click to zoom in`,
    });
    m.on('add', () => { m.getElement().dataset.count = String(n); });
    m.on('click', () => {
      const z = Math.min(this.map.getMaxZoom(), this.index?.getClusterExpansionZoom(f.properties.cluster_id) ?? this.map.getZoom() + 1);
      this.map.setView([lat, lon], Math.max(z, this.map.getZoom() + 1));
    });
    return m;
  }
}
