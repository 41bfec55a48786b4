export * from './arcs.js';
export * from './dimacs.js';
export * from './ngraph.js';
