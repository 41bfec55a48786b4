/**
 * CheckSpecification: a specification checked without running it — the record's validation (the
 * Errors its operation would answer, naming the fields), the linter's warnings with the service's
 * dataset (ops/lint.ts, FarFromRoad included), and the record as the operation reads it (values
 * coerced, defaults applied, enums by name). The page reads every file it loads through it, so a
 * file means on the page what it means to the API. Long specifications are validated, linted and
 * written in slices: the event loop keeps answering.
 */
import { detectSpecificationKind, lintSpecificationSliced, specificationSchema, type LintKind } from '../../ops/lint.js';
import { issueMessage, joined, jsonSliced, RawJson, safeParseSliced, type Parsed, type CheckSpecificationSchema, type SpecificationKind } from '../../records/index.js';
import type { Call } from '../call.js';

const LINT_KIND: Record<SpecificationKind, LintKind> = { Dispatch: 'Dispatch', Geocode: 'Geocode', Distance: 'CalculateDistance' };
const KIND_OF: Record<LintKind, SpecificationKind> = { Dispatch: 'Dispatch', Geocode: 'Geocode', CalculateDistance: 'Distance' };

export async function checkSpecification(spec: Parsed<typeof CheckSpecificationSchema>, call: Call): Promise<Record<string, unknown>> {
  const raw = spec.Specification;
  const lintKind = spec.Kind !== undefined ? LINT_KIND[spec.Kind] : detectSpecificationKind(raw);
  if (lintKind === undefined) {
    return {
      Status: 'Failed', Warnings: [],
      Errors: [{ Message: 'Kind: cannot tell which specification this is (none of its properties is a field of a Dispatch, Geocode or Distance specification); give Kind.' }],
    };
  }
  const kind = KIND_OF[lintKind];
  const schema = specificationSchema(lintKind);
  const warnings = (await lintSpecificationSliced(lintKind, raw, call.service.engine.context(), call.signal))
    .map((w) => ({ Code: w.code, Path: w.path, Message: w.message }));
  const parsed = await safeParseSliced(schema, raw ?? {});
  if (!parsed.ok) {
    return { Status: 'Failed', Kind: kind, Warnings: warnings, Errors: parsed.issues.map((i) => ({ Message: issueMessage(i) })) };
  }
  return {
    Status: 'Success', Errors: [], Kind: kind, Warnings: warnings,
    // written once, enums by name, whatever enum form the caller asked for the rest
    ...(spec.ReturnSpecification ? { Specification: new RawJson(joined(await jsonSliced(schema, parsed.value, { enums: 'name' }))) } : {}),
  };
}
