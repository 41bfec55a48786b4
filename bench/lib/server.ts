/** `dispatchkit serve` in its own process for the server benches: resolves with its address once it listens. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Starts `dispatchkit serve --data <data> --db <db> --port 0 --rate-limit 0 --log-level warn
 * <extra>`: from the built package when `built` and dist/ exists, else from the sources (tsx).
 */
export async function startServer(data: string, db: string, extra: string[] = [], o: { built?: boolean } = {}): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const main = join(ROOT, 'dist/cli/main.js');
  const args = o.built !== false && existsSync(main) ? [main] : ['--import', 'tsx', join(ROOT, 'src/cli/main.ts')];
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
