/** A trivial task kind used by the executors' own tests. */
import v8 from 'node:v8';
import { EngineError } from '../core/errors.js';
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { Ticker } from '../core/cancel.js';

export interface EchoTask {
  value?: unknown;
  /** Fail with InvalidInput and this message. */
  fail?: string;
  /** Sum the Float64 values of this shared buffer. */
  sharedKey?: string;
  /** Report this many progress events first. */
  progressSteps?: number;
  /** Build about this many megabytes of objects and buffers first, then drop them (the memory tests). */
  garbageMb?: number;
  /** Report the thread's heap: its young generation (V8's new space, after the garbage if any) and its limit. */
  heap?: boolean;
  /** Hold the thread this many milliseconds, handing it back every ~10 ms (the fairness and cancellation tests). */
  busyMs?: number;
}

export interface EchoResult {
  value?: unknown;
  squares?: Float64Array;
  sum?: number;
  /** The new space's size, bytes ({@link EchoTask.heap}). */
  youngBytes?: number;
  /** The heap's limit (V8's heap_size_limit), bytes ({@link EchoTask.heap}). */
  heapLimitBytes?: number;
}

declare module '../core/executor.js' {
  interface TaskMap {
    echo: TaskTypes<EchoTask, EchoResult>;
  }
}

export async function echoTask(task: EchoTask, env: TaskEnv): Promise<EchoResult> {
  if (task.fail) throw new EngineError('InvalidInput', task.fail, { path: 'value' });
  if (task.garbageMb) {
    const keep: unknown[] = [];
    // half objects, half buffers, as a large dispatch leaves behind
    for (let i = 0; i < task.garbageMb * 5000; i++) keep.push({ a: i, b: `x${i}`, c: [i, i + 1] });
    keep.push(new Float64Array(task.garbageMb * 65_536));
    if (keep.length < 0) return { value: keep };
  }
  if (task.busyMs) {
    const ticker = new Ticker(10, env.signal);
    const end = performance.now() + task.busyMs;
    while (performance.now() < end) await ticker.tick();
  }
  if (task.heap) {
    return {
      youngBytes: v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? -1,
      heapLimitBytes: v8.getHeapStatistics().heap_size_limit,
    };
  }
  for (let i = 1; i <= (task.progressSteps ?? 0); i++) env.progress({ phase: 'echo', done: i, total: task.progressSteps! });
  if (task.sharedKey) {
    const buf = env.shared[task.sharedKey] as SharedArrayBuffer;
    return { sum: new Float64Array(buf).reduce((a, b) => a + b, 0) };
  }
  return { value: task.value, squares: Float64Array.from([1, 2, 3], (x) => x * x) };
}
