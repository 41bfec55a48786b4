/** The dispatch solver: public API (see docs/vrp.md). */
export {
  buildProblem, Problem, BIG, UNREACHABLE, REASON_CODES, REASON_TEXT,
  type VrpInput, type VrpStop, type VrpVehicle, type VrpPair, type UnassignedReason,
} from './model.js';
export { solve, effortIterations, effortMs, WORK_PER_MS, type SolveOptions } from './solve.js';
export { defaultParams, type SearchParams } from './search.js';
export type { Solution, SolutionRoute, RouteStopVisit, UnassignedStop, SolveStats } from './solution.js';
export { validateSolution, type ValidateOptions, type ValidationReport } from './validate.js';
export { parseSolomon, SOLOMON_SCALE } from './io/solomon.js';
export { parseVrplib } from './io/vrplib.js';
export type { BenchInstance } from './io/common.js';
