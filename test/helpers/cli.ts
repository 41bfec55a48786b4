/** Runs `dispatchkit` in a child process, as a user would, for the CLI tests. */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { builtIsCurrent } from '../../src/workers/pool.js';

/** The repository root (fixtures are under it). */
export const ROOT = new URL('../../', import.meta.url).pathname;
export const MAIN = join(ROOT, 'src/cli/main.ts');

/**
 * Node's arguments that run `dispatchkit`: the built CLI (`dist/cli/main.js`, what users run) when
 * the build is up to date with the sources — as the worker threads choose (workers/pool.ts) — else
 * the sources through tsx. A child started through tsx spends ~2 s more compiling (3.2 against
 * 1.4 s for `accounts list`), and the tests start hundreds. `DK_CLI=ts` or `dist` forces either.
 */
export const CLI: readonly string[] = (() => {
  const built = join(ROOT, 'dist/cli/main.js');
  const forced = process.env.DK_CLI;
  const useBuilt = forced === 'dist' || (forced !== 'ts' && existsSync(built) && builtIsCurrent(join(ROOT, 'dist/workers/entry.cjs'), join(ROOT, 'src')));
  return useBuilt ? [built] : ['--import', 'tsx', MAIN];
})();

/** `dispatchkit <args>` with `input` on standard input; stdout and stderr as text. */
export function runCli(args: string[], input?: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8', input, maxBuffer: 1 << 28 });
}
