/**
 * The planner run for the view's worker (plan.worker.ts): a PlanJob
 * planned and answered as direct GeoJSON or the normalized model.
 */
import { planField } from '../../core/plan.ts';
import { PlanningError, type PlanRequest, type RouteAlgorithm } from '../../core/types/index.ts';
import { toPlanGeoJSON } from '../../formats/plan-geojson.ts';
import { toNormalizedModel } from '../../formats/plan-model.ts';
import type { PlanJob, WorkerAnswer } from './protocol.ts';

/** The planner request of the view's tuning. */
export function planRequestOf(job: PlanJob): PlanRequest {
  const t = job.tuning;
  return {
    boundary: job.boundary,
    machine: { swathWidth: t.swathWidth, minTurningRadius: t.minTurningRadius },
    exteriorHeadlandPasses: t.exteriorHeadlandPasses,
    interiorHeadlandPasses: t.interiorHeadlandPasses,
    ...(t.trackType === 'Straight'
      ? { preferredBearingDeg: t.bearingDeg ?? undefined }
      : { trackType: t.trackType }),
    route: {
      algorithm: t.algorithm as RouteAlgorithm,
      ...(t.algorithm === 'clusteredSpiral' && t.skipCount !== null ? { skipCount: t.skipCount } : {}),
      ...(t.algorithm === 'optimized' ? { objective: t.objective } : {}),
      ...(t.startPointNodeIndex !== null ? { startPointNodeIndex: t.startPointNodeIndex } : {}),
      ...(t.endPointNodeIndex !== null ? { endPointNodeIndex: t.endPointNodeIndex } : {}),
    },
  };
}

export function run(job: PlanJob): WorkerAnswer {
  const t0 = performance.now();
  try {
    // The optimizer stops after 400 ms of its own and keeps the best order found, so previews stay quick.
    const result = planField(planRequestOf(job), { shouldStopOptimizer: () => performance.now() - t0 > 400 });
    if (job.model) {
      const model = toNormalizedModel(result, {
        ...job.model,
        equipment: { swathWidth: job.tuning.swathWidth, minTurningRadius: job.tuning.minTurningRadius },
      });
      return { id: job.id, ok: true, model, ms: performance.now() - t0 };
    }
    const geojson = toPlanGeoJSON(result, { pathPlanId: 'preview', pathPlanName: 'Preview' });
    return { id: job.id, ok: true, geojson, ms: performance.now() - t0, repairs: result.repairs };
  } catch (e) {
    if (e instanceof PlanningError) return { id: job.id, ok: false, code: e.code, message: e.message };
    return { id: job.id, ok: false, code: 'PLANNER_FAILED', message: String((e as Error)?.message ?? e) };
  }
}

/**
 * Warm-up while the page fetches the field: one small plan makes the engine
 * compile the planner's hot paths, so the first real plan comes back sooner.
 */
export function warmUp(): void {
  const d = 0.002;
  const ring = [
    [10, 50],
    [10 + 2 * d, 50],
    [10 + 2 * d, 50 + d],
    [10, 50 + d],
    [10, 50],
  ];
  try {
    planField({
      boundary: { type: 'Polygon', coordinates: [ring] },
      machine: { swathWidth: 12 },
      exteriorHeadlandPasses: 2,
      interiorHeadlandPasses: 1,
      route: { algorithm: 'auto' },
    });
  } catch {
    // Only a warm-up: the real plans report their own errors.
  }
}
