/** Jobs as JSON for the faces. */
import { SERVICE_OPERATIONS, type ServiceOperationName } from '../service/operations.js';
import type { JobView } from '../service/jobs.js';

/** A job as JSON: its Result encoded with its operation's result schema (integer enums unless names are asked for). */
export function encodeJobView(v: JobView, enums: 'int' | 'name'): Record<string, unknown> {
  if (!v.Result) return { ...v };
  const op = SERVICE_OPERATIONS[v.Operation as ServiceOperationName];
  const parsed = op.result.safeParse(v.Result);
  return { ...v, Result: parsed.ok ? op.result.encode(parsed.value as never, { enums }) : v.Result };
}
