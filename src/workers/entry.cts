/**
 * The worker thread's entry as piscina loads it in the built package: CommonJS on purpose, handing
 * piscina a promise of the ESM worker (`worker.ts`) loaded through `import()`.
 *
 * piscina `require`s its entry first. Given the ESM worker itself, Node 20's require(esm) would
 * instantiate the worker's module graph synchronously, and a thread terminated during that step
 * (a pool closed while its threads are still starting: `Engine.close` soon after `Engine.open`, a
 * short-lived server or test) aborts the whole process with V8's fatal error
 * "v8::Module::IsGraphAsync must be used on an instantiated module" (Node 20's ModuleWrap checks
 * the graph after a terminated instantiation). `import()` takes the asynchronous path, where a
 * terminated thread just ends. piscina awaits the `default` it finds on the exports
 * (test/workers/pool.test.ts, "a pool closed while its threads load").
 */
module.exports = import('./worker.js').then((worker) => worker.default);
