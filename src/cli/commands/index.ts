/**
 * Registry of CLI sub-commands. Operations that take a JSON specification get their command from
 * the operation table (`operation.ts`); the rest are one file each, one line here.
 */
import type { Command } from '../command.js';
import { OPERATIONS, type OperationName } from '../../ops/table.js';
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

/** Operations whose command has options of its own (Geocode: CSV, reverse geocoding, an index from an extract; CalculateRoute: directions, maps, GeoJSON). */
const OWN_COMMAND: Partial<Record<OperationName, Command>> = { Geocode: geocodeCommand, CalculateRoute: routeCommand };

export const COMMANDS: Command[] = [
  demoCommand,
  buildCommand,
  ...(Object.keys(OPERATIONS) as OperationName[]).map((name) => OWN_COMMAND[name] ?? operationCommand(name)),
  checkCommand,
  serveCommand,
  workerCommand,
  accountsCommand,
  schemaCommand,
  solveCommand,
];
