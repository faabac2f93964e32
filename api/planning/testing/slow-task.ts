/**
 * A stand-in worker entry for tests of the pool: blocks its thread (like a
 * long plan) for the milliseconds named by `operationType` = 'sleep-<ms>',
 * then answers a tiny plan.
 */
import type { PlanTaskInput, PlanTaskOutput } from '../plan-task.ts';

export default function slowTask(input: PlanTaskInput): PlanTaskOutput {
  const m = /^sleep-(\d+)$/.exec(input.meta.operationType);
  const ms = m ? Number(m[1]) : 0;
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return { ok: true, body: JSON.stringify({ pathPlanId: input.meta.pathPlanId, slept: ms }), ms };
}

export const SLOW_TASK_FILE = new URL(import.meta.url).href;
