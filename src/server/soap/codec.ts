/**
 * Records ⇄ XML, driven by the record schemas (never by templates per operation), as ASMX's
 * XmlSerializer reads and writes them: elements qualified in the service namespace, fields in the
 * contract's order (any order accepted on input, as .NET does), lists as a wrapper element whose
 * items are named after the item type (`<Locations><Location>…</Location></Locations>`), nil items
 * `xsi:nil="true"`, enums by name, value-type fields always written (their default when unset),
 * unset strings, records and lists omitted.
 */
import { describeType, type AnyField, type RecordDef, type Ty } from '../../records/schema.js';
import { isNil, type XmlElement, type XmlWriter } from './xml.js';

/** XSD types .NET maps to value types: always present in what it writes (minOccurs 1). */
const VALUE_TYPES = new Set(['int', 'long', 'double', 'boolean', 'dateTime', 'unsignedByte']);

/** A field of a value type (numbers, booleans, dates, enums): written even when unset. */
export function isValueField(f: AnyField): boolean {
  const d = describeType(f.ty);
  return d.enumDef !== undefined || (d.xsd !== undefined && VALUE_TYPES.has(d.xsd));
}

/** The element name of a list's items: the item type's name. */
export function itemName(ty: Ty<any, any>): string {
  const d = describeType(ty);
  return d.record?.name ?? d.enumDef?.name ?? d.xsd ?? 'item';
}

// ------------------------------------------------------------------------------ reading

/**
 * An element as the plain value its record schema parses (JSON-like: objects, arrays, strings);
 * the record's own validation then applies defaults, types and field paths. Elements outside the
 * namespace `ns` are not part of the message and are ignored; a nil element reads as null.
 */
export function readValue(el: XmlElement, ty: Ty<any, any>, ns: string): unknown {
  if (isNil(el)) return null;
  const d = describeType(ty);
  if (d.record) return readRecord(el, d.record, ns);
  if (d.list) {
    const item = d.list;
    return el.children.filter((c) => c.uri === ns).map((c) => readValue(c, item, ns));
  }
  return d.xsd === 'string' ? el.text : el.text.trim();
}

export function readRecord(el: XmlElement, rec: RecordDef<any>, ns: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = rec.fields as Record<string, AnyField>;
  const lower = new Map(Object.keys(fields).map((k) => [k.toLowerCase(), k]));
  for (const c of el.children) {
    if (c.uri !== ns) continue;
    const name = fields[c.local] ? c.local : lower.get(c.local.toLowerCase());
    if (name === undefined || name in out) continue; // unknown elements are ignored; the first of a repeated one counts
    out[name] = readValue(c, fields[name].ty, ns);
  }
  return out;
}

// ------------------------------------------------------------------------------ writing

const NULL_DATE = '0001-01-01T00:00:00';

function defaultOf(f: AnyField): unknown {
  if (f.dflt !== undefined) return f.dflt;
  const d = describeType(f.ty);
  if (d.enumDef) return d.enumDef.fromValue(0) ?? d.enumDef.names[0];
  switch (d.xsd) {
    case 'boolean': return false;
    case 'dateTime': return NULL_DATE;
    default: return 0;
  }
}

function primitiveText(xsd: string, v: unknown): string {
  switch (xsd) {
    case 'int': case 'long': case 'unsignedByte': return String(Math.round(Number(v)));
    case 'double': {
      const n = Number(v);
      return Number.isNaN(n) ? 'NaN' : n === Infinity ? 'INF' : n === -Infinity ? '-INF' : String(n);
    }
    case 'boolean': return v ? 'true' : 'false';
    default: return String(v);
  }
}

/** Writes `value` (a parsed record: enum names) as element `name` of record type `rec`. */
export function writeRecord(w: XmlWriter, name: string, value: Record<string, unknown>, rec: RecordDef<any>, attrs?: Record<string, string>): void {
  w.open(name, attrs);
  writeFields(w, value, rec);
  w.close(name);
}

/** The fields of a record, in the contract's order, inside an element already open. */
export function writeFields(w: XmlWriter, value: Record<string, unknown>, rec: RecordDef<any>): void {
  for (const [k, f] of Object.entries(rec.fields) as [string, AnyField][]) {
    let v = value[k];
    if (v === undefined || v === null) {
      if (!isValueField(f)) continue;
      v = defaultOf(f);
    }
    writeValue(w, k, v, f.ty);
  }
}

function writeValue(w: XmlWriter, name: string, v: unknown, ty: Ty<any, any>): void {
  const d = describeType(ty);
  if (d.record) writeRecord(w, name, v as Record<string, unknown>, d.record);
  else if (d.list) {
    const item = d.list;
    const iname = itemName(item);
    w.open(name);
    for (const x of v as unknown[]) {
      if (x === null || x === undefined) w.empty(iname, { 'xsi:nil': 'true' });
      else writeValue(w, iname, x, item);
    }
    w.close(name);
  } else if (d.enumDef) w.leaf(name, String(v));
  else w.leaf(name, primitiveText(d.xsd!, v));
}
