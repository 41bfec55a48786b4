/** `dispatchkit <command> --help`: every option of the usage line explained, defaults, examples. */
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { commandHelp } from '../../src/cli/command.js';
import { runCli } from '../helpers/cli.js';

describe('command help', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s: every option of its usage is explained, with examples', (_name, c) => {
    const flags = [...c.usage.matchAll(/(?<![\w-])(--[a-z][a-z-]*|-[a-z])\b/g)].map((m) => m[1]);
    const text = commandHelp(c);
    const optionLines = text.split('\n').filter((l) => /^ {2}-/.test(l));
    for (const f of new Set(flags)) expect(optionLines.some((l) => l.includes(f)), `${c.name}: ${f} is in the usage but not explained`).toBe(true);
    expect(c.examples.length).toBeGreaterThan(0);
    for (const e of c.examples) expect(e.startsWith(`dispatchkit ${c.name}`) || e.includes(`| dispatchkit ${c.name}`)).toBe(true);
  });

  it('is what `dispatchkit <command> --help` prints', () => {
    const r = runCli(['solve', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(commandHelp(COMMANDS.find((c) => c.name === 'solve')!));
    expect(r.stdout).toMatch(/--hard-limit F .*\(default: 5\)/);
  });
});
