/** Small CLI helpers: reading JSON specs (file or stdin) and printing records. */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EngineError } from '../core/errors.js';

/** Reads and parses a JSON file (`-` = stdin). Throws InvalidInput naming the file. */
export function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch {
    throw new EngineError('InvalidInput', `Cannot read ${path === '-' ? 'standard input' : `"${path}"`}.`, { path: 'spec' });
  }
  try {
    return JSON.parse(text);
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
