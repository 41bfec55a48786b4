/** Registry of CLI sub-commands: one line per command. */
import type { Command } from '../command.js';

export const COMMANDS: Command[] = [];
