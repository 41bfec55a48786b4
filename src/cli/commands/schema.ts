import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { contractJsonSchema } from '../../records/index.js';
import { printJson } from '../io.js';

export const schemaCommand: Command = {
  name: 'schema',
  summary: 'Print the JSON Schema (draft 2020-12) of every record of the service contract',
  usage: 'dispatchkit schema',
  options: [],
  examples: ['dispatchkit schema > contract.schema.json'],
  async run(argv) {
    parseArgs({ args: argv, options: {} });
    printJson(contractJsonSchema());
    return EXIT.ok;
  },
};
