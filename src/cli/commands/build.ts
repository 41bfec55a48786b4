import { availableParallelism } from 'node:os';
import type { Command } from '../command.js';
import { QUIET_OPTION, checkOutputPath, parseCommandArgs, parseThreads } from '../io.js';
import { EXIT } from '../command.js';
import { buildDatasetFile } from '../../dataset/build.js';
import { WorkerPool } from '../../workers/pool.js';
import { ProgressPrinter } from '../progress.js';

export const buildCommand: Command = {
  name: 'build',
  summary: 'Build a dataset (road graph, hierarchies, snapping and geocoding indexes) from an OSM extract',
  usage: 'dispatchkit build <extract.osm.pbf> -o <dataset.dkds> [--name NAME] [--threads N] [--quiet]',
  options: [
    { flag: '-o, --out <dataset.dkds>', description: 'where to write the dataset (checked before the build starts)' },
    { flag: '--name NAME', description: 'dataset name in its metadata', default: 'the extract\'s file name' },
    { flag: '--threads N', description: 'worker threads (the two hierarchies build side by side)', default: 'min(2, cores)' },
    { flag: '-q, --quiet', description: 'no progress on stderr' },
  ],
  examples: ['dispatchkit build fixtures/monaco-latest.osm.pbf -o data/monaco.dkds'],
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      out: { type: 'string', short: 'o' },
      name: { type: 'string' },
      threads: { type: 'string' },
      ...QUIET_OPTION,
    });
    if (positionals.length !== 1 || !values.out) {
      process.stderr.write(`Usage: ${this.usage}\n`);
      return EXIT.usage;
    }
    const threads = parseThreads(values.threads, Math.min(2, availableParallelism()));
    // Before the build starts (minutes on a large extract): the output must be a writable file path.
    checkOutputPath(values.out, '-o');
    const progress = new ProgressPrinter(process.stderr, values.quiet);
    const pool = threads > 1 ? new WorkerPool({ threads: Math.min(2, threads) }) : undefined;
    try {
      const r = await buildDatasetFile(positionals[0], values.out, { name: values.name, executor: pool, onProgress: progress.onProgress });
      progress.end();
      const m = r.meta;
      const lines = [
        `dataset   ${values.out} (${(r.bytes / 2 ** 20).toFixed(1)} MiB)`,
        `network   ${m.counts.nodes.toLocaleString('en-US')} junctions, ${m.counts.arcs.toLocaleString('en-US')} arcs; CH ${m.counts.chTimeArcs.toLocaleString('en-US')} (time) / ${m.counts.chDistArcs.toLocaleString('en-US')} (distance) arcs`,
        `timings   ${Object.entries(m.timingsMs).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`).join(', ')}; total ${(r.totalMs / 1000).toFixed(2)} s`,
        `data      ${m.attribution}`,
      ];
      process.stderr.write(lines.join('\n') + '\n');
      return EXIT.ok;
    } finally {
      await pool?.close();
    }
  },
};
