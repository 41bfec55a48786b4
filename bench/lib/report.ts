/**
 * Benchmark reporting: every bench script writes its table into bench/README.md between
 * `<!-- bench:<name>:start -->` and `<!-- bench:<name>:end -->`, with machine, Node version and date.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, loadavg } from 'node:os';

const README = new URL('../README.md', import.meta.url);

export function machineLine(): string {
  const c = cpus();
  return `Machine: ${c[0]?.model ?? 'unknown CPU'} × ${c.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM; ` +
    `Node ${process.version}; ${new Date().toISOString().slice(0, 10)}; 1-min load average at end ${loadavg()[0].toFixed(2)}.`;
}

/** Markdown table from rows of cells. */
export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.map(String).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Replaces (or appends) the named section of bench/README.md. */
export function writeSection(name: string, title: string, body: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n## ${title}\n\n${machineLine()}\n\n${body.trim()}\n${end}`;
  let text = existsSync(README) ? readFileSync(README, 'utf8') : '# Benchmarks\n\nEach section is written by the script named in it (`npm run bench` runs them all).\n';
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i >= 0 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length);
  else text = text.trimEnd() + '\n\n' + block + '\n';
  writeFileSync(README, text);
}

/** Median of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** p-th percentile (0..100), nearest-rank. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** Where the shared benchmark data lives, or null (benchmarks then say so and skip). */
export function sharedData(rel: string): string | null {
  const p = new URL(`../../../shared/data/${rel}`, import.meta.url).pathname;
  return existsSync(p) ? p : null;
}
