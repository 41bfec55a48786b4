import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { Engine } from '../../engine.js';
import { DistanceResultSchema } from '../../records/index.js';
import { printJson, readJson } from '../io.js';

export const distanceCommand: Command = {
  name: 'distance',
  summary: 'CalculateDistance: driving distance and time between two locations (DistanceSpecification JSON)',
  usage: 'dispatchkit distance --data <dataset.dkds> <spec.json|-> [--names]',
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { data: { type: 'string', short: 'd' }, names: { type: 'boolean' } },
    });
    if (!values.data || positionals.length !== 1) {
      process.stderr.write(`Usage: ${this.usage}\n`);
      return EXIT.usage;
    }
    const spec = readJson(positionals[0]);
    const engine = await Engine.open(values.data);
    try {
      const r = engine.calculateDistance(spec);
      printJson(DistanceResultSchema.encode(r, { enums: values.names ? 'name' : 'int' }));
      return r.Status === 'Failed' ? EXIT.failed : EXIT.ok;
    } finally {
      await engine.close();
    }
  },
};
