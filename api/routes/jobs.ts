/**
 * Jobs: bulk guidance, guidance over a stored boundary (the whole plan or
 * its headlands only), a plan from stored headlands, post-processing and
 * routing of a stored plan, plan exports, their polls and cancelling. Posting a job answers 202 `{ jobId, status }` before
 * any work is done; the work runs in pg-boss workers (in this process on the
 * embedded store, or in `tramline worker` processes on PostgreSQL). Poll
 * every 5 s (spec 4.5): open jobs answer `Retry-After: 5`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { ROUTE_DEBUG_MAX_TRACKS } from '../../core/route/route-debug.ts';
import { type DirectRequestBody, MAX_FIELD_VERTICES } from '../../formats/direct-request.ts';
import { EXPORT_FORMAT_LABELS, EXPORT_FORMATS } from '../../formats/export/index.ts';
import { measureBoundary } from '../../formats/field-complexity.ts';
import type { PathPlanNormalizedModel } from '../../formats/plan-model.ts';
import { mergeRoutedZone, whyNotRoutable, zoneRouteRequest } from '../../formats/reroute.ts';
import type { JobPlanRequest } from '../../jobs/plan-item.ts';
import { PlanTimeoutError } from '../../jobs/plan-pool.ts';
import { type JobSystem, readExportBatch } from '../../jobs/runtime.ts';
import type { Store } from '../../store/db.ts';
import { createHierarchyRepository } from '../../store/repositories/hierarchy.ts';
import { createJobsRepository, type JobKind, type JobView } from '../../store/repositories/jobs.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { ApiError, fromPlanningError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { readDirectRequest } from '../planning/read-request.ts';
import { DirectPlanRequest, RouteOptions } from '../planning/schemas.ts';
import { describeUnsupported, unsupportedOptions } from '../planning/supported-options.ts';
import { answers, callerCompany, iso, notFound, preconditionFailed, principalOf, Uuid } from './common.ts';

/** Boundaries one bulk job may name. */
export const MAX_BULK_BOUNDARIES = 5000;
/** Plans one export may hold. */
export const MAX_EXPORT_PLANS = 500;

export const JobRequest = Type.Omit(DirectPlanRequest, ['boundary', 'field'], {
  $id: 'JobPlanRequest',
  title: 'JobPlanRequest',
  additionalProperties: false,
  description:
    'A direct planning request (POST /api/path-plans/direct) without its boundary: each boundary of the job is planned with it. pathPlanName defaults to the field name.',
});

const BulkBody = Type.Object(
  {
    boundaryIds: Type.Array(Uuid('A stored boundary of the caller’s company.'), {
      minItems: 1,
      maxItems: MAX_BULK_BOUNDARIES,
      description: `Boundaries to plan, 1..${MAX_BULK_BOUNDARIES}; repeated ids are planned once.`,
    }),
    request: JobRequest,
  },
  { additionalProperties: false, $id: 'BulkGuidanceRequest', title: 'BulkGuidanceRequest' },
);

const GuidanceBody = Type.Object(
  { boundaryId: Uuid('The stored boundary to plan.'), request: JobRequest },
  { additionalProperties: false, $id: 'GuidanceRequest', title: 'GuidanceRequest' },
);

const PathPlanBody = Type.Object(
  {
    pathPlanId: Uuid('A stored plan whose headlands are kept (e.g. made by POST /api/guidance/headlands).'),
    trackBearing: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 360,
        description: 'Track bearing [deg clockwise from north]; default: the best angle for the field.',
      }),
    ),
    extendTracks: Type.Optional(Type.Boolean({ description: 'Extend tracks to cover more area.' })),
    operationType: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    routeOptions: Type.Optional(RouteOptions),
  },
  { additionalProperties: false, $id: 'GuidancePathPlanRequest', title: 'GuidancePathPlanRequest' },
);

const RoutePlanBody = Type.Object(
  {
    pathPlanId: Uuid('The stored plan to route again.'),
    routeOptions: Type.Optional(RouteOptions),
  },
  { additionalProperties: false, $id: 'RoutePlanRequest', title: 'RoutePlanRequest' },
);

const ExportBody = Type.Object(
  {
    pathPlanIds: Type.Array(Uuid('A stored plan.'), { minItems: 1, maxItems: MAX_EXPORT_PLANS }),
    format: Type.Union(
      EXPORT_FORMATS.map((f) => Type.Literal(f, { description: EXPORT_FORMAT_LABELS[f] })),
      { description: `One of ${EXPORT_FORMATS.join(', ')}.` },
    ),
  },
  { additionalProperties: false, $id: 'PathPlanExportRequest', title: 'PathPlanExportRequest' },
);

const Num = (description: string) => Type.Number({ description });
const RouteDebugAnswer = Type.Object(
  {
    zones: Type.Array(
      Type.Object({
        zoneIndex: Type.Integer(),
        trackBearing: Num('Track bearing [deg clockwise from north].'),
        nodes: Type.Array(
          Type.Object({
            nodeIndex: Type.Integer({ description: '2t: end a of track t; 2t+1: end b.' }),
            trackIndex: Type.Integer(),
            end: Type.Union([Type.Literal('a'), Type.Literal('b')]),
            position: Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[lon, lat]' }),
            demandArea: Num('Area worked by driving the track entered at this node [m²].'),
            demandVolume: Type.Optional(Num('Volume applied on it [l] (with equipment.applicationRate).')),
          }),
        ),
        distanceMatrix: Type.Array(Type.Array(Type.Union([Type.Number(), Type.Null()])), {
          description:
            'matrix[i][j]: length [m] of the shortest drivable turn or connector inside the field from leaving the track at node i to entering the track at node j; null for two ends of one track and where none fits.',
        }),
        unreachablePairs: Type.Integer({
          description: 'Pairs of nodes of different tracks with no connection.',
        }),
        optimizer: Type.Object({
          constructions: Type.Record(Type.String(), Type.Number(), {
            description: 'Starting orders and their cost [m].',
          }),
          order: Type.Array(Type.Integer(), {
            description: 'The best order: the node each track is entered at.',
          }),
          cost: Num('Its cost [m].'),
          evaluations: Type.Integer(),
          improvements: Type.Integer(),
          kicks: Type.Integer(),
          converged: Type.Boolean(),
        }),
      }),
    ),
    statistics: Type.Object({
      zones: Type.Integer(),
      tracks: Type.Integer(),
      nodes: Type.Integer(),
      connectionsMeasured: Type.Integer(),
      timesMs: Type.Object(
        {
          prepare: Type.Number(),
          headlands: Type.Number(),
          tracks: Type.Number(),
          matrix: Type.Number(),
          optimizer: Type.Number(),
          total: Type.Number(),
        },
        { description: 'Time per stage [ms].' },
      ),
    }),
  },
  { $id: 'RouteDebugResult', title: 'RouteDebugResult' },
);

const ConstructBody = Type.Object(
  {
    pathPlanZoneId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A zone of a stored plan (`{pathPlanId}-z{n}`).',
    }),
    geometryGroupId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 120, description: 'Default: the zone’s active group.' }),
    ),
    trackOrder: Type.Optional(
      Type.Array(
        Type.Object(
          {
            trackIndex: Type.Integer({
              minimum: 0,
              description: 'trackDetail.trackIndex of a guidance track.',
            }),
            forward: Type.Boolean({
              description: 'true: driven in the direction of its coordinates (end a to b).',
            }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 5000, description: 'Every track of the group once, in driving order.' },
      ),
    ),
    nodeOrder: Type.Optional(
      Type.Array(Type.Integer({ minimum: 0 }), {
        minItems: 1,
        maxItems: 5000,
        description:
          'The same as route nodes of POST /api/routes/debug: node 2t enters track t at end a, 2t+1 at end b (e.g. its optimizer.order).',
      }),
    ),
    routeOptions: Type.Optional(RouteOptions),
  },
  { additionalProperties: false, $id: 'RouteConstructRequest', title: 'RouteConstructRequest' },
);

const Accepted = Type.Object(
  {
    jobId: Type.String({ format: 'uuid' }),
    status: Type.Literal('queued'),
  },
  { $id: 'JobAccepted', title: 'JobAccepted' },
);

const JobStatus = Type.Object(
  {
    jobId: Type.String({ format: 'uuid' }),
    kind: Type.String({
      description: 'bulk-guidance, guidance, headlands, pathplan, postprocess, route or export.',
    }),
    status: Type.Union(['queued', 'running', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
    progress: Type.Number({ minimum: 0, maximum: 1, description: 'Share of items with an outcome.' }),
    total: Type.Integer({ description: 'Items of the job (boundaries; 1 for an export).' }),
    pathPlanIds: Type.Array(Type.String({ format: 'uuid' }), {
      description: 'Plans stored so far (an export: the plans exported).',
    }),
    errors: Type.Array(
      Type.Object({
        boundaryId: Type.String({
          description: 'The item that failed: a boundary id; for jobs over a stored plan, the plan id.',
        }),
        errorCode: Type.String(),
        message: Type.String(),
      }),
      { description: 'One entry per item that failed; a failed field does not fail the job.' },
    ),
    batchId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Export jobs, once completed: GET /api/path-plans-export/{batchId}/file.',
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
    finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  {
    $id: 'JobStatus',
    title: 'JobStatus',
    description: 'A job. While queued or running the answer carries Retry-After: 5.',
  },
);

const jobParams = Type.Object({ jobId: Uuid('The job id.') }, { additionalProperties: false });

/** A small square, only to check a job's request before any boundary is read. */
const PROBE_BOUNDARY = {
  type: 'Polygon' as const,
  coordinates: [
    [
      [10, 55],
      [10.01, 55],
      [10.01, 55.01],
      [10, 55.01],
      [10, 55],
    ],
  ],
};

export function jobView(v: JobView) {
  const request = v.request as { pathPlanIds?: string[] };
  return {
    jobId: v.id,
    kind: v.kind,
    status: v.status,
    progress: v.total === 0 ? 1 : Math.min(1, v.done / v.total),
    total: v.total,
    pathPlanIds: v.kind === 'export' ? (request.pathPlanIds ?? []) : v.pathPlanIds,
    errors: v.errors,
    ...(typeof v.result?.batchId === 'string' ? { batchId: v.result.batchId } : {}),
    createdAt: iso(v.createdAt),
    finishedAt: v.finishedAt ? iso(v.finishedAt) : null,
  };
}

/** Checks a job's planning request as the direct interface would (400 / 422 before any work). */
export function checkJobRequest(request: JobPlanRequest): void {
  const read = readDirectRequest({ ...request, boundary: PROBE_BOUNDARY } as never);
  if (!read.ok) {
    throw validationError(read.errors.map((e) => ({ path: `/request${e.path}`, message: e.message })));
  }
  const unsupported = unsupportedOptions(request as never);
  if (unsupported.length) {
    throw new ApiError(422, 'OPTION_NOT_SUPPORTED', describeUnsupported(unsupported), {
      details: { options: unsupported },
    });
  }
}

export async function jobRoutes(
  app: FastifyInstance,
  opts: { store: Store; jobs: JobSystem },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const jobsRepo = createJobsRepository(opts.store.db);
  const plans = createPathPlansRepository(opts.store.db);
  const hierarchy = createHierarchyRepository(opts.store.db);
  /** The company of a boundary the user can access (404 otherwise). */
  const boundaryCompany = async (userId: string, boundaryId: string) => {
    const b = await hierarchy.getBoundary(userId, boundaryId);
    if (!b) throw notFound('boundary', boundaryId);
    return b.companyId;
  };

  const sendJob = async (reply: FastifyReply, userId: string, jobId: string, kinds?: readonly JobKind[]) => {
    const v = await jobsRepo.view(userId, jobId, kinds);
    if (!v) throw notFound('job', jobId);
    if (v.status === 'queued' || v.status === 'running') reply.header('retry-after', '5');
    return jobView(v);
  };

  const bulk = (deprecated: boolean) => ({
    schema: {
      tags: ['Jobs'],
      deprecated,
      summary: deprecated
        ? 'Bulk guidance (deprecated: use /api/bulk-guidance/normalized)'
        : 'Plan many stored boundaries in one job',
      description:
        'Answers 202 with the job id before any planning is done (every boundary must be one of the caller’s company: 404 otherwise, as for unknown ids; 403 when the credentials act for no company the user can access); each boundary is planned in a worker and stored as a plan of the caller’s company (1 credit per stored plan). A boundary that cannot be planned gets an entry in the job’s errors; the job goes on. Poll GET …/jobs/{jobId} every 5 s.',
      body: BulkBody,
      response: answers(
        { 202: { schema: Accepted, description: 'The job is queued.' } },
        400,
        403,
        404,
        413,
        415,
      ),
    },
  });
  const postBulk = async (
    req: { body: { boundaryIds: string[]; request: JobPlanRequest } },
    reply: FastifyReply,
  ) => {
    const p = principalOf(req as never);
    checkJobRequest(req.body.request);
    const companyId = await callerCompany(opts.store, req as never);
    // Every boundary must be one of that company (another company's or unknown ids: 404).
    const ids = [...new Set(req.body.boundaryIds)];
    const owned = new Set(await hierarchy.boundaryIdsOf(companyId, ids));
    const missing = ids.find((id) => !owned.has(id));
    if (missing) throw notFound('boundary', missing);
    const { jobId } = await opts.jobs.enqueuePlanning({
      companyId,
      userId: p.userId,
      kind: 'bulk-guidance',
      boundaryIds: req.body.boundaryIds,
      request: req.body.request,
    });
    reply.code(202).header('location', `/api/bulk-guidance/normalized/jobs/${jobId}`);
    return { jobId, status: 'queued' as const };
  };
  r.post('/api/bulk-guidance/normalized', bulk(false), postBulk as never);
  r.post('/api/bulk-guidance', bulk(true), postBulk as never);

  const poll = (summary: string, kinds: readonly JobKind[], deprecated = false) => ({
    schema: {
      tags: ['Jobs'],
      summary,
      deprecated,
      params: jobParams,
      response: answers({ 200: { schema: JobStatus, description: 'The job.' } }, 400, 404),
    },
    handler: async (req: { params: { jobId: string } }, reply: FastifyReply) =>
      sendJob(reply, principalOf(req as never).userId, req.params.jobId, kinds),
  });
  for (const [path, summary, kinds, dep] of [
    ['/api/bulk-guidance/normalized/jobs/:jobId', 'A bulk guidance job', ['bulk-guidance'], false],
    ['/api/bulk-guidance/jobs/:jobId', 'A bulk guidance job (deprecated path)', ['bulk-guidance'], true],
    [
      '/api/guidance/jobs/:jobId',
      'A guidance job (guidance, headlands or pathplan)',
      ['guidance', 'headlands', 'pathplan'],
      false,
    ],
    ['/api/guidance/post-processing-jobs/:jobId', 'A post-processing job', ['postprocess'], false],
    ['/api/routes/jobs/:jobId', 'A routing job', ['route'], false],
    ['/api/path-plans-export/jobs/:jobId', 'A plan export job', ['export'], false],
  ] as const) {
    const o = poll(summary, kinds, dep);
    r.get(path, { schema: o.schema }, o.handler as never);
  }

  /** A planning job for one stored boundary: 202 at once, polled at /api/guidance/jobs/{jobId}. */
  const boundaryJob = (path: string, kind: 'guidance' | 'headlands', summary: string, description: string) =>
    r.post(
      path,
      {
        schema: {
          tags: ['Jobs'],
          summary,
          description,
          body: GuidanceBody,
          response: answers(
            { 202: { schema: Accepted, description: 'The job is queued.' } },
            400,
            404,
            413,
            415,
            422,
          ),
        },
      },
      async (req, reply) => {
        const p = principalOf(req);
        const body = req.body as { boundaryId: string; request: JobPlanRequest };
        checkJobRequest(body.request);
        const { jobId } = await opts.jobs.enqueuePlanning({
          companyId: await boundaryCompany(p.userId, body.boundaryId),
          userId: p.userId,
          kind,
          boundaryIds: [body.boundaryId],
          request: body.request,
        });
        reply.code(202).header('location', `/api/guidance/jobs/${jobId}`);
        return { jobId, status: 'queued' as const };
      },
    );

  boundaryJob(
    '/api/guidance',
    'guidance',
    'Plan one stored boundary as a job',
    'Plans the boundary with the request (a direct request without its boundary) in a worker and stores the plan as one of the boundary’s company (1 credit). Answers 202 at once; poll GET /api/guidance/jobs/{jobId}. A boundary the caller cannot access answers 404.',
  );
  boundaryJob(
    '/api/guidance/headlands',
    'headlands',
    'Plan the headlands of one stored boundary as a job',
    'Makes the headland passes only (exterior passes along the edge, interior passes around obstacles) and the workable area inside them, with the field statistics; no tracks, no route. The request is a direct request without its boundary (route options are checked, not used). The stored plan (1 credit) can be completed by POST /api/guidance/pathplan. Answers 202 at once; poll GET /api/guidance/jobs/{jobId}.',
  );

  /** The company of a plan the user can access (404 otherwise), and the route options checked. */
  const planOf = async (
    userId: string,
    body: { pathPlanId: string; routeOptions?: unknown; trackBearing?: number; extendTracks?: boolean },
  ) => {
    const unsupported = unsupportedOptions({
      routeOptions: body.routeOptions,
      trackBearing: body.trackBearing,
      extendTracks: body.extendTracks,
    } as never);
    if (unsupported.length) {
      throw new ApiError(422, 'OPTION_NOT_SUPPORTED', describeUnsupported(unsupported), {
        details: { options: unsupported },
      });
    }
    const row = await plans.row(userId, body.pathPlanId);
    if (!row) throw notFound('plan', body.pathPlanId);
    return row.companyId;
  };

  r.post(
    '/api/guidance/pathplan',
    {
      schema: {
        tags: ['Jobs'],
        summary: 'Make a path plan inside the headlands of a stored plan, as a job',
        description:
          'Plans tracks and the route inside the headlands of the stored plan (its zones, equipment and headland pass counts; the passes are made again by the same generator, so they are the same), and stores the result as a new plan of the plan’s field (1 credit). Answers 202 at once; poll GET /api/guidance/jobs/{jobId}: pathPlanIds names the new plan.',
        body: PathPlanBody,
        response: answers(
          { 202: { schema: Accepted, description: 'The job is queued.' } },
          400,
          404,
          415,
          422,
        ),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const companyId = await planOf(p.userId, req.body);
      const { jobId } = await opts.jobs.enqueueStoredPlan({
        companyId,
        userId: p.userId,
        kind: 'pathplan',
        request: req.body as never,
      });
      reply.code(202).header('location', `/api/guidance/jobs/${jobId}`);
      return { jobId, status: 'queued' as const };
    },
  );

  const routeJob = (
    kind: 'postprocess' | 'route',
    summary: string,
    description: string,
    pollPath: string,
    deprecated = false,
  ) => ({
    schema: {
      tags: ['Jobs'],
      summary,
      description,
      deprecated,
      body: RoutePlanBody,
      response: answers({ 202: { schema: Accepted, description: 'The job is queued.' } }, 400, 404, 415, 422),
    },
    handler: async (req: { body: { pathPlanId: string; routeOptions?: unknown } }, reply: FastifyReply) => {
      const p = principalOf(req as never);
      const companyId = await planOf(p.userId, req.body);
      const { jobId } = await opts.jobs.enqueueStoredPlan({
        companyId,
        userId: p.userId,
        kind,
        request: req.body as never,
      });
      reply.code(202).header('location', `${pollPath}/${jobId}`);
      return { jobId, status: 'queued' as const };
    },
  });
  const postprocessText =
    'Post-processes a stored plan: every zone’s active geometry group is routed again under routeOptions (its tracks, bearing and headland passes kept; turns, connectors, order and statistics made anew) and the plan is replaced in place (no credit). Answers 202 at once; poll GET /api/guidance/post-processing-jobs/{jobId}. A plan changed meanwhile gives the item PRECONDITION_FAILED.';
  for (const [path, deprecated] of [
    ['/api/guidance/postprocess', false],
    ['/api/guidance-post-process', true],
  ] as const) {
    const o = routeJob(
      'postprocess',
      deprecated
        ? 'Post-process a stored plan (alias of /api/guidance/postprocess)'
        : 'Post-process a stored plan as a job',
      postprocessText,
      '/api/guidance/post-processing-jobs',
      deprecated,
    );
    r.post(path, { schema: o.schema }, o.handler as never);
  }
  {
    const o = routeJob(
      'route',
      'Route a stored plan again as a job (deprecated: use /api/routes/normalized)',
      'Routes every zone’s active geometry group of the plan under routeOptions and replaces the plan (no credit). Answers 202 at once; poll GET /api/routes/jobs/{jobId}.',
      '/api/routes/jobs',
      true,
    );
    r.post('/api/routes', { schema: o.schema }, o.handler as never);
  }

  r.post(
    '/api/routes/debug',
    {
      schema: {
        tags: ['Routes'],
        summary: 'What the route optimizer works from: route nodes, distance matrix, demands, statistics',
        description: `Body: a direct planning request (as POST /api/path-plans/direct). Per zone: the route nodes (both ends of every track), the matrix of drivable connection lengths between them, each node's demand (area, and volume with an application rate), the optimizer's result on that matrix (starting orders, best order, evaluations) and the time each stage took. At most ${ROUTE_DEBUG_MAX_TRACKS} tracks over all zones (else 422 PLAN_TOO_COMPLEX). Answers when done: at most routeOptions.maxOptimizerTime + 30 s. No credits are spent.`,
        body: DirectPlanRequest,
        response: answers(
          { 200: { schema: RouteDebugAnswer, description: 'The optimizer’s input and statistics.' } },
          400,
          413,
          415,
          422,
        ),
      },
    },
    async (req, reply) => {
      const read = readDirectRequest(req.body as never);
      if (!read.ok) throw validationError(read.errors);
      const unsupported = unsupportedOptions(req.body as never);
      if (unsupported.length) {
        throw new ApiError(422, 'OPTION_NOT_SUPPORTED', describeUnsupported(unsupported), {
          details: { options: unsupported },
        });
      }
      const d = read.request;
      const vertices = measureBoundary(d.boundary).vertices;
      if (vertices > MAX_FIELD_VERTICES) {
        throw new ApiError(
          413,
          'PAYLOAD_TOO_LARGE',
          `The boundary has ${vertices} vertices; at most ${MAX_FIELD_VERTICES}.`,
        );
      }
      const optimizerTimeMs = d.maxOptimizerTime * 1000;
      let out: Awaited<ReturnType<ReturnType<JobSystem['planningPool']>['routeDebug']>>;
      try {
        out = await opts.jobs
          .planningPool()
          .routeDebug({ request: d.plan, optimizerTimeMs }, { timeoutMs: optimizerTimeMs + 30_000 });
      } catch (e) {
        if (e instanceof PlanTimeoutError) {
          throw new ApiError(
            422,
            'PLAN_TOO_COMPLEX',
            `Route debugging of this field needs more than ${Math.round(e.timeoutMs / 1000)} s.`,
          );
        }
        throw e;
      }
      if (!out.ok) throw fromPlanningError(out.code, out.message, out.details, d.boundaryPath);
      reply.header('content-type', 'application/json; charset=utf-8');
      return reply.send(out.json);
    },
  );

  r.post(
    '/api/routes/construct',
    {
      schema: {
        tags: ['Routes'],
        summary: 'Construct the route of a stored zone from a given track order',
        description:
          'Drives the group’s tracks in the order given (trackOrder, or nodeOrder as POST /api/routes/debug numbers the route nodes): the planner makes the turns, connectors and headland passes between them, the group’s route parts are replaced (same group id) and the plan is stored; answers the updated group. Other routeOptions (headlandsFirst, forcedDirection, ...) apply; algorithm does not. Blocks until done: at most routeOptions.maxOptimizerTime + 5 s. No credits are spent.',
        body: ConstructBody,
        response: answers(
          {
            200: {
              schema: named(
                'ConstructedRoute',
                Type.Object({
                  pathPlanId: Type.String({ format: 'uuid' }),
                  pathPlanZoneId: Type.String(),
                  geometryGroup: Type.Object(
                    {},
                    {
                      additionalProperties: true,
                      description: 'The GeometryGroupModel with its new route parts.',
                    },
                  ),
                }),
              ),
              description: 'The updated group.',
            },
          },
          400,
          404,
          412,
          415,
          422,
        ),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const b = req.body;
      if ((b.trackOrder === undefined) === (b.nodeOrder === undefined)) {
        throw validationError([
          { path: '/trackOrder', message: 'give either trackOrder or nodeOrder (one of them)' },
        ]);
      }
      const order =
        b.trackOrder?.map((t) => ({ track: t.trackIndex, forward: t.forward })) ??
        (b.nodeOrder ?? []).map((n) => ({ track: n >> 1, forward: n % 2 === 0 }));
      const planId = b.pathPlanZoneId.replace(/-z\d+$/, '');
      const stored = planId === b.pathPlanZoneId ? null : await plans.get(userId, planId);
      const zone = stored?.model.zones.find((z) => z.zoneId === b.pathPlanZoneId);
      if (!stored || !zone) throw notFound('path plan zone', b.pathPlanZoneId);
      const gid = b.geometryGroupId ?? zone.activeGeometryGroupId;
      const group = zone.geometryGroups.find((g) => g.geometryGroupId === gid);
      if (!group) throw notFound(`geometry group of zone ${zone.zoneId}:`, gid);
      const why = whyNotRoutable(zone.zoneId, group);
      if (why) throw new ApiError(422, 'NOTHING_TO_ROUTE', why);
      const body = zoneRouteRequest(
        stored.model,
        zone,
        group,
        b.routeOptions as DirectRequestBody['routeOptions'],
      );
      const unsupported = unsupportedOptions(body as never);
      if (unsupported.length) {
        throw new ApiError(422, 'OPTION_NOT_SUPPORTED', describeUnsupported(unsupported), {
          details: { options: unsupported },
        });
      }
      const read = readDirectRequest(body);
      if (!read.ok)
        throw validationError(
          read.errors.map((e) => ({ path: `/routeOptions${e.path}`, message: e.message })),
        );
      const d = read.request;
      d.plan.route = { ...d.plan.route, algorithm: d.plan.route?.algorithm ?? 'auto', trackOrder: order };
      const optimizerTimeMs = d.maxOptimizerTime * 1000;
      let out: Awaited<ReturnType<ReturnType<JobSystem['planningPool']>['run']>>;
      try {
        out = await opts.jobs.planningPool().run(
          {
            request: d.plan,
            output: 'json',
            optimizerTimeMs,
            meta: {
              pathPlanId: stored.id,
              pathPlanName: stored.model.pathPlanName,
              createdAt: stored.model.createdAt,
              operationType: d.operationType,
            },
          },
          { timeoutMs: optimizerTimeMs + 5000, interactive: true },
        );
      } catch (e) {
        if (e instanceof PlanTimeoutError) {
          throw new ApiError(
            422,
            'PLAN_TOO_COMPLEX',
            `Constructing this route needs more than ${Math.round(e.timeoutMs / 1000)} s.`,
          );
        }
        throw e;
      }
      if (!out.ok) {
        if (out.code === 'INVALID_OPTION' && out.message.includes('trackOrder')) {
          throw validationError([
            { path: b.trackOrder ? '/trackOrder' : '/nodeOrder', message: out.message },
          ]);
        }
        throw fromPlanningError(out.code, out.message, {}, '/routeOptions');
      }
      const made = JSON.parse(out.json ?? 'null') as PathPlanNormalizedModel;
      const updated = mergeRoutedZone(stored.model, zone, group, made);
      if (!updated) throw new ApiError(422, 'ROUTE_FAILED', `The zone ${zone.zoneId} could not be routed.`);
      if (!(await plans.replaceModelIfVersion(userId, stored.id, stored.model, stored.version))) {
        throw preconditionFailed('plan', stored.id);
      }
      return { pathPlanId: stored.id, pathPlanZoneId: zone.zoneId, geometryGroup: updated };
    },
  );

  r.post(
    '/api/job/:jobId/cancel',
    {
      schema: {
        tags: ['Jobs'],
        summary: 'Cancel a job',
        description:
          'A queued or running job becomes cancelled: items not started are not planned; plans already stored stay. Cancelling an ended job answers its state unchanged.',
        params: jobParams,
        response: answers({ 200: { schema: JobStatus, description: 'The job after cancelling.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const outcome = await jobsRepo.cancel(userId, req.params.jobId);
      if (outcome === 'not-found') throw notFound('job', req.params.jobId);
      return sendJob(reply, userId, req.params.jobId);
    },
  );

  r.post(
    '/api/path-plans-export',
    {
      schema: {
        tags: ['Jobs'],
        summary: 'Export stored plans',
        description: `Answers 202 with a job; the completed job names a batchId whose zip GET /api/path-plans-export/{batchId}/file returns. Formats: ${EXPORT_FORMATS.map((f) => `\`${f}\` (${EXPORT_FORMAT_LABELS[f]})`).join(', ')}.`,
        body: ExportBody,
        response: answers({ 202: { schema: Accepted, description: 'The export is queued.' } }, 400, 404, 415),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const ids = [...new Set(req.body.pathPlanIds)];
      const found = await plans.getManyRows(p.userId, ids);
      const missing = ids.filter((id) => !found.some((f) => f.id === id));
      if (missing.length) throw notFound('plan', missing[0]!);
      const companies = new Set(found.map((f) => f.companyId));
      if (companies.size > 1) {
        throw validationError([{ path: '/pathPlanIds', message: 'must name plans of one company' }]);
      }
      const { jobId } = await opts.jobs.enqueueExport({
        companyId: found[0]!.companyId,
        userId: p.userId,
        request: { pathPlanIds: ids, format: req.body.format },
      });
      reply.code(202).header('location', `/api/path-plans-export/jobs/${jobId}`);
      return { jobId, status: 'queued' as const };
    },
  );

  r.get(
    '/api/path-plans-export/:batchId/file',
    {
      schema: {
        tags: ['Jobs'],
        summary: 'The zip of a finished export',
        params: Type.Object(
          { batchId: Uuid('The batchId of a completed export job.') },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The zip (application/zip).',
            content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...answers({}, 400, 404),
        },
      },
    },
    async (req, reply) => {
      const batch = await readExportBatch(opts.store.db, principalOf(req).userId, req.params.batchId);
      if (!batch) throw notFound('export batch', req.params.batchId);
      reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${batch.fileName.replace(/["\\\r\n]/g, '_')}"`);
      return reply.send(batch.zip as never);
    },
  );
}
