/**
 * One item of a planning job: plan one stored boundary with the job's
 * request and store the plan, or record why not. Idempotent: an item that
 * already has an outcome (a retried delivery after a killed worker) is left
 * alone, and the plan, its item row and its credit are written in one
 * transaction, so a plan is stored and charged at most once.
 */

import { type PlanPool, PlanTimeoutError, PoolBusyError } from '../api/planning/pool.ts';
import {
  type BoundaryInput,
  type DirectRequestBody,
  MAX_FIELD_VERTICES,
  readDirectRequest,
} from '../formats/direct-request.ts';
import {
  DEFAULT_COMPLEXITY_LIMITS,
  estimateComplexity,
  measureBoundary,
  tooComplex,
} from '../formats/field-complexity.ts';
import type { PathPlanNormalizedModel } from '../formats/plan-model.ts';
import type { Database } from '../store/database.ts';
import type { Store } from '../store/db.ts';
import { createCreditsRepository } from '../store/repositories/credits.ts';
import { createJobsRepository, type JobRecord } from '../store/repositories/jobs.ts';
import { createPathPlansRepository } from '../store/repositories/path-plans.ts';
import { uuidv7 } from '../store/uuidv7.ts';

/** Credits one stored plan costs (as on the direct interface). */
export const JOB_PLAN_CREDIT_COST = 1;

/** A stored boundary of a company, as planning needs it. */
export interface LoadedBoundary {
  boundaryId: string;
  fieldId: string | null;
  /** The field's name (the plan's default name). */
  name: string | null;
  geometry: BoundaryInput;
}

/** Reads a boundary of a company; null when the company holds no such boundary. */
export type BoundaryLoader = (companyId: string, boundaryId: string) => Promise<LoadedBoundary | null>;

export type ItemOutcome = 'planned' | 'error' | 'skipped';

export interface PlanItemDeps {
  store: Store;
  pool: PlanPool;
  loadBoundary: BoundaryLoader;
  /** Added to maxOptimizerTime for the hard cap [ms] (default 5000). */
  graceMs?: number;
}

class NoCredit extends Error {
  readonly available: number;
  constructor(available: number) {
    super('no credit');
    this.available = available;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The request of a planning job is a direct request without its boundary. */
export type JobPlanRequest = Omit<DirectRequestBody, 'boundary' | 'field'>;

export async function runPlanItem(
  deps: PlanItemDeps,
  job: JobRecord,
  boundaryId: string,
): Promise<ItemOutcome> {
  const jobsRepo = createJobsRepository(deps.store.db);
  if (job.status === 'cancelled' || job.status === 'failed') return 'skipped';
  if (await jobsRepo.hasItem(job.id, boundaryId)) return 'skipped';
  await jobsRepo.markRunning(job.id);

  const fail = async (errorCode: string, message: string): Promise<ItemOutcome> => {
    await jobsRepo.recordItem(job.id, boundaryId, { errorCode, message });
    return 'error';
  };

  const boundary = await deps.loadBoundary(job.companyId, boundaryId);
  if (!boundary) return fail('BOUNDARY_NOT_FOUND', `No boundary ${boundaryId} in the job's company.`);

  const request = job.request as JobPlanRequest;
  // The plan is named after the field (the planner reads the name from the boundary's properties).
  const g = boundary.geometry;
  const named =
    (g.type === 'Polygon' || g.type === 'MultiPolygon') && boundary.name
      ? ({ type: 'Feature', properties: { name: boundary.name }, geometry: g } as BoundaryInput)
      : g;
  const body = { ...request, boundary: named } as DirectRequestBody;
  const read = readDirectRequest(body);
  if (!read.ok) {
    return fail('VALIDATION_ERROR', read.errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; '));
  }
  const req = read.request;
  const measure = measureBoundary(req.boundary);
  if (measure.vertices > MAX_FIELD_VERTICES) {
    return fail(
      'PAYLOAD_TOO_LARGE',
      `The boundary has ${measure.vertices} vertices; at most ${MAX_FIELD_VERTICES}.`,
    );
  }
  const why = tooComplex(
    estimateComplexity(measure, {
      swathWidth: req.plan.machine.swathWidth,
      exteriorHeadlandPasses: req.plan.exteriorHeadlandPasses ?? 0,
      interiorHeadlandPasses: req.plan.interiorHeadlandPasses ?? 0,
    }),
    DEFAULT_COMPLEXITY_LIMITS,
  );
  if (why) return fail('PLAN_TOO_COMPLEX', why);

  const pathPlanId = uuidv7();
  const timeoutMs = req.maxOptimizerTime * 1000 + (deps.graceMs ?? 5000);
  let out: Awaited<ReturnType<PlanPool['run']>>;
  for (let attempt = 0; ; attempt++) {
    try {
      out = await deps.pool.run(
        {
          request: req.plan,
          format: 'model',
          optimizerTimeMs: req.maxOptimizerTime * 1000,
          meta: {
            pathPlanId,
            pathPlanName: req.pathPlanName,
            createdAt: new Date().toISOString(),
            operationType: req.operationType,
          },
        },
        { timeoutMs },
      );
      break;
    } catch (e) {
      // The pool is shared with direct requests: wait for a thread rather than spend a retry.
      if (e instanceof PoolBusyError && attempt < 600) {
        await sleep(100);
        continue;
      }
      if (e instanceof PlanTimeoutError) {
        return fail(
          'PLAN_TOO_COMPLEX',
          `Planning this field needs more than the time cap of ${req.maxOptimizerTime} s (routeOptions.maxOptimizerTime).`,
        );
      }
      throw e;
    }
  }
  if (!out.ok) return fail(out.code, out.message);
  const model = JSON.parse(out.body) as PathPlanNormalizedModel;

  try {
    const stored = await deps.store.db.transaction(async (txAny) => {
      const tx = txAny as unknown as Database;
      const first = await createJobsRepository(tx).recordItem(job.id, boundaryId, { pathPlanId });
      if (!first) return false;
      const taken = await createCreditsRepository(tx).take(job.companyId, JOB_PLAN_CREDIT_COST);
      if (!taken.ok) throw new NoCredit(taken.available);
      const id = await createPathPlansRepository(tx).insert({
        id: pathPlanId,
        companyId: job.companyId,
        boundaryId,
        fieldId: boundary.fieldId,
        jobId: job.id,
        model,
      });
      if (!id) throw new Error(`A plan of job ${job.id} for boundary ${boundaryId} exists without its item.`);
      return true;
    });
    return stored ? 'planned' : 'skipped';
  } catch (e) {
    if (e instanceof NoCredit) {
      return fail(
        'INSUFFICIENT_CREDITS',
        `A plan costs ${JOB_PLAN_CREDIT_COST} credit; the company has ${e.available}.`,
      );
    }
    throw e;
  }
}
