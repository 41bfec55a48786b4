/**
 * Customizable contraction hierarchy (Dibbelt, Strasser & Wagner 2016), for routing under
 * restrictions that arrive with the request (no-go zones): the metric-independent part — a
 * nested-dissection order and the chordal supergraph it induces — is built once with the
 * dataset; a *customization* then weighs it for one metric and one set of blocked arcs in a
 * single pass over its lower triangles, and many-to-many queries run as elimination-tree searches
 * (no priority queue) with buckets.
 *
 * - Order: recursive geometric bisection. Each cell is cut along the best of 8 projections at one
 *   of 7 fractions around the median; the separator is a minimum vertex cover of the cut edges
 *   (König), ranked above both halves.
 * - Topology: nodes are eliminated in rank order; each node's upward neighbours (fill-in
 *   included) are merged into its lowest upward neighbour, its parent in the elimination tree.
 *   Every upward neighbour of a node is one of its elimination-tree ancestors, so a search from a
 *   node only ever visits its ancestors.
 * - Weights: per CCH arc (x → y, rank x < y) an upward weight (x to y) and a downward one (y to
 *   x), each with an aux value (the other metric along the same path, lexicographic ties).
 *
 * Kernel: typed arrays only; nothing here knows of records, threads or restrictions' geometry.
 */
import type { BinFile, BinWriter } from '../core/binfile.js';

export interface CchGraph {
  numNodes: number;
  numArcs: number;
  tail: ArrayLike<number>;
  head: ArrayLike<number>;
  lat: ArrayLike<number>;
  lon: ArrayLike<number>;
}

const LEAF = 24;
/** Where a cell may be cut along a projection (fractions of its nodes on the low side). */
const SPLITS = [0.5, 0.45, 0.55, 0.4, 0.6, 0.35, 0.65];
/** Projections tried per cell: directions k·180°/DIRECTIONS. */
const DIRECTIONS = 8;

/** The metric-independent part: order, upward CSR in rank space, elimination tree, graph-arc map. */
export class CchTopology {
  constructor(
    /** rank[node] and node at rank. */
    readonly rank: Uint32Array,
    readonly order: Uint32Array,
    /** Upward arcs of rank x: upHead[firstUp[x] .. firstUp[x+1]), ascending ranks. */
    readonly firstUp: Uint32Array,
    readonly upHead: Uint32Array,
    /** Elimination-tree parent (rank), or -1 at a root. */
    readonly parent: Int32Array,
    /** Per graph arc: its CCH arc, or -1 (a loop); and 1 when it runs downwards (tail ranked above head). */
    readonly arcOf: Int32Array,
    readonly arcDown: Uint8Array,
  ) {}

  get numNodes(): number { return this.rank.length; }
  get numArcs(): number { return this.upHead.length; }

  static build(g: CchGraph): CchTopology {
    const n = g.numNodes;
    // undirected adjacency
    const deg = new Uint32Array(n + 1);
    for (let a = 0; a < g.numArcs; a++) { if (g.tail[a] === g.head[a]) continue; deg[g.tail[a]]++; deg[g.head[a]]++; }
    const first = new Uint32Array(n + 1);
    for (let v = 0; v < n; v++) first[v + 1] = first[v] + deg[v];
    const adj = new Uint32Array(first[n]);
    const fill = first.slice(0, n);
    for (let a = 0; a < g.numArcs; a++) {
      const t = g.tail[a], h = g.head[a];
      if (t === h) continue;
      adj[fill[t]++] = h;
      adj[fill[h]++] = t;
    }
    const order = nestedDissection(g, first, adj);
    const rank = new Uint32Array(n);
    for (let i = 0; i < n; i++) rank[order[i]] = i;
    // elimination in rank order (fill-in goes to the parent)
    const up: number[][] = Array.from({ length: n }, () => []);
    for (let v = 0; v < n; v++) {
      const x = rank[v];
      for (let i = first[v]; i < first[v + 1]; i++) { const y = rank[adj[i]]; if (y > x) up[x].push(y); }
    }
    const firstUp = new Uint32Array(n + 1);
    const parent = new Int32Array(n).fill(-1);
    const heads: number[] = [];
    for (let x = 0; x < n; x++) {
      const l = up[x];
      l.sort((a, b) => a - b);
      let k = 0;
      for (let i = 0; i < l.length; i++) if (i === 0 || l[i] !== l[i - 1]) l[k++] = l[i];
      l.length = k;
      firstUp[x] = heads.length;
      for (const y of l) heads.push(y);
      if (k > 0) {
        const p = l[0];
        parent[x] = p;
        const pl = up[p];
        for (let i = 1; i < k; i++) pl.push(l[i]);
      }
      up[x] = [];
    }
    firstUp[n] = heads.length;
    const upHead = Uint32Array.from(heads);
    const arcOf = new Int32Array(g.numArcs).fill(-1);
    const arcDown = new Uint8Array(g.numArcs);
    for (let a = 0; a < g.numArcs; a++) {
      const x = rank[g.tail[a]], y = rank[g.head[a]];
      if (x === y) continue;
      const lo = x < y ? x : y, hi = x < y ? y : x;
      let l = firstUp[lo], r = firstUp[lo + 1] - 1;
      while (l < r) { const m = (l + r) >> 1; if (upHead[m] < hi) l = m + 1; else r = m; }
      arcOf[a] = l;
      arcDown[a] = x > y ? 1 : 0;
    }
    return new CchTopology(rank, order, firstUp, upHead, parent, arcOf, arcDown);
  }

  /** Largest number of elimination-tree ancestors of a node (the search space bound). */
  maxDepth(): number {
    const n = this.numNodes;
    const depth = new Uint32Array(n);
    let best = 0;
    for (let x = n - 1; x >= 0; x--) {
      const p = this.parent[x];
      depth[x] = p < 0 ? 1 : depth[p] + 1;
      if (depth[x] > best) best = depth[x];
    }
    return best;
  }

  toSections(w: BinWriter, prefix: string): void {
    w.add(`${prefix}rank`, this.rank).add(`${prefix}order`, this.order).add(`${prefix}firstUp`, this.firstUp)
      .add(`${prefix}upHead`, this.upHead).add(`${prefix}parent`, this.parent).add(`${prefix}arcOf`, this.arcOf).add(`${prefix}arcDown`, this.arcDown);
  }

  static has(f: BinFile, prefix: string): boolean {
    return f.has(`${prefix}rank`);
  }

  static fromSections(f: BinFile, prefix: string): CchTopology {
    const t = new CchTopology(
      f.get(`${prefix}rank`, Uint32Array), f.get(`${prefix}order`, Uint32Array), f.get(`${prefix}firstUp`, Uint32Array),
      f.get(`${prefix}upHead`, Uint32Array), f.get(`${prefix}parent`, Int32Array), f.get(`${prefix}arcOf`, Int32Array), f.get(`${prefix}arcDown`, Uint8Array),
    );
    const n = t.rank.length;
    if (t.order.length !== n || t.firstUp.length !== n + 1 || t.parent.length !== n || t.firstUp[n] !== t.upHead.length || t.arcOf.length !== t.arcDown.length) {
      throw f.error('the customizable hierarchy is inconsistent (array lengths disagree)', { section: `${prefix}rank` });
    }
    return t;
  }
}

/** Nested-dissection order by recursive geometric bisection (separators ranked last). */
function nestedDissection(g: CchGraph, first: Uint32Array, adj: Uint32Array): Uint32Array {
  const n = g.numNodes;
  let lat0 = 0;
  for (let v = 0; v < n; v++) lat0 += g.lat[v];
  lat0 = n > 0 ? lat0 / n : 0;
  const kx = Math.cos((lat0 * Math.PI) / 180);
  const px = new Float64Array(n), py = new Float64Array(n);
  for (let v = 0; v < n; v++) { px[v] = g.lon[v] * kx; py[v] = g.lat[v]; }
  const side = new Uint32Array(n); // stamp * 4 + side (1 = A, 2 = B)
  let stamp = 0;
  const order = new Uint32Array(n);
  let head = 0; // next free rank from the bottom
  const key = new Float64Array(n);
  // Work list: (cell nodes, where its order goes). Separators are written from the top of each cell's range.
  interface Cell { nodes: Uint32Array; lo: number }
  const stack: Cell[] = [{ nodes: Uint32Array.from({ length: n }, (_, i) => i), lo: 0 }];
  void head;
  while (stack.length > 0) {
    const { nodes, lo } = stack.pop()!;
    const m = nodes.length;
    if (m <= LEAF) {
      // small cell: lowest degree first
      const l = Array.from(nodes).sort((a, b) => (first[a + 1] - first[a]) - (first[b + 1] - first[b]) || a - b);
      for (let i = 0; i < m; i++) order[lo + i] = l[i];
      continue;
    }
    let best: { sep: number[]; a: number[]; b: number[]; score: number } | null = null;
    for (let dir = 0; dir < DIRECTIONS; dir++) {
      const cx = Math.cos((dir * Math.PI) / DIRECTIONS), cy = Math.sin((dir * Math.PI) / DIRECTIONS);
      for (let i = 0; i < m; i++) {
        const v = nodes[i];
        key[v] = px[v] * cx + py[v] * cy;
      }
      const sorted = Array.from(nodes).sort((a, b) => key[a] - key[b] || a - b);
      for (const frac of SPLITS) {
        const cutAt = Math.max(1, Math.min(m - 1, Math.round(m * frac)));
        const s = ++stamp;
        for (let i = 0; i < m; i++) side[sorted[i]] = s * 4 + (i < cutAt ? 1 : 2);
        const sep = minCutCover(sorted, cutAt, s, side, first, adj);
        // a smaller separator wins; an unbalanced split pays for it
        const score = sep.length * (1 + 2 * Math.abs(frac - 0.5));
        if (best !== null && score >= best.score) continue;
        const inSep = new Set(sep);
        const a: number[] = [], b: number[] = [];
        for (let i = 0; i < m; i++) { const v = sorted[i]; if (inSep.has(v)) continue; (i < cutAt ? a : b).push(v); }
        best = { sep, a, b, score };
      }
      if (best !== null && best.sep.length === 0) break;
    }
    const { sep, a, b } = best!;
    // ranks: [lo, lo+|a|) for a, then b, then the separator on top
    const top = lo + a.length + b.length;
    for (let i = 0; i < sep.length; i++) order[top + i] = sep[i];
    stack.push({ nodes: Uint32Array.from(a), lo });
    stack.push({ nodes: Uint32Array.from(b), lo: lo + a.length });
  }
  return order;
}

/**
 * The smallest set of nodes that separates the two sides of a cut (sides stamped `s*4+1` for the
 * first `cutAt` of `sorted`, `s*4+2` for the rest): a minimum vertex cover of the bipartite graph
 * of cut edges (König: maximum matching by augmenting paths, then alternating reachability).
 */
function minCutCover(sorted: number[], cutAt: number, s: number, side: Uint32Array, first: Uint32Array, adj: Uint32Array): number[] {
  // left = boundary of side 1, with its cut neighbours on side 2
  const leftNodes: number[] = [];
  const nbrs: number[][] = [];
  const rightId = new Map<number, number>();
  const rightNodes: number[] = [];
  for (let i = 0; i < cutAt; i++) {
    const v = sorted[i];
    let list: number[] | null = null;
    for (let k = first[v]; k < first[v + 1]; k++) {
      const u = adj[k];
      if (side[u] !== s * 4 + 2) continue;
      let r = rightId.get(u);
      if (r === undefined) { r = rightNodes.length; rightId.set(u, r); rightNodes.push(u); }
      (list ??= []).push(r);
    }
    if (list !== null) { leftNodes.push(v); nbrs.push(list); }
  }
  const L = leftNodes.length, R = rightNodes.length;
  if (L === 0) return [];
  const matchL = new Int32Array(L).fill(-1), matchR = new Int32Array(R).fill(-1);
  const seenR = new Int32Array(R).fill(-1);
  // Kuhn's augmenting paths (iterative DFS)
  for (let l0 = 0; l0 < L; l0++) {
    const stackL: number[] = [l0], stackI: number[] = [0];
    const via: number[] = []; // right node taken at each depth
    let found = false;
    while (stackL.length > 0 && !found) {
      const d = stackL.length - 1;
      const l = stackL[d];
      if (stackI[d] >= nbrs[l].length) { stackL.pop(); stackI.pop(); via.pop(); continue; }
      const r = nbrs[l][stackI[d]++];
      if (seenR[r] === l0) continue;
      seenR[r] = l0;
      via[d] = r;
      if (matchR[r] < 0) found = true;
      else { stackL.push(matchR[r]); stackI.push(0); }
    }
    if (found) for (let d = 0; d < stackL.length; d++) { matchL[stackL[d]] = via[d]; matchR[via[d]] = stackL[d]; }
  }
  // König: Z = reachable from unmatched left nodes by alternating paths; cover = (L \ Z) ∪ (R ∩ Z)
  const zL = new Uint8Array(L), zR = new Uint8Array(R);
  const queue: number[] = [];
  for (let l = 0; l < L; l++) if (matchL[l] < 0) { zL[l] = 1; queue.push(l); }
  for (let h = 0; h < queue.length; h++) {
    for (const r of nbrs[queue[h]]) {
      if (zR[r]) continue;
      zR[r] = 1;
      const l2 = matchR[r];
      if (l2 >= 0 && !zL[l2]) { zL[l2] = 1; queue.push(l2); }
    }
  }
  const cover: number[] = [];
  for (let l = 0; l < L; l++) if (!zL[l]) cover.push(leftNodes[l]);
  for (let r = 0; r < R; r++) if (zR[r]) cover.push(rightNodes[r]);
  return cover;
}

/** One customization: CCH arc weights (and aux) for a metric, with some graph arcs blocked. */
export class CchMetric {
  readonly up: Float64Array;
  readonly down: Float64Array;
  readonly upAux: Float64Array;
  readonly downAux: Float64Array;

  constructor(readonly topo: CchTopology) {
    const m = topo.numArcs;
    this.up = new Float64Array(m);
    this.down = new Float64Array(m);
    this.upAux = new Float64Array(m);
    this.downAux = new Float64Array(m);
  }

  /**
   * Weighs the hierarchy: `weight`/`aux` per graph arc, arcs with blocked[a] ≠ 0 left out. After
   * it, every CCH arc holds the best path between its ends through lower-ranked nodes (ties
   * broken by the smaller aux).
   */
  customize(weight: ArrayLike<number>, aux: ArrayLike<number>, blocked: Uint8Array | null = null): this {
    const t = this.topo;
    const { up, down, upAux, downAux } = this;
    up.fill(Infinity); down.fill(Infinity); upAux.fill(Infinity); downAux.fill(Infinity);
    const arcOf = t.arcOf, arcDown = t.arcDown;
    for (let a = 0; a < arcOf.length; a++) {
      const e = arcOf[a];
      if (e < 0 || (blocked !== null && blocked[a] !== 0)) continue;
      const w = weight[a], x = aux[a];
      if (arcDown[a]) { if (w < down[e] || (w === down[e] && x < downAux[e])) { down[e] = w; downAux[e] = x; } }
      else if (w < up[e] || (w === up[e] && x < upAux[e])) { up[e] = w; upAux[e] = x; }
    }
    const firstUp = t.firstUp, upHead = t.upHead;
    const n = t.numNodes;
    for (let x = 0; x < n; x++) {
      const end = firstUp[x + 1];
      for (let i = firstUp[x]; i < end; i++) {
        const dI = down[i], uI = up[i];
        if (dI === Infinity && uI === Infinity) continue;
        const dIa = downAux[i], uIa = upAux[i];
        const y = upHead[i];
        let j = firstUp[y];
        for (let k = i + 1; k < end; k++) {
          const z = upHead[k];
          while (upHead[j] !== z) j++;
          // y → x → z (upward along y–z) and z → x → y (downward)
          const c1 = dI + up[k];
          if (c1 <= up[j]) { const a1 = dIa + upAux[k]; if (c1 < up[j] || a1 < upAux[j]) { up[j] = c1; upAux[j] = a1; } }
          const c2 = down[k] + uI;
          if (c2 <= down[j]) { const a2 = downAux[k] + uIa; if (c2 < down[j] || a2 < downAux[j]) { down[j] = c2; downAux[j] = a2; } }
        }
      }
    }
    return this;
  }
}

/** A seed of a search: a graph node with the cost (and aux) of reaching it / of going on from it. */
export interface CchSeed { node: number; cost: number; aux: number }

/**
 * Many-to-many on a customized hierarchy: a backward elimination-tree search per target fills
 * buckets, a forward one per source scans them. Reusable; owns its scratch memory.
 */
export class CchQuery {
  private readonly d: Float64Array;
  private readonly da: Float64Array;
  private readonly seen: Uint32Array;
  private epoch = 0;
  private readonly buf: Int32Array;
  /** Nodes visited by the searches (work measure). */
  visited = 0;

  constructor(readonly metric: CchMetric) {
    const n = metric.topo.numNodes;
    this.d = new Float64Array(n);
    this.da = new Float64Array(n);
    this.seen = new Uint32Array(n);
    this.buf = new Int32Array(n);
  }

  /** Elimination-tree search from the seeds: the reached ancestors' ranks, ascending (a view on scratch memory); costs in d/da. */
  private search(seeds: readonly CchSeed[], backward: boolean): Int32Array {
    const t = this.metric.topo;
    const parent = t.parent, rank = t.rank, firstUp = t.firstUp, upHead = t.upHead;
    const W = backward ? this.metric.down : this.metric.up;
    const WA = backward ? this.metric.downAux : this.metric.upAux;
    const d = this.d, da = this.da, seen = this.seen;
    if (++this.epoch === 0xffffffff) { seen.fill(0); this.epoch = 1; }
    const e = this.epoch;
    const buf = this.buf;
    let k = 0;
    for (const s of seeds) {
      for (let x = rank[s.node]; x >= 0 && seen[x] !== e; x = parent[x]) { seen[x] = e; d[x] = Infinity; da[x] = Infinity; buf[k++] = x; }
    }
    const list = buf.subarray(0, k);
    if (seeds.length > 1) list.sort(); // one seed: its ancestors come in rank order already
    for (const s of seeds) {
      const x = rank[s.node];
      if (s.cost < d[x] || (s.cost === d[x] && s.aux < da[x])) { d[x] = s.cost; da[x] = s.aux; }
    }
    for (let q = 0; q < k; q++) {
      const x = list[q];
      const dx = d[x];
      if (dx === Infinity) continue;
      const ax = da[x];
      const end = firstUp[x + 1];
      for (let i = firstUp[x]; i < end; i++) {
        const c = dx + W[i];
        const y = upHead[i];
        if (c < d[y] || (c === d[y] && ax + WA[i] < da[y])) { d[y] = c; da[y] = ax + WA[i]; }
      }
    }
    this.visited += k;
    return list;
  }

  /**
   * Best (cost, aux) from every source to every target, row-major into `cost`/`aux` (Infinity when
   * unreachable). A source's seeds are where its paths may start; a target's, where they may end.
   */
  manyToMany(sources: readonly (readonly CchSeed[])[], targets: readonly (readonly CchSeed[])[], cost: Float64Array, aux: Float64Array): void {
    const nT = targets.length;
    const n = this.metric.topo.numNodes;
    // buckets: per rank, entries (target, cost, aux) — counted, then filled
    const count = new Uint32Array(n + 1);
    const lists: Float64Array[] = [];
    for (let j = 0; j < nT; j++) {
      const l = this.search(targets[j], true);
      const packed = new Float64Array(l.length * 3);
      let k = 0;
      for (const x of l) {
        if (this.d[x] === Infinity) continue;
        packed[k++] = x; packed[k++] = this.d[x]; packed[k++] = this.da[x];
        count[x + 1]++;
      }
      lists.push(packed.subarray(0, k));
    }
    for (let x = 0; x < n; x++) count[x + 1] += count[x];
    const bT = new Uint32Array(count[n]);
    const bC = new Float64Array(count[n]);
    const bA = new Float64Array(count[n]);
    const pos = count.slice(0, n);
    for (let j = 0; j < nT; j++) {
      const p = lists[j];
      for (let k = 0; k < p.length; k += 3) { const x = p[k]; const q = pos[x]++; bT[q] = j; bC[q] = p[k + 1]; bA[q] = p[k + 2]; }
    }
    cost.fill(Infinity, 0, sources.length * nT);
    aux.fill(Infinity, 0, sources.length * nT);
    for (let i = 0; i < sources.length; i++) {
      const l = this.search(sources[i], false);
      const row = i * nT;
      for (const x of l) {
        const dx = this.d[x];
        if (dx === Infinity) continue;
        const ax = this.da[x];
        for (let q = count[x]; q < count[x + 1]; q++) {
          const c = dx + bC[q];
          const o = row + bT[q];
          if (c < cost[o] || (c === cost[o] && ax + bA[q] < aux[o])) { cost[o] = c; aux[o] = ax + bA[q]; }
        }
      }
    }
  }
}
