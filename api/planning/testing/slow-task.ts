/**
 * A stand-in worker entry for tests of the pool: blocks its thread (like a
 * long plan) for the milliseconds named by `operationType` = 'sleep-<ms>',
 * or holds about <mb> MB of live objects for `operationType` = 'hold-<mb>'
 * (like a plan that needs a large heap), then answers a tiny plan.
 */
import type { PlanTaskInput, PlanTaskOutput } from '../plan-task.ts';

export default function slowTask(input: PlanTaskInput): PlanTaskOutput {
  const m = /^sleep-(\d+)$/.exec(input.meta.operationType);
  const ms = m ? Number(m[1]) : 0;
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const hold = /^hold-(\d+)$/.exec(input.meta.operationType);
  if (hold) {
    // Arrays of small objects: V8 heap, not external memory [~40 B per object].
    const live: object[][] = [];
    for (let mb = 0; mb < Number(hold[1]); mb++) live.push(Array.from({ length: 25_000 }, (_, i) => ({ i })));
    return { ok: true, body: JSON.stringify({ pathPlanId: input.meta.pathPlanId, held: live.length }), ms };
  }
  return { ok: true, body: JSON.stringify({ pathPlanId: input.meta.pathPlanId, slept: ms }), ms };
}

export const SLOW_TASK_FILE = new URL(import.meta.url).href;
