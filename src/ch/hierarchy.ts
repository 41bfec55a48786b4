/**
 * The contraction hierarchy as stored: two upward CSR graphs over internal ids, plus what is
 * needed to translate ids and to unpack shortcuts into input arc ids.
 *
 * Internal ids: nodes are renumbered so that every CH arc goes from a lower to a higher id (the
 * contraction order, optionally re-arranged for cache locality — see build.ts). `rank[inputNode]`
 * is a node's internal id and `order[internalId]` the input node.
 *
 * `fwd` holds, at node x, the upward arcs x→y of the original direction (y > x). `bwd` holds, at
 * node x, the upward arcs y→x *reversed* (stored as x→y, y > x): the forward search of a query
 * runs on `fwd`, the backward search on `bwd`.
 *
 * Unpacking (format v3). `unpack` has one word per arc: ORIGINAL + the input arc id for an input
 * arc, else the index of the shortcut's entry in `shortcuts`. An entry is three words [A, B, M]
 * for a shortcut u→w via a node v lower than both: A is its first half u→v (a `bwd` arc stored
 * at v), B its second half v→w (a `fwd` arc stored at v), each written as that arc's own
 * `unpack` word (ORIGINAL + input arc id, or the half's entry index), and M is v (input id).
 * So an unpacking reads one entry per shortcut and nothing for an input arc (its head is known:
 * v for a first half, w for a second), and the entries of the shortcuts only are packed together,
 * in the order an unpacking reads them (depth first from the highest middle nodes down, ch/build.ts;
 * files written before that have them in the order of the nodes storing them — any order reads).
 * A half's middle node is below its parent's, so unpacking always terminates; loading checks that.
 * Shortcut weights and aux values are the sums of their halves. Version 2 files (two words per
 * arc: [input arc id, ORIGINAL + input head] or [bwd arc index, fwd arc index]) are converted
 * when opened.
 */
import { firstBad, lengthOf, onDemand, type BinFile, type BinWriter } from '../core/binfile.js';
import { EngineError } from '../core/errors.js';

/** Added to an input arc id in `unpack` and in shortcut entries: marks an input arc. */
export const ORIGINAL = 0x80000000;
/** Words per shortcut entry in `shortcuts`. */
export const ENTRY_WORDS = 3;

export interface ChSide {
  firstOut: Uint32Array;
  head: Uint32Array;
  weight: Uint32Array;
  /** Aux metric per arc, or a zero-length array when the input had no aux. */
  aux: Uint32Array;
  /** Per arc: ORIGINAL + input arc id, or its entry in `shortcuts` (see the module comment). */
  unpack: Uint32Array;
}

export interface ChMeta {
  version: number;
  numNodes: number;
  numInputArcs: number;
  hasAux: boolean;
}

const FORMAT_VERSION = 3;
/** Still read: converted to v3 when opened. */
const V2 = 2;
const SIDE_FIELDS = ['firstOut', 'head', 'weight', 'aux', 'unpack'] as const;
const SHORT: Record<(typeof SIDE_FIELDS)[number], string> = {
  firstOut: 'first', head: 'head', weight: 'w', aux: 'aux', unpack: 'unpack',
};

export class ContractionHierarchy {
  constructor(
    readonly numNodes: number,
    readonly numInputArcs: number,
    readonly hasAux: boolean,
    /** Input node id → internal id. */
    readonly rank: Uint32Array,
    /** Internal id → input node id. */
    readonly order: Uint32Array,
    readonly fwd: ChSide,
    readonly bwd: ChSide,
    /** [first half, second half, middle node] per shortcut (see the module comment). */
    readonly shortcuts: Uint32Array,
  ) {}

  /** Number of shortcuts (entries in `shortcuts`). */
  get numShortcuts(): number {
    return lengthOf(this, 'shortcuts') / ENTRY_WORDS;
  }

  /** Number of CH arcs (upward forward + upward backward, shortcuts included). */
  get numArcs(): number {
    return this.fwd.head.length + this.bwd.head.length;
  }

  /** Reads the unpacking data now if it was left to its first use ({@link fromSections}). */
  readAll(): this {
    void this.fwd.unpack; void this.bwd.unpack; void this.shortcuts;
    return this;
  }

  /** Bytes held by the typed arrays. */
  byteLength(): number {
    let b = this.rank.byteLength + this.order.byteLength + 4 * lengthOf(this, 'shortcuts');
    for (const s of [this.fwd, this.bwd]) for (const k of SIDE_FIELDS) b += 4 * lengthOf(s, k);
    return b;
  }

  /** Writes the CH as sections named `<prefix><field>` (prefix ≤ 24 characters). */
  toSections(w: BinWriter, prefix: string): void {
    const meta: ChMeta = { version: FORMAT_VERSION, numNodes: this.numNodes, numInputArcs: this.numInputArcs, hasAux: this.hasAux };
    w.addJson(`${prefix}meta`, meta);
    w.add(`${prefix}rank`, this.rank);
    w.add(`${prefix}order`, this.order);
    for (const [tag, side] of [['f', this.fwd], ['b', this.bwd]] as const) {
      for (const k of SIDE_FIELDS) w.add(`${prefix}${tag}.${SHORT[k]}`, side[k]);
    }
    w.add(`${prefix}sc`, this.shortcuts);
  }

  /** Opens a CH written by {@link toSections}: the arrays are views onto the file's buffer (no copy). */
  static fromSections(f: BinFile, prefix: string): ContractionHierarchy {
    if (!f.has(`${prefix}meta`)) throw new EngineError('DatasetFormat', `No contraction hierarchy "${prefix}" in this file.`);
    const meta = f.json<ChMeta>(`${prefix}meta`);
    if (meta.version !== FORMAT_VERSION && meta.version !== V2) throw new EngineError('DatasetFormat', `Contraction hierarchy "${prefix}" has format v${meta.version}, expected v${FORMAT_VERSION}.`);
    // The unpacking data (a third of the bytes) is read when a path is first unpacked: routing
    // does, a dispatch or a matrix never does (v2 files read it now, to convert it).
    const lazy = f.readsOnDemand && meta.version !== V2;
    const side = (tag: string): ChSide => {
      const s = {} as ChSide;
      for (const k of SIDE_FIELDS) {
        const name = `${prefix}${tag}.${SHORT[k]}`;
        if (k === 'unpack' && lazy) onDemand(s, k, f.elementCount(name, Uint32Array), () => f.get(name, Uint32Array));
        else s[k] = f.get(name, Uint32Array);
      }
      return s;
    };
    const rank = f.get(`${prefix}rank`, Uint32Array);
    const order = f.get(`${prefix}order`, Uint32Array);
    const fwd = side('f');
    const bwd = side('b');
    if (meta.version === V2) {
      const old = new ContractionHierarchy(meta.numNodes, meta.numInputArcs, meta.hasAux, rank, order, fwd, bwd, new Uint32Array(0));
      old.checkShape(true, 2);
      const ch = old.upgradedFromV2();
      ch.checkShape();
      return ch;
    }
    const sc = `${prefix}sc`;
    const ch = new ContractionHierarchy(meta.numNodes, meta.numInputArcs, meta.hasAux, rank, order, fwd, bwd, lazy ? new Uint32Array(0) : f.get(sc, Uint32Array));
    if (lazy) onDemand(ch, 'shortcuts', f.elementCount(sc, Uint32Array), () => f.get(sc, Uint32Array));
    ch.checkShape(!f.verified);
    return ch;
  }

  /**
   * This hierarchy with its v2 unpack words ([first, second] per arc, every half an arc index)
   * rewritten as v3 (new arrays; the file's are not changed). O(arcs · log nodes).
   */
  private upgradedFromV2(): ContractionHierarchy {
    const { fwd, bwd, order, numNodes: n } = this;
    const bad = (what: string): never => {
      throw new EngineError('DatasetFormat', `Contraction hierarchy is damaged: ${what}.`);
    };
    const lowerEnd = (first: Uint32Array, a: number): number => {
      let lo = 0;
      let hi = first.length - 2;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (first[mid] <= a) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    };
    // Entry indices node by node first (its fwd shortcuts, then its bwd ones), laid out depth first at the end.
    const ref = (s: ChSide): Uint32Array => new Uint32Array(s.head.length);
    const fRef = ref(fwd);
    const bRef = ref(bwd);
    let count = 0;
    for (let x = 0; x < n; x++) {
      for (const [s, r] of [[fwd, fRef], [bwd, bRef]] as const) {
        for (let a = s.firstOut[x]; a < s.firstOut[x + 1]; a++) {
          const first = s.unpack[2 * a];
          const second = s.unpack[2 * a + 1];
          if (second >= ORIGINAL) r[a] = ORIGINAL + first;
          else {
            if (first >= bwd.head.length || second >= fwd.head.length) bad('unpack index out of range');
            r[a] = count++;
          }
        }
      }
    }
    const sc = new Uint32Array(ENTRY_WORDS * count);
    for (const [s, r] of [[fwd, fRef], [bwd, bRef]] as const) {
      for (let a = 0; a < s.head.length; a++) {
        if (r[a] >= ORIGINAL) continue;
        const first = s.unpack[2 * a];
        const second = s.unpack[2 * a + 1];
        const i = ENTRY_WORDS * r[a];
        sc[i] = bRef[first];
        sc[i + 1] = fRef[second];
        sc[i + 2] = order[lowerEnd(bwd.firstOut, first)];
      }
    }
    const side = (s: ChSide, r: Uint32Array): ChSide => ({ firstOut: s.firstOut, head: s.head, weight: s.weight, aux: s.aux, unpack: r });
    const sides = [side(fwd, fRef), side(bwd, bRef)];
    return new ContractionHierarchy(n, this.numInputArcs, this.hasAux, this.rank, order, sides[0], sides[1], depthFirstEntries(this.rank, sides, sc));
  }

  /**
   * Structural checks in O(nodes + arcs), so a damaged file fails loudly instead of reading
   * out of range: lengths; rank and order in range; each side's first-out array
   * starting at 0, monotone, ending at its arc count; heads in range. Flat loops, a few ms for
   * both hierarchies on Porto. Permutations, upward arcs, unpack references and shortcut weights are left to
   * {@link validate} (O(arcs) more). With `deep` false only the lengths are checked:
   * {@link fromSections} does so for a file whose checksums were verified (the bytes the builder
   * wrote; keeps a cold Porto open within 50 ms). Unverified opens (`verify: false`, container v1)
   * get the full check.
   */
  checkShape(deep = true, unpackWords = 1): void {
    const n = this.numNodes;
    const bad = (what: string): never => {
      throw new EngineError('DatasetFormat', `Contraction hierarchy is damaged: ${what}.`);
    };
    if (!Number.isInteger(n) || !Number.isInteger(this.numInputArcs) || n < 0 || this.numInputArcs < 0) bad('node or arc count');
    if (this.rank.length !== n || this.order.length !== n) bad('rank/order length');
    for (const s of [this.fwd, this.bwd]) {
      const m = s.head.length;
      if (s.firstOut.length !== n + 1 || s.firstOut[n] !== m) bad('first-out array');
      if (s.weight.length !== m || lengthOf(s, 'unpack') !== unpackWords * m) bad('arc array lengths');
      if (this.hasAux ? s.aux.length !== m : s.aux.length !== 0) bad('aux length');
    }
    if (unpackWords === 1 && lengthOf(this, 'shortcuts') % ENTRY_WORDS !== 0) bad('shortcut entries length');
    if (!deep) return;
    let i: number;
    if ((i = firstBad(this.rank, n)) >= 0) bad(`rank[${i}] out of range`);
    if ((i = firstBad(this.order, n)) >= 0) bad(`order[${i}] out of range`);
    for (const [name, s] of [['forward', this.fwd], ['backward', this.bwd]] as const) {
      if ((i = firstBad(s.firstOut, s.head.length + 1, true)) >= 0) bad(`${name} first-out array not monotone from 0 (at ${i})`);
      if ((i = firstBad(s.head, n)) >= 0) bad(`${name} arc ${i} has its head out of range`);
    }
    if (unpackWords !== 1) return;
    // Unpack references in range, and every half's middle node below its parent's (internal ids:
    // strictly decreasing along any chain of halves, so unpacking ends).
    const ns = this.numShortcuts;
    const mIn = this.numInputArcs;
    const okRef = (r: number): boolean => (r >= ORIGINAL ? r - ORIGINAL < mIn : r < ns);
    for (const [name, s] of [['forward', this.fwd], ['backward', this.bwd]] as const) {
      const u = s.unpack;
      for (let a = 0; a < u.length; a++) if (!okRef(u[a])) bad(`${name} arc ${a} has its unpack reference out of range`);
    }
    const sc = this.shortcuts;
    const rank = this.rank;
    for (let e = 0; e < ns; e++) {
      if (!okRef(sc[3 * e]) || !okRef(sc[3 * e + 1]) || sc[3 * e + 2] >= n) bad(`shortcut entry ${e} out of range`);
    }
    const below = (r: number, mid: number): boolean => r >= ORIGINAL || rank[sc[3 * r + 2]] < mid;
    for (let e = 0; e < ns; e++) {
      const mid = rank[sc[3 * e + 2]];
      if (!below(sc[3 * e], mid) || !below(sc[3 * e + 1], mid)) bad(`shortcut entry ${e} has a half whose middle node is not below its own`);
    }
  }

  /**
   * Full consistency check (O(arcs · degree)): arcs point upward; every shortcut has its own
   * entry; a shortcut u→w via v has its halves at v (u→v in `bwd`, v→w in `fwd`), the entry names
   * them by their own unpack words, and its weight/aux are the sums of theirs. For tests and after
   * loading untrusted files.
   */
  validate(): void {
    this.checkShape();
    const n = this.numNodes;
    const { fwd, bwd, rank, order, shortcuts: sc } = this;
    const bad = (what: string): never => {
      throw new EngineError('Internal', `Contraction hierarchy invariant broken: ${what}.`);
    };
    for (let i = 0; i < n; i++) if (order[rank[i]] !== i) bad(`rank/order not inverse at ${i}`);
    /** The arc of `s` stored at `at` with head `h` (internal ids), or -1. */
    const find = (s: ChSide, at: number, h: number): number => {
      for (let a = s.firstOut[at]; a < s.firstOut[at + 1]; a++) if (s.head[a] === h) return a;
      return -1;
    };
    const owner = new Uint8Array(this.numShortcuts);
    for (const [name, s] of [['fwd', fwd], ['bwd', bwd]] as const) {
      for (let x = 0; x < n; x++) {
        for (let a = s.firstOut[x]; a < s.firstOut[x + 1]; a++) {
          const y = s.head[a];
          if (y <= x) bad(`${name} arc ${a} at ${x} is not upward`);
          const r = s.unpack[a];
          if (r >= ORIGINAL) continue;
          if (owner[r]) bad(`shortcut entry ${r} belongs to two arcs`);
          owner[r] = 1;
          // Travel direction u→w: fwd arcs go x→y, bwd arcs y→x.
          const u = name === 'fwd' ? x : y;
          const w = name === 'fwd' ? y : x;
          const v = rank[sc[3 * r + 2]];
          if (v >= x) bad(`${name} arc ${a}: middle node not below the shortcut`);
          const h1 = find(bwd, v, u);
          const h2 = find(fwd, v, w);
          if (h1 < 0 || h2 < 0) bad(`${name} arc ${a}: a half is missing at its middle node`);
          if (sc[3 * r] !== bwd.unpack[h1] || sc[3 * r + 1] !== fwd.unpack[h2]) bad(`${name} arc ${a}: its entry does not name the arcs at the middle node`);
          if (s.weight[a] !== bwd.weight[h1] + fwd.weight[h2]) bad(`${name} arc ${a}: weight is not the sum of its halves`);
          if (this.hasAux && s.aux[a] !== bwd.aux[h1] + fwd.aux[h2]) bad(`${name} arc ${a}: aux is not the sum of its halves`);
        }
      }
    }
    if (owner.indexOf(0) >= 0) bad('a shortcut entry belongs to no arc');
  }
}

/**
 * Lays the shortcut entries out in the order an unpacking reads them: depth first (an entry, then
 * its first half's tree, then its second half's), the trees taken from the highest middle node
 * down, so that unpacking a long path mostly reads the next words of the table instead of jumping
 * through it (Moscow, query + node path: 0.69–0.71× the time with entries in the order of the
 * nodes storing them, same process; docs/ch.md). A half shared by several shortcuts sits in the
 * tree of the first. Rewrites the sides' unpack words; returns the new table. The build and the
 * conversion of version 2 files both lay their tables out so.
 */
export function depthFirstEntries(rank: Uint32Array, sides: ChSide[], sc: Uint32Array): Uint32Array {
  const n = rank.length;
  const count = sc.length / ENTRY_WORDS;
  // roots: entries by their middle node's internal id, highest first (a counting sort)
  const cnt = new Uint32Array(n + 1);
  for (let r = 0; r < count; r++) cnt[n - rank[sc[3 * r + 2]]]++;
  for (let i = 0; i < n; i++) cnt[i + 1] += cnt[i];
  const roots = new Uint32Array(count);
  for (let r = 0; r < count; r++) roots[cnt[n - 1 - rank[sc[3 * r + 2]]]++] = r;
  const pos = new Int32Array(count).fill(-1);
  const stack = new Uint32Array(count + 1);
  let next = 0;
  for (let i = 0; i < count; i++) {
    if (pos[roots[i]] >= 0) continue;
    let sp = 0;
    stack[sp++] = roots[i];
    while (sp > 0) {
      const r = stack[--sp];
      if (pos[r] >= 0) continue;
      pos[r] = next++;
      const a = sc[3 * r];
      const b = sc[3 * r + 1];
      if (b < ORIGINAL && pos[b] < 0) stack[sp++] = b;
      if (a < ORIGINAL && pos[a] < 0) stack[sp++] = a;
    }
  }
  const out = new Uint32Array(sc.length);
  for (let r = 0; r < count; r++) {
    const q = 3 * pos[r];
    const a = sc[3 * r];
    const b = sc[3 * r + 1];
    out[q] = a >= ORIGINAL ? a : pos[a];
    out[q + 1] = b >= ORIGINAL ? b : pos[b];
    out[q + 2] = sc[3 * r + 2];
  }
  for (const side of sides) {
    const u = side.unpack;
    for (let p = 0; p < u.length; p++) if (u[p] < ORIGINAL) u[p] = pos[u[p]];
  }
  return out;
}
