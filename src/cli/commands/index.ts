/** Registry of CLI sub-commands: one line per command. */
import type { Command } from '../command.js';
import { buildCommand } from './build.js';
import { demoCommand } from './demo.js';
import { dispatchCommand } from './dispatch.js';
import { distanceCommand } from './distance.js';
import { geocodeCommand } from './geocode.js';
import { schemaCommand } from './schema.js';
import { solveCommand } from './solve.js';

export const COMMANDS: Command[] = [
  demoCommand,
  buildCommand,
  distanceCommand,
  dispatchCommand,
  geocodeCommand,
  schemaCommand,
  solveCommand,
];
