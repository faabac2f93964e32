/**
 * Route reads of stored plans. A plan's routes are embedded in its geometry
 * groups (spec 2.4: RouteTrack, Turn, HeadlandTurn, HeadlandConnector
 * parts); a route's id is its geometry group's id.
 *
 *   GET /api/path-plans/{pathPlanId}/routes   the route of every geometry group of the plan
 *   GET /api/routes/{routeId}                 one route (a geometry group id)
 *   GET /api/routes/gpx?pathPlanId=           GPX 1.1 of the active routes, one track per route part
 *                                             (LineString / CurveString; a routing job first where needed)
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { routeParts } from '../../formats/export/common.ts';
import { GPX_CURVE_STRING, GPX_LINE_STRING, planToGpx } from '../../formats/export/gpx.ts';
import { ExportError } from '../../formats/export/index.ts';
import type {
  GeometryGroupModel,
  PathPlanNormalizedModel,
  PathPlanZoneModel,
} from '../../formats/plan-model.ts';
import type { JobSystem } from '../../jobs/runtime.ts';
import type { Store } from '../../store/db.ts';
import { createJobsRepository } from '../../store/repositories/jobs.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { ApiError, validationError } from '../errors.ts';
import { answers, notFound, principalOf, Uuid } from './common.ts';
import {
  DEFAULT_WAIT_SECONDS,
  JobPending,
  jobFailure,
  MAX_WAIT_SECONDS,
  sendPending,
  waitForJob,
} from './job-wait.ts';

const ROUTE_PART_TYPES = new Set(['RouteTrack', 'Turn', 'HeadlandTurn', 'HeadlandConnector', 'Connector']);

const Route = Type.Object(
  {
    routeId: Type.String({ description: 'The geometry group id.' }),
    pathPlanId: Type.String({ format: 'uuid' }),
    zoneId: Type.String(),
    zoneIndex: Type.Integer(),
    isActive: Type.Boolean({ description: 'The group is the active group of its zone.' }),
    trackBearing: Type.Number(),
    stats: Type.Object({}, { additionalProperties: true, description: 'Statistics of the group.' }),
    routeParts: Type.Array(
      Type.Object({
        geometryPartId: Type.String(),
        geometryPartType: Type.String(),
        sequence: Type.Union([Type.Integer(), Type.Null()]),
        working: Type.Boolean(),
        length: Type.Number(),
        geometry: Type.Object({}, { additionalProperties: true }),
      }),
      {
        description:
          'The route in driving order; working parts (RouteTrack, headland passes driven) and non-working parts (turns, connectors).',
      },
    ),
  },
  { $id: 'Route', title: 'Route' },
);

function routeOf(m: PathPlanNormalizedModel, z: PathPlanZoneModel, g: GeometryGroupModel) {
  const parts = g.geometryParts
    .filter((p) => p.sequence !== undefined || ROUTE_PART_TYPES.has(p.geometryPartType))
    .sort((a, b) => (a.sequence ?? Number.MAX_SAFE_INTEGER) - (b.sequence ?? Number.MAX_SAFE_INTEGER));
  return {
    routeId: g.geometryGroupId,
    pathPlanId: m.pathPlanId,
    zoneId: z.zoneId,
    zoneIndex: z.zoneIndex,
    isActive: g.isActive,
    trackBearing: g.trackBearing,
    stats: g.stats as unknown as Record<string, unknown>,
    routeParts: parts.map((p) => ({
      geometryPartId: p.geometryPartId,
      geometryPartType: p.geometryPartType,
      sequence: p.sequence ?? null,
      working: p.working,
      length: p.length,
      geometry: p.geometry as unknown as Record<string, unknown>,
    })),
  };
}

export async function routeReadRoutes(
  app: FastifyInstance,
  opts: { store: Store; jobs: JobSystem },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const plans = createPathPlansRepository(opts.store.db);
  const jobsRepo = createJobsRepository(opts.store.db);
  const tags = ['Routes'];

  r.get(
    '/api/path-plans/:pathPlanId/routes',
    {
      schema: {
        tags,
        summary: 'The routes of a stored plan (one per geometry group)',
        params: Type.Object({ pathPlanId: Uuid('The plan id.') }, { additionalProperties: false }),
        response: answers(
          { 200: { schema: Type.Array(Route), description: 'Zone by zone, groups in order.' } },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const p = await plans.get(principalOf(req).userId, req.params.pathPlanId);
      if (!p) throw notFound('plan', req.params.pathPlanId);
      return p.model.zones.flatMap((z) => z.geometryGroups.map((g) => routeOf(p.model, z, g)));
    },
  );

  r.get(
    '/api/routes/gpx',
    {
      schema: {
        tags,
        summary: 'The active route of a stored plan as GPX 1.1',
        description: `One <trk> per route part in driving order: <type>${GPX_LINE_STRING}</type> for working parts (tracks, headland passes) and <type>${GPX_CURVE_STRING}</type> for the others (turns, connectors); consecutive parts repeat their shared point. Waypoints mark where each field part's route starts and ends. A plan without a route, or \`reroute=true\`, first gets a routing job (as POST /api/routes/create with the plan id and default route options), waited for up to waitSeconds (default ${DEFAULT_WAIT_SECONDS}): 202 with the job id when it is still running.`,
        querystring: Type.Object(
          {
            pathPlanId: Uuid('The plan id.'),
            reroute: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
            waitSeconds: Type.Optional(
              Type.String({
                pattern: '^[0-9]{1,3}$',
                description: `Whole seconds, at most ${MAX_WAIT_SECONDS}.`,
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'GPX 1.1.',
            content: { 'application/gpx+xml': { schema: { type: 'string' } } },
          },
          ...answers(
            { 202: { schema: JobPending, description: 'The routing job is still running: poll it.' } },
            400,
            404,
            412,
            422,
          ),
        },
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const q = req.query;
      const wait = Number(q.waitSeconds ?? DEFAULT_WAIT_SECONDS);
      if (wait > MAX_WAIT_SECONDS)
        throw validationError([
          { path: '/querystring/waitSeconds', message: `must be at most ${MAX_WAIT_SECONDS}` },
        ]);
      let p = await plans.get(userId, q.pathPlanId);
      if (!p) throw notFound('plan', q.pathPlanId);
      if (q.reroute === 'true' || routeParts(p.model).length === 0) {
        const { jobId } = await opts.jobs.enqueueStoredPlan({
          companyId: p.companyId,
          userId,
          kind: 'route',
          request: { pathPlanId: p.id },
        });
        const done = await waitForJob(jobsRepo, userId, jobId, wait * 1000);
        if (!done) {
          const pending = sendPending(reply, jobId, `/api/routes/jobs/${jobId}`, 'running');
          reply.header('content-type', 'application/json; charset=utf-8');
          return reply.send(JSON.stringify(pending));
        }
        if (done.status !== 'completed' || done.errors.length) throw jobFailure(done);
        p = await plans.get(userId, q.pathPlanId);
        if (!p) throw notFound('plan', q.pathPlanId);
      }
      let xml: string;
      try {
        xml = planToGpx(
          { plan: p.model, fieldName: p.name },
          { working: GPX_LINE_STRING, nonWorking: GPX_CURVE_STRING },
        );
      } catch (e) {
        if (e instanceof ExportError) throw new ApiError(422, 'ROUTE_MISSING', e.message);
        throw e;
      }
      reply.header('content-type', 'application/gpx+xml; charset=utf-8');
      return reply.send(xml);
    },
  );

  r.get(
    '/api/routes/:routeId',
    {
      schema: {
        tags,
        summary: 'One route (a geometry group of a stored plan)',
        params: Type.Object(
          {
            routeId: Type.String({
              pattern: '^[0-9a-fA-F-]{36}-z[0-9]+-g[0-9]+$',
              description: 'A geometry group id (`{pathPlanId}-z{n}-g{m}`).',
            }),
          },
          { additionalProperties: false },
        ),
        response: answers({ 200: { schema: Route, description: 'The route.' } }, 400, 404),
      },
    },
    async (req) => {
      const planId = req.params.routeId.replace(/-z\d+-g\d+$/, '');
      const p = await plans.get(principalOf(req).userId, planId);
      for (const z of p?.model.zones ?? []) {
        const g = z.geometryGroups.find((x) => x.geometryGroupId === req.params.routeId);
        if (g && p) return routeOf(p.model, z, g);
      }
      throw notFound('route', req.params.routeId);
    },
  );
}
