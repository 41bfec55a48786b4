/** A trivial task used by the pool's own tests. */
import { EngineError } from '../../core/errors.js';

export default function echo(task: { kind: string; value?: unknown; fail?: string; sharedKey?: string }, shared: Record<string, unknown>): unknown {
  if (task.fail) throw new EngineError('InvalidInput', task.fail, { path: 'value' });
  if (task.sharedKey) {
    const buf = shared[task.sharedKey] as SharedArrayBuffer;
    return { sum: new Float64Array(buf).reduce((a, b) => a + b, 0) };
  }
  return { value: task.value, squares: Float64Array.from([1, 2, 3], (x) => x * x) };
}
