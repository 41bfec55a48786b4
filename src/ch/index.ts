export { ContractionHierarchy, ORIGINAL, ENTRY_WORDS, type ChSide, type ChMeta } from './hierarchy.js';
export { buildContractionHierarchy, buildContractionHierarchyWithStats, type ChBuildOptions, type ChBuildStats } from './build.js';
export { ChQuery } from './query.js';
