/** A trivial task kind used by the executors' own tests. */
import { EngineError } from '../core/errors.js';
import type { TaskEnv, TaskTypes } from '../core/executor.js';

export interface EchoTask {
  value?: unknown;
  /** Fail with InvalidInput and this message. */
  fail?: string;
  /** Sum the Float64 values of this shared buffer. */
  sharedKey?: string;
  /** Report this many progress events first. */
  progressSteps?: number;
}

export interface EchoResult {
  value?: unknown;
  squares?: Float64Array;
  sum?: number;
}

declare module '../core/executor.js' {
  interface TaskMap {
    echo: TaskTypes<EchoTask, EchoResult>;
  }
}

export function echoTask(task: EchoTask, env: TaskEnv): EchoResult {
  if (task.fail) throw new EngineError('InvalidInput', task.fail, { path: 'value' });
  for (let i = 1; i <= (task.progressSteps ?? 0); i++) env.progress({ phase: 'echo', done: i, total: task.progressSteps! });
  if (task.sharedKey) {
    const buf = env.shared[task.sharedKey] as SharedArrayBuffer;
    return { sum: new Float64Array(buf).reduce((a, b) => a + b, 0) };
  }
  return { value: task.value, squares: Float64Array.from([1, 2, 3], (x) => x * x) };
}
