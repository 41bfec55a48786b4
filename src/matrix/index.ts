export { endpointsFromNodes, sliceEndpoints, validateEndpoints, type EndpointEntries } from './endpoints.js';
export { SweepManyToMany, UNREACHABLE, type MatrixOutput, type PinnedSelection } from './sweep.js';
export { BucketManyToMany } from './bucket.js';
export {
  computeMatrix, estimateMatrixMemory, checkMatrixSize, createMatrixKernel, DEFAULT_MAX_MATRIX_BYTES,
  type MatrixOptions, type MatrixResult, type MatrixMemoryEstimate, type MatrixKernel, type MatrixKernelKind,
  type MatrixTask, type MatrixTaskResult,
} from './compute.js';
