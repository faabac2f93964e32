/**
 * Routing of stored plans (spec 4.4 Routing). A zone's route is re-made
 * under new route options: the zone is planned again with the group's own
 * track bearing, the plan's equipment and the group's headland passes, and
 * the route parts of the new plan replace the group's (same group id, parts
 * renumbered). Answers when done; planning has the direct interface's hard
 * cap (routeOptions.maxOptimizerTime + 5 s per zone). No credits are spent:
 * the plan was paid for when it was made.
 *
 *   POST /api/routes/normalized   RouteZoneRequest[] -> the updated geometry groups
 *   POST /api/routes/create       { pathPlanId | boundaryId + request, routeOptions } -> a routing (or
 *                                 guidance) job, waited for: the plan, or 202 with the job id
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DirectRequestBody } from '../../formats/direct-request.ts';
import type {
  GeometryGroupModel,
  PathPlanNormalizedModel,
  PathPlanZoneModel,
} from '../../formats/plan-model.ts';
import {
  mergeRoutedZone,
  whyNotReroutableAlone,
  whyNotRoutable,
  zoneRouteRequest,
} from '../../formats/reroute.ts';
import type { JobPlanRequest } from '../../jobs/plan-item.ts';
import type { JobSystem } from '../../jobs/runtime.ts';
import type { Store } from '../../store/db.ts';
import { createJobsRepository } from '../../store/repositories/jobs.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { ApiError, fromPlanningError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { PathPlanNormalizedModel as ModelSchema } from '../openapi/responses.ts';
import { type PlanPool, PlanTimeoutError, PoolBusyError } from '../planning/pool.ts';
import { readDirectRequest } from '../planning/read-request.ts';
import { type DirectPlanRequest, RouteOptions } from '../planning/schemas.ts';
import { describeUnsupported, unsupportedOptions } from '../planning/supported-options.ts';
import { answers, notFound, preconditionFailed, principalOf, Uuid } from './common.ts';
import {
  DEFAULT_WAIT_SECONDS,
  JobPending,
  jobFailure,
  MAX_WAIT_SECONDS,
  sendPending,
  WaitSeconds,
  waitForJob,
} from './job-wait.ts';
import { checkJobRequest, JobRequest } from './jobs.ts';

const MAX_ZONES_PER_REQUEST = 50;

const RouteZoneRequest = Type.Object(
  {
    pathPlanZoneId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A zone of a stored plan (`{pathPlanId}-z{n}`).',
    }),
    geometryGroupId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 120,
        description: 'The group to route (default: the zone’s active group).',
      }),
    ),
    routeOptions: Type.Optional(RouteOptions),
  },
  { additionalProperties: false, $id: 'RouteZoneRequest', title: 'RouteZoneRequest' },
);

const RoutedGroup = Type.Object(
  {
    pathPlanId: Type.String({ format: 'uuid' }),
    pathPlanZoneId: Type.String(),
    geometryGroup: Type.Object(
      {},
      { additionalProperties: true, description: 'The GeometryGroupModel with its new route parts.' },
    ),
  },
  { $id: 'RoutedGeometryGroup', title: 'RoutedGeometryGroup' },
);

export interface RoutingDeps {
  pool: PlanPool;
  graceMs?: number;
}

/** Re-routes one group of a zone in `model` (changed in place); returns the updated group. */
export async function routeZone(
  deps: RoutingDeps,
  model: PathPlanNormalizedModel,
  zone: PathPlanZoneModel,
  group: GeometryGroupModel,
  routeOptions: Record<string, unknown> | undefined,
  pointer: string,
): Promise<GeometryGroupModel> {
  const alone = whyNotReroutableAlone(zone);
  if (alone) throw new ApiError(422, 'OPTION_NOT_SUPPORTED', alone);
  const why = whyNotRoutable(zone.zoneId, group);
  if (why) throw new ApiError(422, 'NOTHING_TO_ROUTE', why);
  const body = zoneRouteRequest(
    model,
    zone,
    group,
    routeOptions as DirectRequestBody['routeOptions'],
  ) as DirectPlanRequest;
  const unsupported = unsupportedOptions(body);
  if (unsupported.length) {
    throw new ApiError(422, 'OPTION_NOT_SUPPORTED', describeUnsupported(unsupported), {
      details: { options: unsupported },
    });
  }
  const read = readDirectRequest(body);
  if (!read.ok) {
    throw validationError(
      read.errors.map((x) => ({
        path: `${pointer}${x.path.replace(/^\/boundary.*/, '')}`,
        message: x.message,
      })),
    );
  }
  const req = read.request;
  let out: Awaited<ReturnType<PlanPool['run']>>;
  try {
    out = await deps.pool.run(
      {
        request: req.plan,
        format: 'model',
        optimizerTimeMs: req.maxOptimizerTime * 1000,
        meta: {
          pathPlanId: model.pathPlanId,
          pathPlanName: model.pathPlanName,
          createdAt: model.createdAt,
          operationType: model.operationType,
        },
      },
      { timeoutMs: req.maxOptimizerTime * 1000 + (deps.graceMs ?? 5000) },
    );
  } catch (err) {
    if (err instanceof PoolBusyError) {
      throw new ApiError(
        503,
        'SERVICE_BUSY',
        'All planning workers are busy; retry after 2 s.',
        {},
        { 'retry-after': '2' },
      );
    }
    if (err instanceof PlanTimeoutError) {
      throw new ApiError(
        422,
        'PLAN_TOO_COMPLEX',
        `Routing zone ${zone.zoneId} needs more than the time cap of ${req.maxOptimizerTime} s (routeOptions.maxOptimizerTime).`,
      );
    }
    throw err;
  }
  if (!out.ok) throw fromPlanningError(out.code, out.message, out.details, pointer);
  const made = JSON.parse(out.body) as PathPlanNormalizedModel;
  const updated = mergeRoutedZone(model, zone, group, made);
  if (!updated) throw new ApiError(422, 'ROUTE_FAILED', `The zone ${zone.zoneId} could not be routed again.`);
  return updated;
}

export async function routingRoutes(
  app: FastifyInstance,
  opts: { store: Store; jobs: JobSystem } & RoutingDeps,
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const plans = createPathPlansRepository(opts.store.db);
  const jobsRepo = createJobsRepository(opts.store.db);
  const tags = ['Routes'];

  r.post(
    '/api/routes/normalized',
    {
      schema: {
        tags,
        summary: 'Route zones of stored plans again under new route options',
        description: `Body: 1..${MAX_ZONES_PER_REQUEST} RouteZoneRequests. Each zone is planned again with its group's track bearing, the plan's equipment and the group's headland passes under the given routeOptions; the group's parts are replaced (same group id) and the plan is stored. Answers the updated geometry groups. Blocks until done: at most routeOptions.maxOptimizerTime + 5 s per zone. No credits are spent.`,
        body: Type.Array(RouteZoneRequest, { minItems: 1, maxItems: MAX_ZONES_PER_REQUEST }),
        response: answers(
          {
            200: {
              schema: named('RoutedGeometryGroups', Type.Object({ geometryGroups: Type.Array(RoutedGroup) })),
              description: 'The updated groups, in request order.',
            },
          },
          400,
          404,
          412,
          415,
        ),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const out: { pathPlanId: string; pathPlanZoneId: string; geometryGroup: GeometryGroupModel }[] = [];
      for (const [i, zr] of req.body.entries()) {
        const planId = zr.pathPlanZoneId.replace(/-z\d+$/, '');
        const stored = planId === zr.pathPlanZoneId ? null : await plans.get(userId, planId);
        const zone = stored?.model.zones.find((z) => z.zoneId === zr.pathPlanZoneId);
        if (!stored || !zone) throw notFound('path plan zone', zr.pathPlanZoneId);
        const gid = zr.geometryGroupId ?? zone.activeGeometryGroupId;
        const group = zone.geometryGroups.find((g) => g.geometryGroupId === gid);
        if (!group) throw notFound(`geometry group of zone ${zone.zoneId}:`, gid);
        const updated = await routeZone(
          opts,
          stored.model,
          zone,
          group,
          zr.routeOptions as Record<string, unknown> | undefined,
          `/${i}/routeOptions`,
        );
        if (!(await plans.replaceModelIfVersion(userId, stored.id, stored.model, stored.version))) {
          throw preconditionFailed('plan', stored.id);
        }
        out.push({ pathPlanId: stored.id, pathPlanZoneId: zone.zoneId, geometryGroup: updated });
      }
      return { geometryGroups: out };
    },
  );

  r.post(
    '/api/routes/create',
    {
      schema: {
        tags,
        summary: 'Route a stored plan or a stored boundary as a job, waiting for the result',
        description: `With \`pathPlanId\`: a routing job routes the active group of every zone of the stored plan under routeOptions and replaces it (no credit). With \`boundaryId\` (stored geometry) and \`request\` (a planning request without its boundary, as the jobs take): a guidance job plans and routes the boundary and stores a new plan (1 credit). Either way the work runs as a job (pg-boss) and this call waits for it: the plan when done within waitSeconds (default ${DEFAULT_WAIT_SECONDS}, at most ${MAX_WAIT_SECONDS}), else 202 with the job id to poll (Location: /api/routes/jobs/{jobId} or /api/guidance/jobs/{jobId}). A job that fails answers its item's error (404, 412 or 422).`,
        body: named(
          'RouteCreateRequest',
          Type.Object(
            {
              pathPlanId: Type.Optional(Uuid('The stored plan to route again.')),
              boundaryId: Type.Optional(Uuid('A stored boundary to plan and route (with request).')),
              request: Type.Optional(JobRequest),
              routeOptions: Type.Optional(RouteOptions),
              waitSeconds: Type.Optional(WaitSeconds),
            },
            { additionalProperties: false },
          ),
        ),
        response: answers(
          {
            200: { schema: ModelSchema, description: 'The plan with its new routes.' },
            202: { schema: JobPending, description: 'Still running: poll the job.' },
          },
          400,
          403,
          404,
          409,
          412,
          415,
          422,
        ),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const b = req.body;
      if ((b.pathPlanId === undefined) === (b.boundaryId === undefined)) {
        throw validationError([
          {
            path: b.pathPlanId ? '/boundaryId' : '/pathPlanId',
            message: 'give exactly one of pathPlanId and boundaryId',
          },
        ]);
      }
      const routeOptions = b.routeOptions as Record<string, unknown> | undefined;
      let jobId: string;
      let pollUrl: string;
      if (b.pathPlanId !== undefined) {
        if (b.request)
          throw validationError([{ path: '/request', message: 'is given only with boundaryId' }]);
        const stored = await plans.get(p.userId, b.pathPlanId);
        if (!stored) throw notFound('plan', b.pathPlanId);
        // Route options the planner does not offer are refused before any job is made.
        const unsupported = unsupportedOptions({ routeOptions } as never);
        if (unsupported.length) {
          throw new ApiError(422, 'OPTION_NOT_SUPPORTED', describeUnsupported(unsupported), {
            details: { options: unsupported },
          });
        }
        ({ jobId } = await opts.jobs.enqueueStoredPlan({
          companyId: stored.companyId,
          userId: p.userId,
          kind: 'route',
          request: { pathPlanId: stored.id, routeOptions: routeOptions as never },
        }));
        pollUrl = `/api/routes/jobs/${jobId}`;
      } else {
        if (!b.request) throw validationError([{ path: '/request', message: 'is required with boundaryId' }]);
        const boundary = await opts.store.hierarchy.getBoundary(p.userId, b.boundaryId as string);
        if (!boundary) throw notFound('boundary', b.boundaryId as string);
        const request = { ...b.request, ...(routeOptions ? { routeOptions } : {}) } as JobPlanRequest;
        checkJobRequest(request);
        ({ jobId } = await opts.jobs.enqueuePlanning({
          companyId: boundary.companyId,
          userId: p.userId,
          kind: 'guidance',
          boundaryIds: [boundary.boundaryId],
          request,
        }));
        pollUrl = `/api/guidance/jobs/${jobId}`;
      }
      const done = await waitForJob(
        jobsRepo,
        p.userId,
        jobId,
        (b.waitSeconds ?? DEFAULT_WAIT_SECONDS) * 1000,
      );
      if (!done) {
        const now = await jobsRepo.view(p.userId, jobId);
        return sendPending(reply, jobId, pollUrl, now?.status === 'running' ? 'running' : 'queued');
      }
      const planId = done.pathPlanIds[0];
      if (done.status !== 'completed' || !planId) throw jobFailure(done);
      const plan = await plans.get(p.userId, planId);
      if (!plan) throw notFound('plan', planId);
      reply.header('content-type', 'application/json; charset=utf-8').header('x-job-id', jobId);
      return reply.send(JSON.stringify(plan.model));
    },
  );
}
