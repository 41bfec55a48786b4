/**
 * Spatial indexes from the libraries, one per need (bench/README.md, "Spatial indexes"):
 * flatbush (a packed R-tree) for boxes — road segments, street segments, map edges — and kdbush
 * (a packed k-d tree) for points — address points. Each is one ArrayBuffer that persists as its
 * own section ({@link indexBytes}) and reopens in place, zero copy ({@link flatbushView},
 * {@link kdbushView}), so a dataset's buffer is shared with worker threads as is.
 *
 * The nearest item by an exact distance (a point-to-segment distance, a penalty by road class)
 * walks the R-tree's arrays best first ({@link NearestWalk}): Flatbush's own `neighbors` orders by
 * box distance in degrees, and made exact (growing k until the k-th box is past the best exact
 * distance) it is about twice as slow on Porto's reverse-geocoding queries (bench/spatial.ts).
 * The nearest point within a radius is kdbush's `range` over the radius' box with the exact
 * distance on the hits ({@link nearestPoint}).
 */
import Flatbush from 'flatbush';
import KDBush from 'kdbush';
import { EngineError } from './errors.js';
import { metresPerDegree } from './geo.js';


/** The bytes of a built index (its own ArrayBuffer region), to persist as one section. */
export function indexBytes(ix: Flatbush | KDBush): Uint8Array {
  if (ix instanceof Flatbush) {
    const end = ix._indices.byteOffset + ix._indices.byteLength;
    return new Uint8Array(ix.data, ix.byteOffset, end - ix.byteOffset);
  }
  const end = ix.coords.byteOffset + ix.coords.byteLength;
  return new Uint8Array(ix.data, 0, end);
}

/** Reopens a Flatbush index held in `bytes` (a view onto its buffer: nothing is copied). Throws `DatasetFormat` naming `what`. */
export function flatbushView(bytes: Uint8Array, what: string): Flatbush {
  if (bytes.byteLength < 8) throw new EngineError('DatasetFormat', `${what} is unreadable: ${bytes.byteLength} bytes.`);
  let ix: Flatbush;
  try {
    ix = Flatbush.from(bytes.buffer, bytes.byteOffset);
  } catch (e) {
    throw new EngineError('DatasetFormat', `${what} is unreadable: ${(e as Error).message}`);
  }
  // Flatbush reads its sizes from its own header: they must stay inside the bytes given.
  if (ix._indices.byteOffset + ix._indices.byteLength > bytes.byteOffset + bytes.byteLength) {
    throw new EngineError('DatasetFormat', `${what} runs past the end of its section.`);
  }
  return ix;
}

const KDBUSH_TYPES = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array];

/**
 * Reopens a KDBush index held in `bytes`, zero copy. `KDBush.from` reads a buffer from its first
 * byte only; this is the same reading (kdbush's serialised format v1: magic 0xdb, version and
 * coordinate type, node size, item count, then the ids and the coordinates) at any 8-aligned
 * offset. Throws `DatasetFormat` naming `what`.
 */
export function kdbushView(bytes: Uint8Array, what: string): KDBush {
  const bad = (why: string) => new EngineError('DatasetFormat', `${what} is unreadable: ${why}.`);
  if (bytes.byteLength < 8) throw bad(`${bytes.byteLength} bytes`);
  if (bytes.byteOffset % 8 !== 0) throw bad('not 8-byte aligned');
  const buf = bytes.buffer;
  const off = bytes.byteOffset;
  if (bytes[0] !== 0xdb) throw bad('not a kdbush index');
  if (bytes[1] >> 4 !== 1) throw bad(`kdbush format v${bytes[1] >> 4}, expected v1`);
  const ArrayType = KDBUSH_TYPES[bytes[1] & 0x0f];
  if (!ArrayType) throw bad('unknown coordinate type');
  const nodeSize = new Uint16Array(buf, off + 2, 1)[0];
  const numItems = new Uint32Array(buf, off + 4, 1)[0];
  const IndexArrayType = numItems < 65536 ? Uint16Array : Uint32Array;
  const idsBytes = numItems * IndexArrayType.BYTES_PER_ELEMENT;
  const pad = (8 - (idsBytes % 8)) % 8;
  const need = 8 + idsBytes + pad + numItems * 2 * ArrayType.BYTES_PER_ELEMENT;
  if (need > bytes.byteLength || nodeSize < 2) throw bad(`${numItems} items need ${need} bytes, the section has ${bytes.byteLength}`);
  if (off === 0 && bytes.byteLength === buf.byteLength) return KDBush.from(buf);
  const kd = Object.create(KDBush.prototype) as KDBush;
  Object.assign(kd, {
    numItems, nodeSize, ArrayType, IndexArrayType, data: buf,
    ids: new IndexArrayType(buf as ArrayBuffer, off + 8, numItems),
    coords: new ArrayType(buf as ArrayBuffer, off + 8 + idsBytes + pad, numItems * 2),
    _pos: numItems * 2, _finished: true,
  });
  return kd;
}

/** Largest float32 value ≤ v (a box corner rounded outwards, so box distances stay lower bounds). */
/**
 * The bounding box `[minLon, minLat, maxLon, maxLat]` of points `from … to` (both included) of a
 * polyline held as latitude and longitude arrays: a chunk of segments indexed as one item.
 */
export function polylineBox(lat: ArrayLike<number>, lon: ArrayLike<number>, from: number, to: number): [number, number, number, number] {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let p = from; p <= to; p++) {
    const y = lat[p], x = lon[p];
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return [x0, y0, x1, y1];
}

export function f32Down(v: number): number {
  const f = Math.fround(v);
  return f <= v ? f : nextF32(f, -1);
}

/** Smallest float32 value ≥ v. */
export function f32Up(v: number): number {
  const f = Math.fround(v);
  return f >= v ? f : nextF32(f, 1);
}

const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);
/** The float32 neighbour of f (itself a float32) toward +∞ (dir 1) or −∞ (dir −1). */
function nextF32(f: number, dir: 1 | -1): number {
  if (f === 0) return dir * 1.401298464324817e-45;
  f32buf[0] = f;
  u32buf[0] += (f > 0) === (dir > 0) ? 1 : -1;
  return f32buf[0];
}

/**
 * The min-heap of the best-first R-tree walks (NearestWalk, graph/snap.ts): node positions and
 * keys in two arrays the walk owns. After the root is taken from a heap of n + 1 entries, the
 * last one (at n) sinks from the root.
 */
export function heapFill(ids: Int32Array, keys: Float64Array, n: number): void {
  const lid = ids[n];
  const lk = keys[n];
  let i = 0;
  for (;;) {
    let c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && keys[c + 1] < keys[c]) c++;
    if (keys[c] >= lk) break;
    ids[i] = ids[c];
    keys[i] = keys[c];
    i = c;
  }
  ids[i] = lid;
  keys[i] = lk;
}

/** Adds `id` with `key` at slot `n` (the heap's size before it; the arrays have room) and sifts it up. */
export function heapPush(ids: Int32Array, keys: Float64Array, n: number, id: number, key: number): void {
  let i = n;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (keys[parent] <= key) break;
    ids[i] = ids[parent];
    keys[i] = keys[parent];
    i = parent;
  }
  ids[i] = id;
  keys[i] = key;
}

/** Where the Flatbush level holding box position `pos` ends (its `_levelBounds`, ×4). */
export function levelEnd(levelBounds: ArrayLike<number>, pos: number): number {
  for (let k = 0; k < levelBounds.length; k++) if (levelBounds[k] > pos) return levelBounds[k];
  return 0;
}

/**
 * The nearest item of a Flatbush index (x = longitude, y = latitude) by an exact distance:
 * a best-first walk over the R-tree's own arrays, boxes measured in a flat projection around the
 * query (core/geo `metresPerDegree`), leaves by `dist`. `dist(item)` must never be less than the
 * flat distance to the item's box (a point-to-segment distance in the same projection is; a
 * penalty added to it too). A reusable query: it owns its heap.
 */
export class NearestWalk {
  private readonly boxes: ArrayLike<number>;
  private readonly indices: Uint16Array | Uint32Array;
  private readonly levelBounds: number[];
  private readonly nodeSize4: number;
  private readonly numItems4: number;
  private heapIds = new Int32Array(64);
  private heapKeys = new Float64Array(64);

  constructor(readonly index: Flatbush) {
    this.boxes = index._boxes;
    this.indices = index._indices;
    this.levelBounds = index._levelBounds;
    this.nodeSize4 = index.nodeSize * 4;
    this.numItems4 = index.numItems * 4;
  }

  /**
   * The item (the index's insertion number) minimising `dist` among those nearer than `maxDist`
   * (strictly), ties to the lower item; `item` -1 and `dist` Infinity when none.
   */
  nearest(lat: number, lon: number, maxDist: number, dist: (item: number) => number): { item: number; dist: number } {
    const { kx, ky } = metresPerDegree(lat);
    const boxes = this.boxes;
    const indices = this.indices;
    const levelBounds = this.levelBounds;
    const nodeSize4 = this.nodeSize4;
    const numItems4 = this.numItems4;
    let ids = this.heapIds;
    let keys = this.heapKeys;
    let best = -1;
    let bestD = maxDist;
    ids[0] = boxes.length - 4;
    keys[0] = 0;
    let hn = 1;
    while (hn > 0) {
      const pos = ids[0];
      const top = keys[0];
      hn--;
      if (hn > 0) heapFill(ids, keys, hn);
      if (top > bestD) break;
      const leaf = pos < numItems4;
      const end = Math.min(pos + nodeSize4, levelEnd(levelBounds, pos));
      for (let p = pos; p < end; p += 4) {
        const minX = boxes[p], minY = boxes[p + 1], maxX = boxes[p + 2], maxY = boxes[p + 3];
        let dx = minX - lon > lon - maxX ? minX - lon : lon - maxX;
        if (dx < 0) dx = 0;
        let dy = minY - lat > lat - maxY ? minY - lat : lat - maxY;
        if (dy < 0) dy = 0;
        dx *= kx;
        dy *= ky;
        const bd = Math.sqrt(dx * dx + dy * dy);
        if (bd > bestD) continue;
        const child = indices[p >> 2];
        if (leaf) {
          const d = dist(child);
          if (d < bestD || (d === bestD && best >= 0 && child < best)) {
            bestD = d;
            best = child;
          }
          continue;
        }
        if (hn === ids.length) {
          const ni = new Int32Array(hn * 2); ni.set(ids); ids = this.heapIds = ni;
          const nk = new Float64Array(hn * 2); nk.set(keys); keys = this.heapKeys = nk;
        }
        heapPush(ids, keys, hn++, child, bd);
      }
    }
    return best >= 0 ? { item: best, dist: bestD } : { item: -1, dist: Infinity };
  }
}

/**
 * The point of a KDBush index (x = longitude, y = latitude) minimising `dist` among those nearer
 * than `maxDist` metres (strictly), ties to the lower item; `item` -1 and `dist` Infinity when
 * none. `dist(item)` must be at least the flat distance (core/geo `metresPerDegree` at the query)
 * to the item's coordinates; `slackDeg` widens the searched box by the index's coordinate
 * rounding (float32 coordinates: {@link F32_SLACK_DEG}).
 */
export function nearestPoint(kd: KDBush, lat: number, lon: number, maxDist: number, dist: (item: number) => number, slackDeg = 0): { item: number; dist: number } {
  if (kd.numItems === 0 || !(maxDist > 0)) return { item: -1, dist: Infinity };
  const { kx, ky } = metresPerDegree(lat);
  const r = maxDist * (1 + 1e-12);
  const dLat = r / ky + slackDeg;
  const dLon = (kx > 1e-9 ? r / kx : 360) + slackDeg;
  let best = -1;
  let bestD = maxDist;
  const hits = kd.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat);
  for (let k = 0; k < hits.length; k++) {
    const it = hits[k];
    const d = dist(it);
    if (d < bestD || (d === bestD && best >= 0 && it < best)) {
      bestD = d;
      best = it;
    }
  }
  return best >= 0 ? { item: best, dist: bestD } : { item: -1, dist: Infinity };
}

/** How far (degrees) a coordinate of ±180 at most moves when stored as float32: half its ulp (2^-16), with a margin. */
export const F32_SLACK_DEG = 2 ** -15;
