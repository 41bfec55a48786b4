/**
 * Registry of CLI sub-commands. The operations that run on a dataset without an account (the
 * operation table's rows with a `cli` face) get their command from the table (`operation.ts`);
 * the rest are one file each, one line here.
 */
import type { Command } from '../command.js';
import type { OperationName } from '../../ops/table.js';
import { operations } from '../../service/operations.js';
import { accountsCommand } from './accounts.js';
import { buildCommand } from './build.js';
import { checkCommand } from './check.js';
import { demoCommand } from './demo.js';
import { geocodeCommand } from './geocode.js';
import { operationCommand } from './operation.js';
import { routeCommand } from './route.js';
import { schemaCommand } from './schema.js';
import { serveCommand } from './serve.js';
import { workerCommand } from './worker.js';
import { solveCommand } from './solve.js';
import { liveCommand, redispatchCommand } from './live.js';

/** Operations whose command has options of its own (Geocode: CSV, reverse geocoding, an index from an extract; CalculateRoute: directions, maps, GeoJSON). */
const OWN_COMMAND: Partial<Record<OperationName, Command>> = { Geocode: geocodeCommand, CalculateRoute: routeCommand };

export const COMMANDS: Command[] = [
  demoCommand,
  buildCommand,
  ...operations().filter((o) => o.faces.cli && o.engine).map((o) => OWN_COMMAND[o.engine!] ?? operationCommand(o.engine!, o.faces.cli!)),
  liveCommand,
  redispatchCommand,
  checkCommand,
  serveCommand,
  workerCommand,
  accountsCommand,
  schemaCommand,
  solveCommand,
];
