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
 * Unpacking: `unpack` holds two words per arc, [first, second] (interleaved: one cache line per
 * step of an unpacking). An arc with `second >= ORIGINAL` (high bit set) is an input arc: `first`
 * is its input arc id and `second - ORIGINAL` its input head node (so node paths need no other
 * lookup). Otherwise it is a shortcut u→w via a node v lower than both; it stands for the arc u→v, which
 * is `bwd` arc `first` (stored at v), followed by the arc v→w, which is `fwd` arc `second`
 * (stored at v). Shortcut weights and aux values are the sums of their halves.
 */
import { firstBad, type BinFile, type BinWriter } from '../core/binfile.js';
import { EngineError } from '../core/errors.js';

/** High bit of `unpack[2a+1]`: set for input arcs (the rest is the input head node). */
export const ORIGINAL = 0x80000000;

export interface ChSide {
  firstOut: Uint32Array;
  head: Uint32Array;
  weight: Uint32Array;
  /** Aux metric per arc, or a zero-length array when the input had no aux. */
  aux: Uint32Array;
  /** Per arc [first, second] (see the module comment). */
  unpack: Uint32Array;
}

export interface ChMeta {
  version: number;
  numNodes: number;
  numInputArcs: number;
  hasAux: boolean;
}

const FORMAT_VERSION = 2;
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
  ) {}

  /** Number of CH arcs (upward forward + upward backward, shortcuts included). */
  get numArcs(): number {
    return this.fwd.head.length + this.bwd.head.length;
  }

  /** Bytes held by the typed arrays. */
  byteLength(): number {
    let b = this.rank.byteLength + this.order.byteLength;
    for (const s of [this.fwd, this.bwd]) for (const k of SIDE_FIELDS) b += s[k].byteLength;
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
  }

  /** Opens a CH written by {@link toSections}: the arrays are views onto the file's buffer (no copy). */
  static fromSections(f: BinFile, prefix: string): ContractionHierarchy {
    if (!f.has(`${prefix}meta`)) throw new EngineError('DatasetFormat', `No contraction hierarchy "${prefix}" in this file.`);
    const meta = f.json<ChMeta>(`${prefix}meta`);
    if (meta.version !== FORMAT_VERSION) throw new EngineError('DatasetFormat', `Contraction hierarchy "${prefix}" has format v${meta.version}, expected v${FORMAT_VERSION}.`);
    const side = (tag: string): ChSide => {
      const s = {} as ChSide;
      for (const k of SIDE_FIELDS) s[k] = f.get(`${prefix}${tag}.${SHORT[k]}`, Uint32Array);
      return s;
    };
    const ch = new ContractionHierarchy(
      meta.numNodes, meta.numInputArcs, meta.hasAux,
      f.get(`${prefix}rank`, Uint32Array), f.get(`${prefix}order`, Uint32Array),
      side('f'), side('b'),
    );
    ch.checkShape(!f.verified);
    return ch;
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
  checkShape(deep = true): void {
    const n = this.numNodes;
    const bad = (what: string): never => {
      throw new EngineError('DatasetFormat', `Contraction hierarchy is damaged: ${what}.`);
    };
    if (!Number.isInteger(n) || !Number.isInteger(this.numInputArcs) || n < 0 || this.numInputArcs < 0) bad('node or arc count');
    if (this.rank.length !== n || this.order.length !== n) bad('rank/order length');
    for (const s of [this.fwd, this.bwd]) {
      const m = s.head.length;
      if (s.firstOut.length !== n + 1 || s.firstOut[n] !== m) bad('first-out array');
      if (s.weight.length !== m || s.unpack.length !== 2 * m) bad('arc array lengths');
      if (this.hasAux ? s.aux.length !== m : s.aux.length !== 0) bad('aux length');
    }
    if (!deep) return;
    let i: number;
    if ((i = firstBad(this.rank, n)) >= 0) bad(`rank[${i}] out of range`);
    if ((i = firstBad(this.order, n)) >= 0) bad(`order[${i}] out of range`);
    for (const [name, s] of [['forward', this.fwd], ['backward', this.bwd]] as const) {
      if ((i = firstBad(s.firstOut, s.head.length + 1, true)) >= 0) bad(`${name} first-out array not monotone from 0 (at ${i})`);
      if ((i = firstBad(s.head, n)) >= 0) bad(`${name} arc ${i} has its head out of range`);
    }
  }

  /**
   * Full consistency check (O(arcs)): arcs point upward, shortcut weights/aux equal the sums of
   * their halves, and unpack references are in range. For tests and after loading untrusted files.
   */
  validate(): void {
    this.checkShape();
    const n = this.numNodes;
    const { fwd, bwd } = this;
    const bad = (what: string): never => {
      throw new EngineError('Internal', `Contraction hierarchy invariant broken: ${what}.`);
    };
    for (let i = 0; i < n; i++) if (this.order[this.rank[i]] !== i) bad(`rank/order not inverse at ${i}`);
    for (const [name, s] of [['fwd', fwd], ['bwd', bwd]] as const) {
      for (let x = 0; x < n; x++) {
        for (let a = s.firstOut[x]; a < s.firstOut[x + 1]; a++) {
          if (s.head[a] <= x) bad(`${name} arc ${a} at ${x} is not upward`);
          const u1 = s.unpack[2 * a];
          const u2 = s.unpack[2 * a + 1];
          if (u2 >= ORIGINAL) {
            if (u1 >= this.numInputArcs) bad(`${name} arc ${a}: input arc id out of range`);
            if (u2 - ORIGINAL >= n) bad(`${name} arc ${a}: input head out of range`);
            continue;
          }
          if (u1 >= bwd.head.length || u2 >= fwd.head.length) bad(`${name} arc ${a}: unpack index out of range`);
          if (s.weight[a] !== bwd.weight[u1] + fwd.weight[u2]) bad(`${name} arc ${a}: weight is not the sum of its halves`);
          if (this.hasAux && s.aux[a] !== bwd.aux[u1] + fwd.aux[u2]) bad(`${name} arc ${a}: aux is not the sum of its halves`);
        }
      }
    }
  }
}
