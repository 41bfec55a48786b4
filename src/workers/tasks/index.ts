/**
 * The registry of worker task kinds. Add one line per task module. (Static imports: under
 * Node 20 + tsx, dynamic import() of .ts files is not hooked inside worker threads.)
 */
import chBuild from './ch-build.js';
import echo from './echo.js';
import geocode from './geocode.js';
import vrpSolve from './vrp-solve.js';
import matrix from './matrix.js';

export type TaskFn = (task: any, shared: Record<string, unknown>) => unknown;

export const TASKS: Record<string, TaskFn> = {
  'ch-build': chBuild,
  echo,
  geocode,
  'vrp-solve': vrpSolve,
  matrix,
};
