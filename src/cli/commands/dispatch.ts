import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { Engine } from '../../engine.js';
import { DispatchResultSchema } from '../../records/index.js';
import { printJson, readJson } from '../io.js';
import { ProgressPrinter } from '../progress.js';

export const dispatchCommand: Command = {
  name: 'dispatch',
  summary: 'Dispatch: assign and sequence stops over vehicles on the road network (DispatchSpecification JSON)',
  usage: 'dispatchkit dispatch --data <dataset.dkds> <spec.json|-> [--seed N] [--time-limit S] [--workers N] [--names] [--quiet]',
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        data: { type: 'string', short: 'd' },
        seed: { type: 'string' },
        'time-limit': { type: 'string' },
        workers: { type: 'string' },
        names: { type: 'boolean' },
        quiet: { type: 'boolean', short: 'q' },
      },
    });
    if (!values.data || positionals.length !== 1) {
      process.stderr.write(`Usage: ${this.usage}\n`);
      return EXIT.usage;
    }
    const num = (name: string, v: string | undefined, min: number): number | undefined => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isFinite(n) || n < min) throw new TypeError(`--${name} must be a number ≥ ${min} (got ${v})`);
      return n;
    };
    let seed: number | undefined, limit: number | undefined, workers: number | undefined;
    try {
      seed = num('seed', values.seed, 0);
      limit = num('time-limit', values['time-limit'], 0);
      workers = num('workers', values.workers, 1);
    } catch (e) {
      process.stderr.write(`${(e as Error).message}\n`);
      return EXIT.usage;
    }
    const spec = readJson(positionals[0]);
    const engine = await Engine.open(values.data, { threads: workers });
    const progress = new ProgressPrinter(process.stderr, values.quiet);
    const ac = new AbortController();
    const onSigint = () => ac.abort();
    process.once('SIGINT', onSigint);
    try {
      const r = await engine.dispatch(spec, {
        seed: seed ?? 1,
        workers,
        ...(limit !== undefined ? { timeLimitMs: limit * 1000 } : {}),
        signal: ac.signal,
        onProgress: progress.onProgress,
      });
      progress.end();
      printJson(DispatchResultSchema.encode(r, { enums: values.names ? 'name' : 'int' }));
      return r.Status === 'Failed' ? EXIT.failed : EXIT.ok;
    } finally {
      process.off('SIGINT', onSigint);
      await engine.close();
    }
  },
};
