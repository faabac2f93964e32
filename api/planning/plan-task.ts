/**
 * The worker-thread entry of the planning pool (piscina runs this .ts file
 * directly on Node 24). Plans, converts to the wire format and serialises
 * here, so the request thread only forwards the answer. With `bodyAs:
 * 'bytes'` the answer comes back as UTF-8 bytes whose buffer is moved, not
 * copied, to the request thread: no large string lands on its heap (a
 * 100 ha plan is about 800 KB), and it sends the bytes as they are.
 * Planner refusals come back as values (errors lose their class across
 * threads).
 */
import { getPriority, setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { planField } from '../../core/plan.ts';
import type { PlanSlopes } from '../../core/terrain/slopes.ts';
import { type PlanHooks, PlanningError, type PlanRequest, type PlanResult } from '../../core/types/index.ts';
import { DemError } from '../../formats/dem-geotiff.ts';
import { groundForField, planSlopesFromDems } from '../../formats/dem-slopes.ts';
import { toPlanGeoJSON } from '../../formats/plan-geojson.ts';
import { toNormalizedModel } from '../../formats/plan-model.ts';

export type PlanFormat = 'model' | 'geojson';

// Lower this thread's priority (pid 0 = the calling thread on Linux), so the request thread comes first.
const nice = Number((workerData as { niceIncrement?: number } | null)?.niceIncrement ?? 0);
if (nice > 0) {
  try {
    setPriority(0, Math.min(19, getPriority(0) + nice));
  } catch {
    // Not permitted here: plan at normal priority.
  }
}

export interface PlanTaskInput {
  request: PlanRequest;
  format: PlanFormat;
  /** The route optimizer's time cap from the start of this task [ms] (routeOptions.maxOptimizerTime). */
  optimizerTimeMs?: number;
  meta: { pathPlanId: string; pathPlanName: string; createdAt: string; operationType: string };
  /**
   * The answer's form (default 'string'). With 'bytes' the body of an ok
   * answer arrives as a Uint8Array (see PlanTaskBytesOutput); callers that
   * never ask keep the string type.
   */
  bodyAs?: 'string' | 'bytes';
  /**
   * includeSlopes: the DEM files covering the field (found by the request
   * thread from their extents), sampled in this order. This thread reads
   * their cells around the plan and adds slopeDetails to every part.
   */
  slopes?: { demPaths: string[] };
  /** trackDirection 'Contour': the DEM files covering the field, read before planning for the planner's direction search. */
  ground?: { demPaths: string[] };
}

/** An ok answer of a task run with `bodyAs: 'bytes'`. */
export type PlanTaskBytesOutput = { ok: true; body: Uint8Array; ms: number };

export type PlanTaskOutput =
  | { ok: true; body: string; ms: number }
  | { ok: false; code: string; message: string; details: Record<string, unknown> };

const ENCODER = new TextEncoder();

export default function planTask(input: PlanTaskInput): PlanTaskOutput | Promise<PlanTaskOutput> {
  const t0 = performance.now();
  if (!input.ground) return planAndAnswer(input, t0, undefined);
  // The ground first (I/O: this thread waits for it without blocking the request thread).
  return groundForField(input.request.boundary, input.ground.demPaths).then(
    (ground) => planAndAnswer(input, t0, ground),
    demRefusal,
  );
}

function demRefusal(e: unknown): PlanTaskOutput {
  if (e instanceof DemError) return { ok: false, code: 'DEM_NOT_AVAILABLE', message: e.message, details: {} };
  throw e;
}

function planAndAnswer(
  input: PlanTaskInput,
  t0: number,
  ground: PlanHooks['ground'],
): PlanTaskOutput | Promise<PlanTaskOutput> {
  let result: PlanResult;
  try {
    // The planner reads no clock: the optimizer asks this one when to stop.
    const deadline = t0 + (input.optimizerTimeMs ?? Number.POSITIVE_INFINITY);
    result = planField(input.request, {
      shouldStopOptimizer: () => performance.now() >= deadline,
      ...(ground ? { ground } : {}),
    });
  } catch (e) {
    return refusal(e);
  }
  if (!input.slopes) return answer(input, result, undefined, t0);
  return planSlopesFromDems(result, input.slopes.demPaths).then(
    (slopes) => answer(input, result, slopes, t0),
    demRefusal,
  );
}

function refusal(e: unknown): PlanTaskOutput {
  if (e instanceof PlanningError) {
    return { ok: false, code: e.code, message: e.message, details: { ...e.details } };
  }
  throw e;
}

function answer(
  input: PlanTaskInput,
  result: PlanResult,
  slopes: PlanSlopes | undefined,
  t0: number,
): PlanTaskOutput {
  try {
    const out =
      input.format === 'geojson'
        ? toPlanGeoJSON(
            result,
            { pathPlanId: input.meta.pathPlanId, pathPlanName: input.meta.pathPlanName },
            slopes,
          )
        : toNormalizedModel(result, input.meta, slopes);
    const json = JSON.stringify(out);
    if (input.bodyAs !== 'bytes') return { ok: true, body: json, ms: performance.now() - t0 };
    // Its own ArrayBuffer (Buffer.from may share a pooled one), moved to the request thread.
    const body = ENCODER.encode(json);
    const answer: PlanTaskBytesOutput = { ok: true, body, ms: performance.now() - t0 };
    return Piscina.move({
      [Piscina.transferableSymbol]: [body.buffer],
      [Piscina.valueSymbol]: answer,
    } as never) as never;
  } catch (e) {
    return refusal(e);
  }
}
