/** JSON Schema (draft 2020-12) export of the contract's records, derived from the one schema source. */
import { describeType, type AnyField, type EnumDef, type RecordDef, type SchemaRefs } from './schema.js';
import { ENUMS, RECORDS } from './contract.js';

export function contractJsonSchema(): Record<string, unknown> {
  const refs: SchemaRefs = {
    ref: (r) => ({ $ref: `#/$defs/${r.name}` }),
    refEnum: (e) => ({ $ref: `#/$defs/${e.name}` }),
  };
  const defs: Record<string, unknown> = {};
  for (const e of ENUMS) defs[e.name] = enumSchema(e);
  for (const r of RECORDS) defs[r.name] = recordSchema(r, refs);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://dispatchkit.dev/schema/contract.json',
    title: 'dispatchkit service records',
    description: 'Records of the routing/dispatch service contract. Property names bind case-insensitively on input; enums accept names or integers.',
    $defs: defs,
  };
}

/** One enum's JSON Schema (names or integers). */
export function enumJsonSchema(e: EnumDef<string>): object {
  return enumSchema(e);
}

function enumSchema(e: EnumDef<string>): object {
  return {
    description: `${e.name}: ${e.describeValues()}. Accepts the name (case-insensitive) or the integer.`,
    anyOf: [{ type: 'string', enum: e.acceptedNames }, { type: 'integer', enum: [...new Set(Object.values(e.values as Record<string, number>))] }],
  };
}

function recordSchema(r: RecordDef<any>, refs: SchemaRefs): object {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [k, f] of Object.entries(r.fields) as [string, AnyField][]) {
    const s: Record<string, unknown> = { ...(f.ty.jsonSchema(refs) as object) };
    if (f.presence === 'def') s.default = f.dflt;
    if (f.doc) s.description = f.doc;
    const d = describeType(f.ty);
    if (d.xsd) s['x-xsd-type'] = d.xsd;
    properties[k] = s;
    if (f.presence === 'req') required.push(k);
  }
  const out: Record<string, unknown> = { type: 'object', title: r.name, properties };
  if (r.base) out['x-extends'] = r.base.name;
  if (required.length) out.required = required;
  return out;
}

/** One record's JSON Schema, its references as `#/$defs/<Name>`. */
export function recordJsonSchema(r: RecordDef<any>): object {
  return recordSchema(r, { ref: (x) => ({ $ref: `#/$defs/${x.name}` }), refEnum: (e) => ({ $ref: `#/$defs/${e.name}` }) });
}
