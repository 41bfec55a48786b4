/**
 * The road graph's edges by web-mercator box, for drawing maps (render/map.ts: the road backdrop,
 * the page's road layer): a Flatbush R-tree over each edge's box in normalised web-mercator units
 * (0..1, x east, y south), padded by {@link ROAD_BOX_PAD} and stored as float32. A map view is
 * one box search. The index is one ArrayBuffer persisted in the dataset as its own section
 * (`r.rtree`): opening a dataset attaches it to its graph, read on first use ({@link RoadBoxIndex.attachFrom}), so no
 * thread builds it again; a graph without one (a dataset written before the section, a graph
 * built in memory) gets it built on first use and cached.
 */
import Flatbush from 'flatbush';
import type { BinFile, BinWriter } from '../core/binfile.js';
import { EngineError } from '../core/errors.js';
import { mercatorX, mercatorY } from '../core/geo.js';
import { flatbushView, indexBytes } from '../core/spatial.js';
import type { RoadGraph } from './road-graph.js';

/** Padding of every edge box (normalised units, ≈ 40 m): covers the float32 rounding of the boxes. */
export const ROAD_BOX_PAD = 1e-6;
const FORMAT = 1;
const NODE_SIZE = 16;

const attached = new WeakMap<RoadGraph, RoadBoxIndex | null>();
/** Where a graph's persisted index comes from when first asked for (its dataset, read on demand). */
const providers = new WeakMap<RoadGraph, () => RoadBoxIndex | null>();

export class RoadBoxIndex {
  private constructor(
    /** Item e is edge e; null for a graph without edges. */
    readonly index: Flatbush | null,
    readonly numEdges: number,
  ) {}

  /** Indexes every edge of the graph (its whole polyline's box). */
  static build(g: RoadGraph): RoadBoxIndex {
    const E = g.numEdges;
    if (E === 0) return new RoadBoxIndex(null, 0);
    const gs = g.edgeGeomStart;
    const la = g.geomLat;
    const lo = g.geomLon;
    const fb = new Flatbush(E, NODE_SIZE, Float32Array);
    for (let e = 0; e < E; e++) {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (let i = gs[e], t = gs[e + 1]; i < t; i++) {
        const x = mercatorX(lo[i]);
        const y = mercatorY(la[i]);
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
      fb.add(x0 - ROAD_BOX_PAD, y0 - ROAD_BOX_PAD, x1 + ROAD_BOX_PAD, y1 + ROAD_BOX_PAD);
    }
    fb.finish();
    return new RoadBoxIndex(fb, E);
  }

  /** The graph's index: the one attached to it (its dataset's), else built now and kept for the graph. */
  static of(g: RoadGraph): RoadBoxIndex {
    let ix = attached.get(g);
    if (!ix) {
      const persisted = providers.get(g)?.() ?? null;
      if (persisted) {
        persisted.attach(g);
        return persisted;
      }
      ix = RoadBoxIndex.build(g);
      attached.set(g, ix);
    }
    return ix;
  }

  /** The persisted index {@link of} will open for `g` on first use (a dataset's, read on demand). */
  static attachFrom(g: RoadGraph, open: () => RoadBoxIndex | null): void {
    providers.set(g, open);
  }

  /** Makes this the index {@link of} returns for `g` (a dataset's persisted one). */
  attach(g: RoadGraph): void {
    if (g.numEdges !== this.numEdges) throw new EngineError('Internal', `Road box index of ${this.numEdges} edges attached to a graph of ${g.numEdges}.`);
    attached.set(g, this);
  }

  /**
   * The edges whose box meets the normalised box [x0, x1] × [y0, y1] (borders included), in no
   * particular order.
   */
  search(x0: number, y0: number, x1: number, y1: number): number[] {
    return this.index === null ? [] : this.index.search(x0, y0, x1, y1);
  }

  /** Bytes of the index. */
  get byteLength(): number {
    return this.index === null ? 0 : indexBytes(this.index).byteLength;
  }

  toSections(w: BinWriter, prefix: string): void {
    w.add(`${prefix}meta`, new Float64Array([FORMAT, this.numEdges]));
    w.add(`${prefix}rtree`, this.index === null ? new Uint8Array(0) : indexBytes(this.index));
  }

  static has(f: BinFile, prefix: string): boolean {
    return f.has(`${prefix}meta`);
  }

  static fromSections(f: BinFile, prefix: string, g: RoadGraph): RoadBoxIndex {
    const meta = f.get(`${prefix}meta`, Float64Array);
    if (meta.length < 2 || meta[0] !== FORMAT) throw new EngineError('DatasetFormat', `Road box index format v${meta[0]}, expected v${FORMAT}.`);
    if (meta[1] !== g.numEdges) throw new EngineError('DatasetFormat', `Road box index holds ${meta[1]} edges, the road graph ${g.numEdges}.`);
    const bytes = f.get(`${prefix}rtree`, Uint8Array);
    if (g.numEdges === 0) return new RoadBoxIndex(null, 0);
    const fb = flatbushView(bytes, 'Road box index');
    if (fb.numItems !== g.numEdges) throw new EngineError('DatasetFormat', 'Road box index does not match the road graph.');
    return new RoadBoxIndex(fb, g.numEdges);
  }
}
