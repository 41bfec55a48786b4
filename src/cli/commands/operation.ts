/**
 * One sub-command per operation of the operation table that takes a JSON specification
 * (`distance`, `dispatch`, …): reads the specification (file or `-`), runs the operation on a
 * dataset, prints the result record. Long operations show progress on stderr and stop cleanly on
 * Ctrl-C (a cancelled dispatch returns its best solution so far). The specification's lint
 * warnings (`ops/lint.ts`) go to stderr first, unless --quiet; they never change the result.
 */
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { Engine } from '../../engine.js';
import { OPERATIONS, type Operation, type OperationName } from '../../ops/table.js';
import { writeFileSync } from 'node:fs';
import { checkOutputPath, DATA_OPTION, NAMES_OPTION, printJson, QUIET_OPTION, readJson, parseCommandArgs, parseThreads } from '../io.js';
import type { DispatchResult } from '../../records/index.js';
import { ProgressPrinter } from '../progress.js';
import { lintSpecification, type LintKind } from '../../ops/lint.js';
import { formatWarning } from './check.js';

/** The command of table operation `name`. */
const LINTED: readonly string[] = ['Dispatch', 'Geocode', 'CalculateDistance'] satisfies LintKind[];
const isLintKind = (n: string): n is LintKind => LINTED.includes(n);

export function operationCommand(name: OperationName, command: string): Command {
  const op = { ...(OPERATIONS[name] as unknown as Operation<{ Status: string }>), command };
  const long = op.runsOn === 'executor';
  const usage = `dispatchkit ${op.command} --data <dataset.dkds> <spec.json|-> [--names]${long ? ' [--seed N] [--time-limit S] [--workers N]' : ''} [--quiet]`;
  return {
    name: op.command,
    summary: op.summary,
    usage,
    options: [
      { flag: '-d, --data <dataset.dkds>', description: 'the dataset to answer on (built with `dispatchkit build`)' },
      { flag: '--names', description: 'enum values as names (Success) instead of the contract\'s integers (1)' },
      ...(long ? [
        { flag: '--seed N', description: 'seed of the search (same seed + input + workers = same answer)', default: '1' },
        { flag: '--time-limit S', description: 'seconds for the solver', default: 'MinimumOptimization\'s effort' },
        { flag: '--workers N', description: 'worker threads (at most 4 × cores)', default: 'one per core' },
      ] : []),
      ...(name === 'Dispatch' ? [{ flag: '--geojson <file>', description: 'also write the plan (each vehicle\'s path and its stops) as GeoJSON' }] : []),
      { flag: '-q, --quiet', description: 'no progress on stderr' },
    ],
    examples: [`dispatchkit ${op.command} --data data/monaco-latest.dkds ${op.command}.json`, `cat ${op.command}.json | dispatchkit ${op.command} --data data/monaco-latest.dkds - --names`],
    async run(argv) {
      const { values, positionals } = parseCommandArgs(argv, {
        ...DATA_OPTION,
        ...NAMES_OPTION,
        ...QUIET_OPTION,
        ...(long ? { seed: { type: 'string' }, 'time-limit': { type: 'string' }, workers: { type: 'string' } } as const : {}),
        ...(name === 'Dispatch' ? { geojson: { type: 'string' } } as const : {}),
      });
      if (!values.data || positionals.length !== 1) {
        process.stderr.write(`Usage: ${usage}\n`);
        return EXIT.usage;
      }
      const v = values as Record<string, string | boolean | undefined>;
      const num = (flag: string, min: number): number | undefined => {
        const raw = v[flag];
        if (raw === undefined) return undefined;
        const n = Number(raw);
        if (!Number.isFinite(n) || n < min) throw new TypeError(`--${flag} must be a number ≥ ${min} (got ${String(raw)})`);
        return n;
      };
      let seed: number | undefined, limit: number | undefined, workers: number | undefined;
      try {
        seed = num('seed', 0);
        limit = num('time-limit', 0);
        workers = v.workers === undefined ? undefined : parseThreads(String(v.workers), 1, '--workers');
      } catch (e) {
        process.stderr.write(`${(e as Error).message}\n`);
        return EXIT.usage;
      }
      const geojsonPath = typeof v.geojson === 'string' ? v.geojson : undefined;
      if (geojsonPath !== undefined) checkOutputPath(geojsonPath, '--geojson');
      const spec = readJson(positionals[0]);
      const engine = await Engine.open(values.data, { threads: workers });
      if (v.quiet !== true) {
        // Warnings only: the operation runs on the same specification whatever they say.
        let warnings: string[] = [];
        try {
          if (isLintKind(name)) warnings = lintSpecification(name, spec, engine.context()).map(formatWarning);
        } catch {
          warnings = [];
        }
        for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
      }
      const progress = new ProgressPrinter(process.stderr, v.quiet === true || !long);
      const ac = new AbortController();
      const onSigint = (): void => ac.abort();
      process.once('SIGINT', onSigint);
      try {
        const r = await engine.run(name, spec, {
          seed: seed ?? 1,
          workers,
          ...(limit !== undefined ? { timeLimitMs: limit * 1000 } : {}),
          signal: ac.signal,
          onProgress: (e) => {
            if (e.phase === 'dispatch-mode') {
              // Not a stage with progress: say which mode runs when Auto chose it.
              const i = e.info as { requested?: string; mode?: string; reason?: string } | undefined;
              if (v.quiet !== true && i?.requested === 'Auto') process.stderr.write(`note: DispatchMode Auto runs as ${i.mode} (${i.reason})\n`);
              return;
            }
            if (e.info?.stoppedBy === 'time') process.stderr.write('note: the time limit ended the search before its work budget (busy machine); this result may differ between runs\n');
            progress.onProgress(e);
          },
        });
        progress.end();
        printJson(op.result.encode(r, { enums: values.names ? 'name' : 'int' }));
        if (geojsonPath !== undefined && r.Status !== 'Failed') {
          writeFileSync(geojsonPath, JSON.stringify(engine.dispatchGeoJson(spec, r as DispatchResult)) + '\n');
          if (v.quiet !== true) process.stderr.write(`Plan written to ${geojsonPath}\n`);
        }
        return r.Status === 'Failed' ? EXIT.failed : EXIT.ok;
      } finally {
        process.off('SIGINT', onSigint);
        await engine.close();
      }
    },
  };
}
