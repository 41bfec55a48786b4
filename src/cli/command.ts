/** The shape of one CLI sub-command. Commands parse their own argv with util.parseArgs. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code. Data goes to stdout, progress and diagnostics to stderr. */
  run(argv: string[]): Promise<number>;
}

/** Exit codes: 0 ok, 1 failed operation, 2 bad usage/input, 3 internal error. */
export const EXIT = { ok: 0, failed: 1, usage: 2, internal: 3 } as const;
