/**
 * Jobs over one stored plan (the job's single item, keyed by the plan id):
 *
 *   pathplan               a new plan (tracks and route) inside the headlands
 *                          of a stored headlands plan: the same zones,
 *                          equipment and pass counts, so the generator makes
 *                          the same passes; stored as a new plan (1 credit).
 *   postprocess / route    every zone's active group routed again under new
 *                          route options (formats/reroute.ts); the plan is
 *                          replaced in place (no credit: it was paid for).
 *
 * The outcome, the plan write and the credit are one transaction under the
 * job's lock; a retried delivery finds the outcome and does nothing.
 */
import type { DirectRequestBody } from '../formats/direct-request.ts';
import { readDirectRequest } from '../formats/direct-request.ts';
import type { PathPlanNormalizedModel } from '../formats/plan-model.ts';
import {
  maxPass,
  mergeRoutedZone,
  requestEquipment,
  whyNotReroutableAlone,
  whyNotRoutable,
  zoneRouteRequest,
} from '../formats/reroute.ts';
import type { Database } from '../store/database.ts';
import { createCreditsRepository } from '../store/repositories/credits.ts';
import { createJobsRepository, type JobRecord } from '../store/repositories/jobs.ts';
import { createPathPlansRepository, type StoredPlan } from '../store/repositories/path-plans.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { JOB_PLAN_CREDIT_COST, type PlanItemDeps } from './plan-item.ts';
import { PlanTimeoutError } from './plan-pool.ts';

/** What a pathplan job asks besides the headlands plan: guidance and route options. */
export interface PathPlanJobRequest {
  pathPlanId: string;
  trackBearing?: number;
  extendTracks?: boolean;
  operationType?: string;
  routeOptions?: DirectRequestBody['routeOptions'];
}

/** What a postprocess or route job asks: the plan and its new route options. */
export interface RouteJobRequest {
  pathPlanId: string;
  routeOptions?: DirectRequestBody['routeOptions'];
}

class ItemError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export async function runStoredPlanItem(deps: PlanItemDeps, job: JobRecord): Promise<void> {
  const jobsRepo = createJobsRepository(deps.store.db);
  if (job.status !== 'queued' && job.status !== 'running') return;
  const { pathPlanId } = job.request as { pathPlanId: string };
  if (await jobsRepo.hasItem(job.id, pathPlanId)) return;
  await jobsRepo.markRunning(job.id);
  const plans = createPathPlansRepository(deps.store.db);
  const source = await plans.getAny(pathPlanId);
  let write: (tx: Database) => Promise<{ pathPlanId: string } | { errorCode: string; message: string }>;
  try {
    if (!source || source.companyId !== job.companyId) {
      throw new ItemError('PLAN_NOT_FOUND', `No plan ${pathPlanId} in the job's company.`);
    }
    if (job.kind === 'pathplan') {
      const made = await planFromHeadlands(deps, job, source);
      write = async (tx) => {
        const taken = await createCreditsRepository(tx).take(job.companyId, JOB_PLAN_CREDIT_COST);
        if (!taken.ok) {
          return {
            errorCode: 'INSUFFICIENT_CREDITS',
            message: `A plan costs ${JOB_PLAN_CREDIT_COST} credit; the company has ${taken.available}.`,
          };
        }
        await createPathPlansRepository(tx).insertEncoded([
          {
            ...made,
            companyId: job.companyId,
            boundaryId: source.boundaryId,
            fieldId: source.fieldId,
            jobId: job.id,
          },
        ]);
        return { pathPlanId: made.id };
      };
    } else {
      const model = await routeAgain(deps, job, source);
      write = async (tx) => {
        const ok = await createPathPlansRepository(tx).replaceCompanyModelIfVersion(
          job.companyId,
          source.id,
          model,
          source.version,
        );
        return ok
          ? { pathPlanId: source.id }
          : {
              errorCode: 'PRECONDITION_FAILED',
              message: `Plan ${source.id} changed while it was being routed; post the job again.`,
            };
      };
    }
  } catch (e) {
    if (!(e instanceof ItemError)) throw e;
    const { code, message } = e;
    write = async () => ({ errorCode: code, message });
  }
  await deps.store.db.transaction(async (txAny) => {
    const tx = txAny as unknown as Database;
    const r = createJobsRepository(tx);
    const status = await r.lockStatus(job.id);
    if (status !== 'queued' && status !== 'running') return;
    if (await r.hasItem(job.id, pathPlanId)) return;
    const outcome = await write(tx);
    await r.recordItem(job.id, pathPlanId, outcome);
    await r.completeIfDone(job.id);
  });
}

/** Runs a direct request on the job's planning threads; planner refusals become item errors. */
async function plan(
  deps: PlanItemDeps,
  body: DirectRequestBody,
  meta: { pathPlanId: string; pathPlanName: string; createdAt: string },
  output: 'stored' | 'json',
) {
  const read = readDirectRequest(body);
  if (!read.ok) {
    throw new ItemError(
      'VALIDATION_ERROR',
      read.errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; '),
    );
  }
  const req = read.request;
  try {
    const out = await deps.pool.run(
      {
        request: req.plan,
        output,
        optimizerTimeMs: req.maxOptimizerTime * 1000,
        meta: { ...meta, operationType: req.operationType },
      },
      { timeoutMs: req.maxOptimizerTime * 1000 + (deps.graceMs ?? 5000) },
    );
    if (!out.ok) throw new ItemError(out.code, out.message);
    return { out, req };
  } catch (e) {
    if (e instanceof PlanTimeoutError) {
      throw new ItemError(
        'PLAN_TOO_COMPLEX',
        `Planning needs more than the time cap of ${req.maxOptimizerTime} s (routeOptions.maxOptimizerTime).`,
      );
    }
    throw e;
  }
}

/** The pass counts a headlands plan was made with: its job's request, else the highest pass numbers found. */
async function passesOf(
  deps: PlanItemDeps,
  source: StoredPlan,
): Promise<{ exterior: number; interior: number }> {
  if (source.jobId) {
    const made = await createJobsRepository(deps.store.db).byId(source.jobId);
    const r = made?.request as
      | { exteriorHeadlandPasses?: number; interiorHeadlandPasses?: number }
      | undefined;
    if (made && r)
      return { exterior: r.exteriorHeadlandPasses ?? 0, interior: r.interiorHeadlandPasses ?? 0 };
  }
  let exterior = 0;
  let interior = 0;
  for (const z of source.model.zones) {
    for (const g of z.geometryGroups) {
      exterior = Math.max(exterior, maxPass(g, 'ExteriorHeadlandPass'));
      interior = Math.max(interior, maxPass(g, 'InteriorHeadlandPass'));
    }
  }
  return { exterior, interior };
}

async function planFromHeadlands(deps: PlanItemDeps, job: JobRecord, source: StoredPlan) {
  const request = job.request as PathPlanJobRequest;
  const model = source.model;
  const passes = await passesOf(deps, source);
  const body: DirectRequestBody = {
    boundary: { type: 'Feature', properties: { name: model.pathPlanName }, geometry: model.boundary },
    operationType: request.operationType ?? model.operationType,
    equipment: requestEquipment(model),
    exteriorHeadlandPasses: passes.exterior,
    interiorHeadlandPasses: passes.interior,
    ...(request.trackBearing !== undefined ? { trackBearing: request.trackBearing } : {}),
    ...(request.extendTracks !== undefined ? { extendTracks: request.extendTracks } : {}),
    ...(request.routeOptions ? { routeOptions: request.routeOptions } : {}),
  };
  const id = uuidv7();
  const { out, req } = await plan(
    deps,
    body,
    { pathPlanId: id, pathPlanName: model.pathPlanName, createdAt: new Date().toISOString() },
    'stored',
  );
  if (out.modelZ === undefined) throw new Error('The planning thread answered no stored model.');
  return {
    id,
    name: model.pathPlanName,
    operationType: req.operationType,
    modelZ: out.modelZ,
    figures: out.figures,
  };
}

async function routeAgain(
  deps: PlanItemDeps,
  job: JobRecord,
  source: StoredPlan,
): Promise<PathPlanNormalizedModel> {
  const { routeOptions } = job.request as RouteJobRequest;
  const model = source.model;
  for (const zone of model.zones) {
    const group = zone.geometryGroups.find((g) => g.geometryGroupId === zone.activeGeometryGroupId);
    if (!group) continue;
    const alone = whyNotReroutableAlone(zone);
    if (alone) throw new ItemError('OPTION_NOT_SUPPORTED', alone);
    const why = whyNotRoutable(zone.zoneId, group);
    if (why) throw new ItemError('NOTHING_TO_ROUTE', why);
    const { out } = await plan(
      deps,
      zoneRouteRequest(model, zone, group, routeOptions),
      { pathPlanId: model.pathPlanId, pathPlanName: model.pathPlanName, createdAt: model.createdAt },
      'json',
    );
    if (out.json === undefined) throw new Error('The planning thread answered no model.');
    if (!mergeRoutedZone(model, zone, group, JSON.parse(out.json) as PathPlanNormalizedModel)) {
      throw new ItemError('ROUTE_FAILED', `The zone ${zone.zoneId} could not be routed again.`);
    }
  }
  return model;
}
