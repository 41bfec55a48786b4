/**
 * Every error thrown in src/ is a coded EngineError: no bare `new Error(...)` anywhere (a bare
 * Error reaches callers as `Internal` through toErrorRecord, whatever its cause).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = new URL('../../src/', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? sourceFiles(p) : /\.(ts|mts|js|mjs)$/.test(d.name) ? [p] : [];
  });
}

describe('errors in src/', () => {
  it('no bare `new Error(` (use EngineError with a code from core/errors.ts)', () => {
    const hits: string[] = [];
    for (const file of sourceFiles(SRC)) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (/\bnew\s+Error\s*\(/.test(line)) hits.push(`src/${relative(SRC, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(hits).toEqual([]);
  });
});
