/**
 * The road graph: a directed CSR graph (arcs sorted by tail) over junction nodes, with integer
 * arc costs (`timeMs`, `lengthCm`), and the road geometry stored once per undirected *edge*.
 *
 * Vocabulary:
 * - node: a junction (or a way end, a barrier, or a copy of a turn-restriction via node);
 * - edge: one stretch of road between two nodes with its full polyline (both end points
 *   included). Edge attributes (name, ref, flags, highway class) live here;
 * - arc: a drivable direction of an edge. `arcEdge[a] = edge << 1 | reversed`: a reversed arc
 *   runs along its edge's polyline backwards. Several arcs may share one edge and direction
 *   (the copies made when a via node is split for turn restrictions); they all have the same
 *   head, cost and geometry, only their tails differ.
 *
 * Every array is a typed array, so the graph persists as sections and reloads without parsing.
 */
import { EngineError } from '../core/errors.js';
import { firstBad, lengthOf, onDemand, pendingLength, type BinFile, type BinWriter } from '../core/binfile.js';
import { EdgeFlag, HighwayClass, HIGHWAY_CLASS_NAMES } from '../osm/car-profile.js';

export { EdgeFlag, HighwayClass, HIGHWAY_CLASS_NAMES };

/** Version of the persisted layout (bump on any change of the sections). */
export const ROAD_GRAPH_FORMAT = 1;

export interface RoadGraphArrays {
  numNodes: number;
  numArcs: number;
  numEdges: number;
  firstOut: Uint32Array;
  head: Uint32Array;
  tail: Uint32Array;
  timeMs: Uint32Array;
  lengthCm: Uint32Array;
  arcEdge: Uint32Array;
  lat: Float64Array;
  lon: Float64Array;
  nodeOsmId: Float64Array;
  edgeGeomStart: Uint32Array;
  geomLat: Float64Array;
  geomLon: Float64Array;
  edgeNameId: Uint32Array;
  edgeRefId: Uint32Array;
  /** Signposted destination string per edge (optional: graphs built before it have none). */
  edgeDestId?: Uint32Array;
  edgeFlags: Uint16Array;
  edgeClass: Uint8Array;
  edgeWayId: Float64Array;
  edgeArcStart: Uint32Array;
  edgeArcs: Uint32Array;
  strOffsets: Uint32Array;
  strBytes: Uint8Array;
}

const SECTIONS = [
  ['firstOut', Uint32Array], ['head', Uint32Array], ['tail', Uint32Array], ['timeMs', Uint32Array],
  ['lengthCm', Uint32Array], ['arcEdge', Uint32Array], ['lat', Float64Array], ['lon', Float64Array],
  ['nodeOsmId', Float64Array], ['edgeGeomStart', Uint32Array], ['geomLat', Float64Array], ['geomLon', Float64Array],
  ['edgeNameId', Uint32Array], ['edgeRefId', Uint32Array], ['edgeFlags', Uint16Array], ['edgeClass', Uint8Array],
  ['edgeWayId', Float64Array], ['edgeArcStart', Uint32Array], ['edgeArcs', Uint32Array], ['strOffsets', Uint32Array],
  ['strBytes', Uint8Array],
] as const;

/**
 * What only directions and diagnostics read (road names, refs, destinations, their strings, OSM
 * way ids): a graph opened from a file read on demand reads these sections when first used, so a
 * process that dispatches or computes matrices never holds them (1.8 MB on Porto).
 */
const ON_DEMAND = ['edgeNameId', 'edgeRefId', 'edgeDestId', 'edgeWayId', 'strOffsets', 'strBytes'] as const;

const utf8 = new TextDecoder('utf-8');

export class RoadGraph implements RoadGraphArrays {
  readonly numNodes: number;
  readonly numArcs: number;
  readonly numEdges: number;
  /** CSR by tail: the arcs out of node v are `firstOut[v] .. firstOut[v+1]-1`. */
  readonly firstOut: Uint32Array;
  readonly head: Uint32Array;
  readonly tail: Uint32Array;
  /** Travel time of each arc in milliseconds (≥ 1). */
  readonly timeMs: Uint32Array;
  /** Length of each arc in centimetres (≥ 1). */
  readonly lengthCm: Uint32Array;
  /** `edge << 1 | reversed` for each arc. */
  readonly arcEdge: Uint32Array;
  /** Node coordinates in degrees. */
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  /** OSM id of the node each graph node comes from (copies of a split node share it). */
  readonly nodeOsmId: Float64Array;
  /** Polyline of edge e: points `edgeGeomStart[e] .. edgeGeomStart[e+1]-1` (end points included). */
  readonly edgeGeomStart: Uint32Array;
  readonly geomLat: Float64Array;
  readonly geomLon: Float64Array;
  /** String-table ids (0 = none) of the road's name and ref. */
  declare readonly edgeNameId: Uint32Array;
  declare readonly edgeRefId: Uint32Array;
  /** Destination string id per edge (all 0 in datasets built before destinations were kept). */
  declare readonly edgeDestId: Uint32Array;
  /** {@link EdgeFlag} bits. */
  readonly edgeFlags: Uint16Array;
  /** {@link HighwayClass} number. */
  readonly edgeClass: Uint8Array;
  /** OSM way id of each edge (debugging, warnings). */
  declare readonly edgeWayId: Float64Array;
  /** Arcs of edge e: `edgeArcs[edgeArcStart[e] .. edgeArcStart[e+1]-1]`, forward ones first. */
  readonly edgeArcStart: Uint32Array;
  readonly edgeArcs: Uint32Array;
  /** String table: UTF-8 bytes of string i are `strBytes[strOffsets[i] .. strOffsets[i+1]-1]`. */
  declare readonly strOffsets: Uint32Array;
  declare readonly strBytes: Uint8Array;
  private readonly strCache: (string | undefined)[];

  /**
   * Checks the arrays' lengths and, unless `deepCheck` is false, their O(n + m) invariants (CSR
   * arrays monotone from 0, node, arc, edge and string ids in range). {@link fromSections} skips
   * the latter for a file whose checksums were verified: those bytes are the ones this
   * constructor already checked when the dataset was built (and a cold Porto open stays within
   * 50 ms). Unverified opens (`verify: false`, container v1) get the full check.
   */
  constructor(a: RoadGraphArrays, deepCheck = true) {
    this.numNodes = a.numNodes;
    this.numArcs = a.numArcs;
    this.numEdges = a.numEdges;
    this.firstOut = a.firstOut;
    this.head = a.head;
    this.tail = a.tail;
    this.timeMs = a.timeMs;
    this.lengthCm = a.lengthCm;
    this.arcEdge = a.arcEdge;
    this.lat = a.lat;
    this.lon = a.lon;
    this.nodeOsmId = a.nodeOsmId;
    this.edgeGeomStart = a.edgeGeomStart;
    this.geomLat = a.geomLat;
    this.geomLon = a.geomLon;
    // the directions-only arrays, each read now or (left unread in `a`, fromSections) when first used
    for (const k of ON_DEMAND) {
      const pending = pendingLength(a, k);
      if (pending !== undefined) onDemand(this, k, pending, () => a[k]!);
      else (this as Record<string, unknown>)[k] = k === 'edgeDestId' ? a.edgeDestId ?? new Uint32Array(a.numEdges) : a[k];
    }
    this.edgeFlags = a.edgeFlags;
    this.edgeClass = a.edgeClass;
    this.edgeArcStart = a.edgeArcStart;
    this.edgeArcs = a.edgeArcs;
    this.strCache = new Array(Math.max(0, lengthOf(this, 'strOffsets') - 1));
    this.validate(deepCheck);
  }

  private validate(deep: boolean): void {
    const n = this.numNodes;
    const m = this.numArcs;
    const e = this.numEdges;
    const bad = (what: string) => new EngineError('DatasetFormat', `Road graph is inconsistent: ${what}.`);
    if (this.firstOut.length !== n + 1 || this.firstOut[n] !== m) throw bad('firstOut');
    for (const [name, arr] of [['head', this.head], ['tail', this.tail], ['timeMs', this.timeMs], ['lengthCm', this.lengthCm], ['arcEdge', this.arcEdge], ['edgeArcs', this.edgeArcs]] as const) {
      if (arr.length !== m) throw bad(`${name} has ${arr.length} entries for ${m} arcs`);
    }
    if (this.lat.length !== n || this.lon.length !== n || this.nodeOsmId.length !== n) throw bad('node coordinates');
    if (this.edgeGeomStart.length !== e + 1 || this.edgeArcStart.length !== e + 1) throw bad('edge index');
    if (this.geomLat.length !== this.edgeGeomStart[e] || this.geomLon.length !== this.geomLat.length) throw bad('geometry');
    if (this.edgeArcStart[e] !== m) throw bad('edgeArcStart');
    for (const k of ['edgeNameId', 'edgeRefId', 'edgeDestId', 'edgeFlags', 'edgeClass', 'edgeWayId']) if (lengthOf(this, k) !== e) throw bad('edge attributes');
    // (a string table left unread is from a verified file: its last offset is checked when it is read, fromSections)
    if (lengthOf(this, 'strOffsets') < 1) throw bad('string table');
    if (pendingLength(this, 'strOffsets') === undefined && pendingLength(this, 'strBytes') === undefined && this.strOffsets[this.strOffsets.length - 1] !== this.strBytes.length) throw bad('string table');
    if (!deep) return;
    // O(n + m) invariants, so damaged arrays fail here instead of reading out of range.
    const strings = Math.max(1, this.strOffsets.length - 1);
    const checks = [
      ['firstOut', this.firstOut, m + 1, true], ['edgeGeomStart', this.edgeGeomStart, 2 ** 32, true],
      ['edgeArcStart', this.edgeArcStart, m + 1, true], ['strOffsets', this.strOffsets, 2 ** 32, true],
      ['head', this.head, n, false], ['tail', this.tail, n, false], ['arcEdge', this.arcEdge, 2 * e, false],
      ['edgeArcs', this.edgeArcs, m, false], ['edgeNameId', this.edgeNameId, strings, false], ['edgeRefId', this.edgeRefId, strings, false], ['edgeDestId', this.edgeDestId, strings, false],
    ] as const;
    for (const [name, arr, limit, monotone] of checks) {
      const i = firstBad(arr, limit, monotone);
      if (i >= 0) throw bad(`${name}[${i}] is ${arr[i]}: ${monotone ? 'not monotone from 0, or past its end' : `out of range (limit ${limit})`}`);
    }
  }

  // ---- arcs ---------------------------------------------------------------------------------

  /** The undirected edge an arc runs along. */
  arcEdgeId(a: number): number {
    return this.arcEdge[a] >>> 1;
  }

  /** True when the arc runs against its edge's polyline. */
  arcReversed(a: number): boolean {
    return (this.arcEdge[a] & 1) === 1;
  }

  /** Number of polyline points of the arc (≥ 2). */
  arcPointCount(a: number): number {
    const e = this.arcEdge[a] >>> 1;
    return this.edgeGeomStart[e + 1] - this.edgeGeomStart[e];
  }

  /**
   * Appends the arc's polyline (from tail to head, both included) to `outLat`/`outLon`;
   * returns the number of points appended.
   */
  arcGeometry(a: number, outLat: number[], outLon: number[]): number {
    const r = this.arcEdge[a];
    const e = r >>> 1;
    const s = this.edgeGeomStart[e];
    const t = this.edgeGeomStart[e + 1];
    if ((r & 1) === 0) for (let i = s; i < t; i++) { outLat.push(this.geomLat[i]); outLon.push(this.geomLon[i]); }
    else for (let i = t - 1; i >= s; i--) { outLat.push(this.geomLat[i]); outLon.push(this.geomLon[i]); }
    return t - s;
  }

  /** Name of the road the arc is on ('' if none). */
  arcName(a: number): string {
    return this.string(this.edgeNameId[this.arcEdge[a] >>> 1]);
  }

  /** `ref` of the road the arc is on (e.g. "A7"; '' if none). */
  arcRef(a: number): string {
    return this.string(this.edgeRefId[this.arcEdge[a] >>> 1]);
  }

  /** Signposted destination of the arc's road ("A28: Porto, Braga"; '' if none). */
  arcDestination(a: number): string {
    return this.string(this.edgeDestId[this.arcEdge[a] >>> 1]);
  }

  /** {@link EdgeFlag} bits of the arc's road. */
  arcFlags(a: number): number {
    return this.edgeFlags[this.arcEdge[a] >>> 1];
  }

  /** {@link HighwayClass} number of the arc's road. */
  arcHighwayClass(a: number): number {
    return this.edgeClass[this.arcEdge[a] >>> 1];
  }

  /** Class name ('residential', 'ferry', ...) of the arc's road. */
  arcHighwayClassName(a: number): string {
    return HIGHWAY_CLASS_NAMES[this.edgeClass[this.arcEdge[a] >>> 1]] ?? 'road';
  }

  /**
   * The graph as the arc list the routing kernels take (`graph/formats/arcs.ts` ArcGraph), no
   * copies: `weight` is time (ms) or length (cm), `aux` the other metric.
   */
  arcGraph(metric: 'time' | 'distance' = 'time'): { numNodes: number; tail: Uint32Array; head: Uint32Array; weight: Uint32Array; aux: Uint32Array } {
    const time = metric === 'time';
    return { numNodes: this.numNodes, tail: this.tail, head: this.head, weight: time ? this.timeMs : this.lengthCm, aux: time ? this.lengthCm : this.timeMs };
  }

  // ---- edges --------------------------------------------------------------------------------

  /**
   * A representative arc of edge e in one direction (reversed = false: along the polyline),
   * or -1 when the edge cannot be driven that way.
   */
  edgeArc(e: number, reversed: boolean): number {
    const s = this.edgeArcStart[e];
    const t = this.edgeArcStart[e + 1];
    const want = reversed ? 1 : 0;
    for (let i = s; i < t; i++) {
      const a = this.edgeArcs[i];
      if ((this.arcEdge[a] & 1) === want) return a;
    }
    return -1;
  }

  /** Length of edge e in centimetres (the length of each of its arcs). */
  edgeLengthCm(e: number): number {
    const s = this.edgeArcStart[e];
    return s < this.edgeArcStart[e + 1] ? this.lengthCm[this.edgeArcs[s]] : 0;
  }

  /** String i of the string table (0 = ''). Decoded on first use, then cached. */
  string(id: number): string {
    if (id === 0) return '';
    const c = this.strCache[id];
    if (c !== undefined) return c;
    const s = this.strOffsets[id];
    const t = this.strOffsets[id + 1];
    // TextDecoder refuses views of a SharedArrayBuffer: copy the (short) bytes first.
    const bytes = this.strBytes.buffer instanceof ArrayBuffer ? this.strBytes.subarray(s, t) : this.strBytes.slice(s, t);
    const str = utf8.decode(bytes);
    this.strCache[id] = str;
    return str;
  }

  get numStrings(): number {
    return this.strOffsets.length - 1;
  }

  /** Bounding box of all nodes and geometry. */
  bbox(): { minLat: number; minLon: number; maxLat: number; maxLon: number } {
    let minLat = Infinity, minLon = Infinity, maxLat = -Infinity, maxLon = -Infinity;
    const la = this.geomLat;
    const lo = this.geomLon;
    for (let i = 0; i < la.length; i++) {
      const y = la[i];
      const x = lo[i];
      if (y < minLat) minLat = y;
      if (y > maxLat) maxLat = y;
      if (x < minLon) minLon = x;
      if (x > maxLon) maxLon = x;
    }
    return { minLat, minLon, maxLat, maxLon };
  }

  /** Reads the directions-only arrays now if they were left to their first use (see ON_DEMAND). */
  readAll(): this {
    for (const k of ON_DEMAND) void this[k];
    return this;
  }

  /** Total bytes of the typed arrays. */
  byteSize(): number {
    let b = 0;
    for (const [name, ctor] of SECTIONS) b += lengthOf(this, name) * ctor.BYTES_PER_ELEMENT;
    return b;
  }

  // ---- persistence --------------------------------------------------------------------------

  toSections(w: BinWriter, prefix: string): void {
    w.add(`${prefix}meta`, new Uint32Array([ROAD_GRAPH_FORMAT, this.numNodes, this.numArcs, this.numEdges]));
    for (const [name] of SECTIONS) w.add(prefix + name, (this as unknown as Record<string, import('../core/binfile.js').TypedArray>)[name]);
    w.add(`${prefix}edgeDestId`, this.edgeDestId);
  }

  static fromSections(f: BinFile, prefix: string): RoadGraph {
    const meta = f.get(`${prefix}meta`, Uint32Array);
    if (meta[0] !== ROAD_GRAPH_FORMAT) throw new EngineError('DatasetFormat', `Road graph format v${meta[0]}, expected v${ROAD_GRAPH_FORMAT}.`);
    const a: Record<string, unknown> = { numNodes: meta[1], numArcs: meta[2], numEdges: meta[3] };
    // the string table read on first use: its last offset against the bytes' length (from the section table)
    const offsets = (): Uint32Array => {
      const o = f.get(`${prefix}strOffsets`, Uint32Array);
      if (o.length < 1 || o[o.length - 1] !== f.elementCount(`${prefix}strBytes`, Uint8Array)) {
        throw f.error(`the road graph's string table is inconsistent (its last offset is not the length of "${prefix}strBytes")`, { section: `${prefix}strOffsets` });
      }
      return o;
    };
    const take = (name: string, ctor: { new (b: ArrayBufferLike, o: number, l: number): ArrayBufferView; BYTES_PER_ELEMENT: number }): void => {
      const section = prefix + name;
      if (!f.readsOnDemand || !(ON_DEMAND as readonly string[]).includes(name)) a[name] = f.get(section, ctor as never);
      else onDemand(a, name, f.elementCount(section, ctor), name === 'strOffsets' ? offsets : () => f.get(section, ctor as never));
    };
    for (const [name, ctor] of SECTIONS) take(name, ctor);
    // Optional section (datasets written before destinations were kept lack it).
    if (f.has(`${prefix}edgeDestId`)) take('edgeDestId', Uint32Array);
    return new RoadGraph(a as unknown as RoadGraphArrays, !f.verified);
  }
}
