/** Small CLI helpers: reading JSON specs (file or stdin) and printing records. */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EngineError } from '../core/errors.js';
import { checkThreads } from '../workers/pool.js';

/** Reads and parses a JSON file (`-` = stdin; a leading UTF-8 BOM is ignored). Throws InvalidInput naming the file. */
export function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch {
    throw new EngineError('InvalidInput', `Cannot read ${path === '-' ? 'standard input' : `"${path}"`}.`, { path: 'spec' });
  }
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw new EngineError('InvalidInput', `${path}: not valid JSON (${(e as Error).message}).`, { path: 'spec' });
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Where the package lives (for the embedded fixture and the default data folder). */
export const PACKAGE_ROOT = new URL('../../', import.meta.url);

/** Options several commands share, for `parseArgs`. */
export const DATA_OPTION = { data: { type: 'string', short: 'd' } } as const;
export const QUIET_OPTION = { quiet: { type: 'boolean', short: 'q' } } as const;
export const NAMES_OPTION = { names: { type: 'boolean' } } as const;

/** `util.parseArgs` for a sub-command: positionals allowed, unknown options refused. */
export function parseCommandArgs<O extends ParseArgsConfig['options']>(argv: string[], options: O): ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: O }>> {
  return parseArgs({ args: argv, allowPositionals: true, options });
}

/**
 * Checks, before any work starts, that `path` can be written as an output file: not a directory,
 * its folder exists and is writable, an existing file is writable. InvalidInput (exit code 2)
 * naming the option otherwise.
 */
export function checkOutputPath(path: string, option: string): void {
  const fail = (why: string): never => {
    throw new EngineError('InvalidInput', `${option} ${path}: ${why}.`, { path: option.replace(/^-+/, '') });
  };
  let st;
  try {
    st = statSync(path);
  } catch {
    st = null;
  }
  if (st?.isDirectory()) fail('is a directory (give a file name)');
  const dir = dirname(resolve(path));
  let dst;
  try {
    dst = statSync(dir);
  } catch {
    return fail(`the folder ${dir} does not exist`);
  }
  if (!dst.isDirectory()) fail(`${dir} is not a folder`);
  try {
    accessSync(st ? path : dir, constants.W_OK);
  } catch {
    fail(st ? 'the file is not writable' : `the folder ${dir} is not writable`);
  }
}

/** A `--threads`/`--workers` value: a whole number from 1 to MAX_THREADS (workers/pool.ts), else InvalidInput. */
export function parseThreads(value: string | undefined, fallback: number, option = '--threads'): number {
  return value === undefined ? fallback : checkThreads(value, option.replace(/^-+/, ''), option);
}
