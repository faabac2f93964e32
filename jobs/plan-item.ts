/**
 * One item of a planning job: a few stored boundaries planned with the job's
 * request, their plans stored or the reason why not recorded, per boundary.
 *
 * The fields of an item are checked here (cheap), planned in the planning
 * threads at once, and their outcomes written in one transaction: each
 * boundary's outcome row, its credit and its plan together, under a lock of
 * the job's row. Idempotent: boundaries that already have an outcome (a
 * retried delivery after a killed worker) are left alone, so a plan is
 * stored and charged at most once; a cancelled job stores nothing more.
 */
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
import type { Database } from '../store/database.ts';
import type { Store } from '../store/db.ts';
import { createCreditsRepository } from '../store/repositories/credits.ts';
import { createJobsRepository, type JobRecord } from '../store/repositories/jobs.ts';
import { createPathPlansRepository, type EncodedPlan } from '../store/repositories/path-plans.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { type JobPlanPool, PlanTimeoutError } from './plan-pool.ts';

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

export interface PlanItemDeps {
  store: Store;
  pool: JobPlanPool;
  loadBoundary: BoundaryLoader;
  /** Added to maxOptimizerTime for the hard cap [ms] (default 5000). */
  graceMs?: number;
}

/** The request of a planning job is a direct request without its boundary. */
export type JobPlanRequest = Omit<DirectRequestBody, 'boundary' | 'field'>;

type Outcome =
  | { boundaryId: string; plan: Omit<EncodedPlan, 'companyId' | 'jobId'> }
  | { boundaryId: string; errorCode: string; message: string };

export interface ItemResult {
  planned: number;
  errors: number;
  /** Boundaries left alone (an outcome already recorded, or the job ended). */
  skipped: number;
}

/**
 * What the boundaries of an item are planned with, and under which keys
 * their outcomes are recorded. A job with one request (bulk guidance) plans
 * with the job's request, keys outcomes by boundary id and stores plans
 * under the job's id; a scenario set plans one item per scenario with that
 * scenario's request, keys `scenarioIndex:boundaryId` and stores the plans
 * under the scenario's id (one plan per boundary and scenario).
 */
export interface ItemTarget {
  request: JobPlanRequest;
  itemKey(boundaryId: string): string;
  /** The plans' job_id. */
  planJobId: string;
}

/** The target of a job with one request. */
export function jobTarget(job: JobRecord): ItemTarget {
  return { request: job.request as JobPlanRequest, itemKey: (id) => id, planJobId: job.id };
}

/** Plans the boundaries of one item of `job` and records their outcomes. */
export async function runPlanItem(
  deps: PlanItemDeps,
  job: JobRecord,
  boundaryIds: readonly string[],
  target: ItemTarget = jobTarget(job),
): Promise<ItemResult> {
  const jobsRepo = createJobsRepository(deps.store.db);
  const none = { planned: 0, errors: 0, skipped: boundaryIds.length };
  if (job.status !== 'queued' && job.status !== 'running') return none;
  const done = await jobsRepo.itemsWithOutcome(job.id, boundaryIds.map(target.itemKey));
  const todo = boundaryIds.filter((id) => !done.has(target.itemKey(id)));
  if (todo.length === 0) return none;
  await jobsRepo.markRunning(job.id);
  const outcomes = await Promise.all(todo.map((boundaryId) => planOne(deps, job, target, boundaryId)));
  return storeOutcomes(deps.store, job, target, outcomes, boundaryIds.length - todo.length);
}

async function planOne(
  deps: PlanItemDeps,
  job: JobRecord,
  target: ItemTarget,
  boundaryId: string,
): Promise<Outcome> {
  const fail = (errorCode: string, message: string): Outcome => ({ boundaryId, errorCode, message });
  const boundary = await deps.loadBoundary(job.companyId, boundaryId);
  if (!boundary) return fail('BOUNDARY_NOT_FOUND', `No boundary ${boundaryId} in the job's company.`);

  const request = target.request;
  // The plan is named after the field (the mapping reads the name from the boundary's properties).
  const g = boundary.geometry;
  const named: BoundaryInput =
    (g.type === 'Polygon' || g.type === 'MultiPolygon') && boundary.name
      ? { type: 'Feature', properties: { name: boundary.name }, geometry: g }
      : g;
  const read = readDirectRequest({ ...request, boundary: named });
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

  const id = uuidv7();
  const optimizerTimeMs = req.maxOptimizerTime * 1000;
  try {
    const out = await deps.pool.run(
      {
        stage: job.kind === 'headlands' ? 'headlands' : 'plan',
        request: req.plan,
        optimizerTimeMs,
        meta: {
          pathPlanId: id,
          pathPlanName: req.pathPlanName,
          createdAt: new Date().toISOString(),
          operationType: req.operationType,
        },
      },
      { timeoutMs: optimizerTimeMs + (deps.graceMs ?? 5000) },
    );
    if (!out.ok) return fail(out.code, out.message);
    if (out.modelZ === undefined) throw new Error('The planning thread answered no stored model.');
    return {
      boundaryId,
      plan: {
        id,
        boundaryId,
        fieldId: boundary.fieldId,
        name: req.pathPlanName,
        operationType: req.operationType,
        modelZ: out.modelZ,
        figures: out.figures,
      },
    };
  } catch (e) {
    if (e instanceof PlanTimeoutError) {
      return fail(
        'PLAN_TOO_COMPLEX',
        `Planning this field needs more than the time cap of ${req.maxOptimizerTime} s (routeOptions.maxOptimizerTime).`,
      );
    }
    throw e;
  }
}

async function storeOutcomes(
  store: Store,
  job: JobRecord,
  target: ItemTarget,
  outcomes: readonly Outcome[],
  alreadyDone: number,
): Promise<ItemResult> {
  return store.db.transaction(async (txAny) => {
    const tx = txAny as unknown as Database;
    const jobsRepo = createJobsRepository(tx);
    const status = await jobsRepo.lockStatus(job.id);
    if (status !== 'queued' && status !== 'running') {
      return { planned: 0, errors: 0, skipped: alreadyDone + outcomes.length };
    }
    // Under the lock: what another delivery of this item recorded meanwhile stays as it is.
    const taken = await jobsRepo.itemsWithOutcome(
      job.id,
      outcomes.map((o) => target.itemKey(o.boundaryId)),
    );
    const fresh = outcomes.filter((o) => !taken.has(target.itemKey(o.boundaryId)));
    const credits = createCreditsRepository(tx);
    const plans: EncodedPlan[] = [];
    const items: Parameters<typeof jobsRepo.recordItems>[1][number][] = [];
    const planned = fresh.filter((o) => 'plan' in o);
    // One charge for all plans when the balance allows, else plan by plan until it runs out.
    const all = planned.length
      ? await credits.take(job.companyId, JOB_PLAN_CREDIT_COST * planned.length)
      : null;
    for (const o of fresh) {
      if (!('plan' in o)) {
        items.push({ itemKey: target.itemKey(o.boundaryId), errorCode: o.errorCode, message: o.message });
        continue;
      }
      const charged = all?.ok ? all : await credits.take(job.companyId, JOB_PLAN_CREDIT_COST);
      if (!charged.ok) {
        items.push({
          itemKey: target.itemKey(o.boundaryId),
          errorCode: 'INSUFFICIENT_CREDITS',
          message: `A plan costs ${JOB_PLAN_CREDIT_COST} credit; the company has ${charged.available}.`,
        });
        continue;
      }
      items.push({ itemKey: target.itemKey(o.boundaryId), pathPlanId: o.plan.id });
      plans.push({ ...o.plan, companyId: job.companyId, jobId: target.planJobId });
    }
    const recorded = await jobsRepo.recordItems(job.id, items);
    if (recorded.size !== items.length) {
      throw new Error(`Outcomes of job ${job.id} were recorded by another writer under the job's lock.`);
    }
    const stored = await createPathPlansRepository(tx).insertEncoded(plans);
    if (stored.length !== plans.length) {
      throw new Error(`A plan of job ${job.id} exists without its outcome.`);
    }
    await jobsRepo.completeIfDone(job.id);
    return {
      planned: plans.length,
      errors: items.length - plans.length,
      skipped: alreadyDone + outcomes.length - fresh.length,
    };
  });
}
