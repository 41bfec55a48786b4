/** The shape of one CLI sub-command. Commands parse their own argv with util.parseArgs. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Every option with what it does and its default (`dispatchkit <command> --help`). */
  options: CommandOption[];
  /** Example command lines. */
  examples: string[];
  /** Returns the process exit code. Data goes to stdout, progress and diagnostics to stderr. */
  run(argv: string[]): Promise<number>;
}

export interface CommandOption {
  /** As typed, with its value: `--time-limit S`, `-o, --out <file>`. */
  flag: string;
  description: string;
  default?: string;
}

/** The `--help` text of a command: summary, usage, options with defaults, examples. */
export function commandHelp(c: Command): string {
  const w = Math.max(0, ...c.options.map((o) => o.flag.length));
  const lines = [c.summary, '', `Usage: ${c.usage}`];
  if (c.options.length > 0) {
    lines.push('', 'Options:');
    for (const o of c.options) lines.push(`  ${o.flag.padEnd(w)}  ${o.description}${o.default !== undefined ? ` (default: ${o.default})` : ''}`);
  }
  if (c.examples.length > 0) lines.push('', 'Examples:', ...c.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

/** Exit codes: 0 ok, 1 failed operation, 2 bad usage/input, 3 internal error. */
export const EXIT = { ok: 0, failed: 1, usage: 2, internal: 3 } as const;
