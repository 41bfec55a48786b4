/**
 * Every record parser against hostile input: 10,000 cases per record (fast-check, fixed seeds),
 * shaped like the record (its field names in any case, values of every JSON type, nested junk)
 * and fully arbitrary. A parse never throws; what it accepts encodes and parses back to the same
 * record (enums as integers and as names).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORDS } from '../../src/records/contract.js';
import type { RecordDef } from '../../src/records/schema.js';

const junk = fc.oneof(
  fc.constantFrom(null, undefined, '', ' ', '0', '-1', 'NaN', 'Infinity', '1e309', 'true', '2026-13-45T99:99:99', '0001-01-01T00:00:00', '\u0000', 'x'.repeat(300)),
  fc.double(), fc.integer(), fc.boolean(), fc.string(), fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53, -0, Number.MAX_VALUE),
  fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.integer(), fc.string()), { maxKeys: 3 }),
);

function recordShaped(fields: string[]): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.constantFrom(...fields).chain((f) => fc.constantFrom(f, f.toLowerCase(), f.toUpperCase()));
  const value: fc.Arbitrary<unknown> = fc.oneof({ depthSize: 'small' }, junk, fc.array(fc.dictionary(key, junk, { maxKeys: 4 }), { maxLength: 3 }), fc.dictionary(key, junk, { maxKeys: 4 }));
  return fc.dictionary(key, value, { maxKeys: Math.min(8, fields.length) });
}

describe('record parsers under fuzzing', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  it.each(RECORDS.map((r) => [r.name, r as RecordDef<any>] as const))('%s: 10,000 hostile inputs, no throw, accepted ones round-trip', (_name, rec) => {
    const fields = Object.keys(rec.fields);
    fc.assert(fc.property(fc.oneof(recordShaped(fields), fc.anything()), (x) => {
      const r = rec.safeParse(x);
      expect(typeof r.ok).toBe('boolean');
      if (!r.ok) {
        expect(r.issues.length).toBeGreaterThan(0);
        return;
      }
      for (const enums of ['int', 'name'] as const) {
        const again = rec.safeParse(JSON.parse(JSON.stringify(rec.encode(r.value, { enums }))));
        expect(again.ok).toBe(true);
        if (again.ok) expect(again.value).toEqual(r.value);
      }
    }), { seed: 20261123, numRuns: 10_000 });
  });
});
