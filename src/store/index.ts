/**
 * The service's persistence: {@link openStore} picks the backend from a database spec and
 * migrates it. See `types.ts` for the contract both backends fulfil.
 */
import { invalidInput } from '../core/errors.js';
import { PgStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export type {
  Account, AccountAudit, AccountStore, JobRecord, JobState, JobStore, LedgerEntry, LedgerKind, LedgerStore, NewRoute, PruneCounts, PruneRequest,
  RetentionStore, RouteFilter, RouteStore, Store, StoreLifecycle, StoredRoute, TrackPoint, TrackStore, Usage, UsageEntry,
} from './types.js';
export { SUGGESTED_RETENTION_DAYS, retentionCutoffs } from './rules.js';
export { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.js';
export { SqliteStore, type SqliteStoreOptions } from './sqlite.js';
export { PgStore, maskUrl, type PgStoreOptions } from './postgres.js';
export { hashPassword, keyHash, newApiKey, newSessionKey, sameDigest, verifyPassword } from './hash.js';

export interface OpenStoreOptions {
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number;
  /** PostgreSQL: the schema of the tables (overrides `?schema=` of the URL). */
  schema?: string;
}

/**
 * Which backend a spec names: `sqlite:<path>`, `sqlite::memory:`, a bare path ending in `.db`,
 * `.sqlite` or `.sqlite3` (SQLite); `postgres://…` or `postgresql://…` (PostgreSQL, optionally
 * `?schema=name`). Throws InvalidInput (path `db`) for anything else.
 */
export function parseStoreSpec(spec: string): { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string } {
  if (typeof spec !== 'string' || spec.trim() === '') throw invalidInput('db', 'is empty: give sqlite:<file> or postgres://…');
  if (/^postgres(ql)?:\/\//i.test(spec)) return { kind: 'postgres', url: spec };
  if (/^sqlite:/i.test(spec)) {
    let path = spec.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2); // sqlite:///abs/file.db
    if (path === '') throw invalidInput('db', `'${spec}' names no file (sqlite:<file> or sqlite::memory:)`);
    return { kind: 'sqlite', path };
  }
  if (/\.(db|sqlite|sqlite3)$/i.test(spec)) return { kind: 'sqlite', path: spec };
  throw invalidInput('db', `'${spec}' is not a database: give sqlite:<file>, a file ending in .db or .sqlite, or postgres://user@host/db`);
}

/** Opens the database named by `spec` (see {@link parseStoreSpec}) and applies its migrations. */
export async function openStore(spec: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const s = parseStoreSpec(spec);
  const store: Store = s.kind === 'sqlite'
    ? new SqliteStore(s.path)
    : new PgStore({ url: s.url, poolSize: opts.poolSize, schema: opts.schema });
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}
