/** What a benchmark reader returns: the model input plus what the harness needs to report. */
import type { VrpInput } from '../model.js';

export interface BenchInstance {
  name: string;
  input: VrpInput;
  /** Identifier of each stop as the file numbers it (Solomon CUST NO., VRPLIB node id). */
  ids: number[];
  /** Internal units per reported unit of distance (reported = internal / scale, or exact recomputation). */
  scale: number;
  /**
   * Exact (unrounded) travel between places in internal units, for the independent checker and
   * for reporting distances in double precision (Solomon). Absent when the matrix is exact.
   */
  exact?: (a: number, b: number) => number;
  /** Reported distance between two places (file units, double precision). */
  reportDist: (a: number, b: number) => number;
}
