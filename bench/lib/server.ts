/** `dispatchkit serve` in its own process for the server benches: resolves with its address once it listens. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import { keyHash, newApiKey } from '../../src/store/hash.js';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Starts `dispatchkit serve --data <data> --db <db> --port 0 --rate-limit 0 --log-level warn
 * <extra>`: from `main` (another build's dist/cli/main.js: a baseline), else from the built
 * package when `built` and dist/ exists, else from the sources (tsx).
 */
export async function startServer(data: string, db: string, extra: string[] = [], o: { built?: boolean; main?: string } = {}): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const main = o.main ?? join(ROOT, 'dist/cli/main.js');
  const args = o.main !== undefined || (o.built !== false && existsSync(main)) ? [main] : ['--import', 'tsx', join(ROOT, 'src/cli/main.ts')];
  const child = spawn(process.execPath, [...args, 'serve', '--data', data, '--db', db, '--port', '0', '--rate-limit', '0', '--log-level', 'warn', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving .* on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', (c) => reject(new Error(`server exited ${c}: ${err}`)));
  });
  return { url, pid: child.pid!, stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
}

/**
 * A server from the sources on a fresh SQLite database in a temporary folder, with one account
 * ('bench', 10^12 credits): its address, its API key, its pid, and a stop that also removes the folder.
 */
export async function benchServer(data: string, extra: string[] = []): Promise<{ url: string; key: string; pid: number; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'dk-bench-'));
  const db = `sqlite:${join(dir, 'bench.db')}`;
  const store = await openStore(db);
  const key = newApiKey();
  await store.createAccount({ name: 'bench', keyHash: keyHash(key), passwordHash: null, credit: 1e12, now: Date.now() });
  await store.close();
  const server = await startServer(data, db, extra, { built: false });
  return { url: server.url, key, pid: server.pid, stop: async () => { await server.stop(); rmSync(dir, { recursive: true, force: true }); } };
}
