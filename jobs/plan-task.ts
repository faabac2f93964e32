/**
 * The planning-thread entry of job workers (piscina runs this .ts file
 * directly on Node 24): plans one field (the whole plan, or its headlands
 * only), builds the normalized model and hands back its stored form
 * (store/plan-encoding.ts) with the figures lists read, so the thread that
 * talks to the database only writes a string; or the model's JSON, when the
 * caller merges it into a stored plan. Planner refusals come back as values
 * (errors lose their class across threads).
 */
import { getPriority, setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import { planField } from '../core/plan.ts';
import { planHeadlands } from '../core/plan-headlands.ts';
import { routeDebug } from '../core/route/route-debug.ts';
import { PlanningError, type PlanRequest } from '../core/types/index.ts';
import { figuresOf, type PlanFigures } from '../formats/plan-figures.ts';
import { type PlanMeta, toNormalizedModel } from '../formats/plan-model.ts';
import { encodeModelJson } from '../store/plan-encoding.ts';

// Job work is background work: lower this thread's priority (pid 0 = the calling thread on Linux),
// so request threads and the planning threads of direct requests come first.
const nice = Number((workerData as { niceIncrement?: number } | null)?.niceIncrement ?? 0);
if (nice > 0) {
  try {
    setPriority(0, Math.min(19, getPriority(0) + nice));
  } catch {
    // Not permitted here: plan at normal priority.
  }
}

export interface JobPlanTaskInput {
  /** 'plan' (default): the whole plan; 'headlands': the headland passes only. */
  stage?: 'plan' | 'headlands';
  /** 'stored' (default): the stored form; 'json': the model's JSON. */
  output?: 'stored' | 'json';
  request: PlanRequest;
  /** The route optimizer's time cap from the start of this task [ms]. */
  optimizerTimeMs: number;
  meta: PlanMeta & { operationType: string };
}

export type JobPlanTaskOutput =
  | { ok: true; modelZ?: string; json?: string; figures: PlanFigures; ms: number }
  | { ok: false; code: string; message: string };

export default function planJobField(input: JobPlanTaskInput): JobPlanTaskOutput {
  const t0 = performance.now();
  try {
    // The planner reads no clock: the optimizer asks this one when to stop.
    const deadline = t0 + input.optimizerTimeMs;
    const result =
      input.stage === 'headlands'
        ? planHeadlands(input.request)
        : planField(input.request, { shouldStopOptimizer: () => performance.now() >= deadline });
    const model = toNormalizedModel(result, input.meta);
    const json = JSON.stringify(model);
    return {
      ok: true,
      ...(input.output === 'json' ? { json } : { modelZ: encodeModelJson(json) }),
      figures: figuresOf(model),
      ms: performance.now() - t0,
    };
  } catch (e) {
    if (e instanceof PlanningError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}

export interface RouteDebugTaskInput {
  request: PlanRequest;
  /** The route optimizer's time cap from the start of this task [ms]. */
  optimizerTimeMs: number;
}

export type RouteDebugTaskOutput =
  | { ok: true; json: string }
  | { ok: false; code: string; message: string; details: Record<string, unknown> };

/** The route optimizer's input and statistics for a field (core/route/route-debug.ts), as JSON. */
export function routeDebugTask(input: RouteDebugTaskInput): RouteDebugTaskOutput {
  // The optimizer's time runs from its first question: measuring the distance matrix
  // before it (seconds on a large field or a busy machine) leaves it the whole budget.
  let deadline: number | undefined;
  try {
    const result = routeDebug(input.request, {
      clock: () => performance.now(),
      shouldStopOptimizer: () => {
        const now = performance.now();
        deadline ??= now + input.optimizerTimeMs;
        return now >= deadline;
      },
    });
    return { ok: true, json: JSON.stringify(result) };
  } catch (e) {
    if (e instanceof PlanningError)
      return { ok: false, code: e.code, message: e.message, details: { ...e.details } };
    throw e;
  }
}
