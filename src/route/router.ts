/**
 * Point-to-point routing between snapped points: the phantom-node entries of both snaps go into a
 * CH query of the chosen metric (the other metric rides along as aux), and a direct drive along a
 * shared edge competes with it. One Router per thread; it owns its two reusable queries.
 */
import { ChQuery, type ContractionHierarchy } from '../ch/index.js';
import type { RoadGraph } from '../graph/road-graph.js';
import type { Snap, Snapper } from '../graph/snap.js';

export type Metric = 'time' | 'distance';

export interface PointToPoint {
  /** False when no path connects the two points. */
  found: boolean;
  timeMs: number;
  lengthCm: number;
  /** Input arc ids of the path (empty for a drive within one edge). Only filled when asked. */
  arcs?: number[];
}

export class Router {
  /**
   * One query per metric, made on its first route: each holds ~3 MB of per-node scratch on a city
   * (Porto), and many threads never route by distance, or never route at all (issue #26 item 4).
   */
  private qTime: ChQuery | null = null;
  private qDist: ChQuery | null = null;

  constructor(
    readonly graph: RoadGraph,
    readonly snapper: Snapper,
    readonly chTime: ContractionHierarchy,
    /** The shortest-route hierarchy, or where to get it on first use (a dataset's, read on demand). */
    private chDistOf: ContractionHierarchy | (() => ContractionHierarchy),
  ) {}

  get chDist(): ContractionHierarchy {
    if (typeof this.chDistOf === 'function') this.chDistOf = this.chDistOf();
    return this.chDistOf;
  }

  /** Best path from one snap to another under `metric`; its time and length both reported. */
  route(from: Snap, to: Snap, metric: Metric, withPath = false): PointToPoint {
    const q = metric === 'time' ? (this.qTime ??= new ChQuery(this.chTime)) : (this.qDist ??= new ChQuery(this.chDist));
    q.reset();
    const time = metric === 'time';
    for (const e of from.sourceEntries) q.addSource(e.node, time ? e.timeMs : e.lengthCm, time ? e.lengthCm : e.timeMs);
    for (const e of to.targetEntries) q.addTarget(e.node, time ? e.timeMs : e.lengthCm, time ? e.lengthCm : e.timeMs);
    q.run();
    let best: PointToPoint = { found: false, timeMs: Infinity, lengthCm: Infinity };
    let bestCost = Infinity;
    if (q.found()) {
      const cost = q.distance();
      const aux = q.aux();
      bestCost = cost;
      best = { found: true, timeMs: time ? cost : aux, lengthCm: time ? aux : cost };
      if (withPath) best.arcs = q.arcPath();
    }
    const direct = this.snapper.sameArcDirect(from, to);
    if (direct) {
      const cost = time ? direct.timeMs : direct.lengthCm;
      if (cost <= bestCost) best = { found: true, timeMs: direct.timeMs, lengthCm: direct.lengthCm, ...(withPath ? { arcs: [] } : {}) };
    }
    return best;
  }
}
