#!/usr/bin/env node
/** `dispatchkit <command> [options]` */
import { COMMANDS } from './commands/index.js';
import { EXIT, commandHelp } from './command.js';
import { isEngineError } from '../core/errors.js';

function help(): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length), 4);
  return [
    'dispatchkit: offline routing, dispatch, distance matrices and geocoding on OpenStreetMap data',
    '',
    'Usage: dispatchkit <command> [options]   (dispatchkit <command> --help for details)',
    '',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help() + '\n');
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === '--version' || name === '-v') {
    const { createRequire } = await import('node:module');
    process.stdout.write(createRequire(import.meta.url)('../../package.json').version + '\n');
    return EXIT.ok;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    process.stderr.write(`Unknown command "${name}".\n\n${help()}\n`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${commandHelp(cmd)}\n`);
    return EXIT.ok;
  }
  try {
    return await cmd.run(rest);
  } catch (e) {
    if (isEngineError(e)) {
      process.stderr.write(`error [${e.code}]: ${e.message}\n`);
      return e.code === 'InvalidInput' ? EXIT.usage : e.code === 'Internal' ? EXIT.internal : EXIT.failed;
    }
    if (e instanceof TypeError && (e as any).code?.startsWith?.('ERR_PARSE_ARGS')) {
      process.stderr.write(`${e.message}\n\nUsage: ${cmd.usage}\n`);
      return EXIT.usage;
    }
    // A file the user named that cannot be read (missing, a directory, no permission): their input.
    const fsErr = e as NodeJS.ErrnoException;
    if (fsErr && typeof fsErr.code === 'string' && typeof fsErr.syscall === 'string') {
      process.stderr.write(`error [InvalidInput]: cannot ${fsErr.syscall} ${fsErr.path ?? 'a file'} (${fsErr.code}).\n`);
      return EXIT.usage;
    }
    process.stderr.write(`internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    return EXIT.internal;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
