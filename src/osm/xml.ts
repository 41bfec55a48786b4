/**
 * A minimal OSM XML reader for tiny hand-made test networks (`fixtures/tiny/*.osm`), and an
 * in-memory element source for networks built in code. Both offer the same `read(handlers)` as
 * {@link OsmPbfFile}, so the graph builder takes any of them.
 *
 * The XML reader understands the subset OSM editors write: `<node>`, `<way>` with `<nd>`,
 * `<relation>` with `<member>`, `<tag>`, comments, the XML declaration and the five predefined
 * entities plus numeric character references. It is not meant for large files (it holds all).
 */
import { readFileSync } from 'node:fs';
import { EngineError } from '../core/errors.js';
import { throwIfAborted, type LongWorkOptions } from '../core/cancel.js';
import { MemberType, type OsmHandlers, type RelationMember, type Tags } from './pbf.js';

/** Anything the graph builder can read OSM elements from (an OsmPbfFile qualifies). */
export interface OsmSource {
  read(h: OsmHandlers, opts?: LongWorkOptions & { phase?: string }): void;
}

export interface OsmNodeElement { id: number; lat: number; lon: number; tags?: Tags }
export interface OsmWayElement { id: number; refs: number[]; tags: Tags }
export interface OsmRelationElement { id: number; members: RelationMember[]; tags: Tags }

/** OSM elements held in memory; `read` replays them (nodes, then ways, then relations). */
export class OsmElements implements OsmSource {
  readonly nodes: OsmNodeElement[] = [];
  readonly ways: OsmWayElement[] = [];
  readonly relations: OsmRelationElement[] = [];

  node(id: number, lat: number, lon: number, tags?: Tags): this {
    this.nodes.push({ id, lat, lon, tags });
    return this;
  }

  way(id: number, refs: number[], tags: Tags): this {
    this.ways.push({ id, refs, tags });
    return this;
  }

  relation(id: number, members: { type: 'node' | 'way' | 'relation' | MemberType; ref: number; role: string }[], tags: Tags): this {
    this.relations.push({
      id,
      members: members.map((m) => ({ type: typeof m.type === 'number' ? m.type : memberType(m.type), ref: m.ref, role: m.role })),
      tags,
    });
    return this;
  }

  read(h: OsmHandlers, opts: LongWorkOptions = {}): void {
    throwIfAborted(opts.signal);
    if (h.node) for (const n of this.nodes) h.node(n.id, n.lat, n.lon, n.tags && Object.keys(n.tags).length > 0 ? n.tags : null);
    if (h.way) {
      let buf = new Float64Array(64);
      for (const w of this.ways) {
        if (w.refs.length > buf.length) buf = new Float64Array(w.refs.length * 2);
        for (let i = 0; i < w.refs.length; i++) buf[i] = w.refs[i];
        h.way(w.id, buf, w.refs.length, w.tags);
      }
    }
    if (h.relation) for (const r of this.relations) h.relation(r.id, r.members, r.tags);
  }

  /** Serialises to OSM XML (handy to turn a generated network into a fixture). */
  toXml(): string {
    const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6" generator="dispatchkit">'];
    const tagLines = (t: Tags | undefined) => Object.entries(t ?? {}).map(([k, v]) => `    <tag k="${esc(k)}" v="${esc(v)}"/>`);
    for (const n of this.nodes) {
      const tl = tagLines(n.tags);
      if (tl.length === 0) out.push(`  <node id="${n.id}" lat="${n.lat}" lon="${n.lon}"/>`);
      else out.push(`  <node id="${n.id}" lat="${n.lat}" lon="${n.lon}">`, ...tl, '  </node>');
    }
    for (const w of this.ways) out.push(`  <way id="${w.id}">`, ...w.refs.map((r) => `    <nd ref="${r}"/>`), ...tagLines(w.tags), '  </way>');
    for (const r of this.relations) {
      out.push(`  <relation id="${r.id}">`, ...r.members.map((m) => `    <member type="${['node', 'way', 'relation'][m.type]}" ref="${m.ref}" role="${esc(m.role)}"/>`), ...tagLines(r.tags), '  </relation>');
    }
    out.push('</osm>', '');
    return out.join('\n');
  }
}

function memberType(t: string): MemberType {
  if (t === 'node') return MemberType.Node;
  if (t === 'way') return MemberType.Way;
  if (t === 'relation') return MemberType.Relation;
  throw new EngineError('InvalidInput', `Unknown OSM member type "${t}".`);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function unesc(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e];
  });
}

const ATTR = /([A-Za-z_][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function attrs(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  ATTR.lastIndex = 0;
  for (let m = ATTR.exec(s); m; m = ATTR.exec(s)) out[m[1]] = unesc(m[2] ?? m[3] ?? '');
  return out;
}

function num(a: Record<string, string>, k: string, where: string): number {
  const v = Number(a[k]);
  if (a[k] === undefined || !Number.isFinite(v)) throw new EngineError('InvalidInput', `OSM XML: ${where} has no valid "${k}" attribute.`);
  return v;
}

/** Parses OSM XML text into in-memory elements. */
export function parseOsmXml(text: string): OsmElements {
  const out = new OsmElements();
  const re = /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<(\/?)([A-Za-z_][\w:.-]*)([^>]*?)(\/?)>/g;
  type Open = { kind: 'node'; el: OsmNodeElement } | { kind: 'way'; el: OsmWayElement } | { kind: 'relation'; el: OsmRelationElement } | null;
  let cur: Open = null;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[2] === undefined) continue; // comment or declaration
    const closing = m[1] === '/';
    const name = m[2];
    const selfClosing = m[4] === '/';
    if (closing) {
      if ((name === 'node' || name === 'way' || name === 'relation') && cur && cur.kind === name) cur = null;
      continue;
    }
    const a = attrs(m[3]);
    switch (name) {
      case 'node': {
        const el: OsmNodeElement = { id: num(a, 'id', 'node'), lat: num(a, 'lat', `node ${a.id}`), lon: num(a, 'lon', `node ${a.id}`) };
        out.nodes.push(el);
        cur = selfClosing ? null : { kind: 'node', el };
        break;
      }
      case 'way': {
        const el: OsmWayElement = { id: num(a, 'id', 'way'), refs: [], tags: {} };
        out.ways.push(el);
        cur = selfClosing ? null : { kind: 'way', el };
        break;
      }
      case 'relation': {
        const el: OsmRelationElement = { id: num(a, 'id', 'relation'), members: [], tags: {} };
        out.relations.push(el);
        cur = selfClosing ? null : { kind: 'relation', el };
        break;
      }
      case 'nd':
        if (cur?.kind === 'way') cur.el.refs.push(num(a, 'ref', `way ${cur.el.id} nd`));
        break;
      case 'member':
        if (cur?.kind === 'relation') cur.el.members.push({ type: memberType(a.type ?? ''), ref: num(a, 'ref', `relation ${cur.el.id} member`), role: a.role ?? '' });
        break;
      case 'tag':
        if (cur && a.k !== undefined) {
          if (cur.kind === 'node') (cur.el.tags ??= {})[a.k] = a.v ?? '';
          else cur.el.tags[a.k] = a.v ?? '';
        }
        break;
      default:
        break; // osm, bounds, ...
    }
  }
  return out;
}

/** Reads an `.osm` XML file. */
export function readOsmXmlFile(path: string): OsmElements {
  return parseOsmXml(readFileSync(path, 'utf8'));
}
