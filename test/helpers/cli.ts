/** Runs `dispatchkit` from the sources in a child process, as a user would, for the CLI tests. */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { join } from 'node:path';

/** The repository root (fixtures are under it). */
export const ROOT = new URL('../../', import.meta.url).pathname;
export const MAIN = join(ROOT, 'src/cli/main.ts');

/** `dispatchkit <args>` with `input` on standard input; stdout and stderr as text. */
export function runCli(args: string[], input?: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: ROOT, encoding: 'utf8', input, maxBuffer: 1 << 28 });
}
