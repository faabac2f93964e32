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
 *   POST /api/routes/create       { pathPlanId, routeOptions } -> the plan, every zone's active group routed
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
import type { Store } from '../../store/db.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { ApiError, fromPlanningError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { PathPlanNormalizedModel as ModelSchema } from '../openapi/responses.ts';
import { type PlanPool, PlanTimeoutError, PoolBusyError } from '../planning/pool.ts';
import { readDirectRequest } from '../planning/read-request.ts';
import { type DirectPlanRequest, RouteOptions } from '../planning/schemas.ts';
import { describeUnsupported, unsupportedOptions } from '../planning/supported-options.ts';
import { answers, notFound, preconditionFailed, principalOf, Uuid } from './common.ts';

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
  opts: { store: Store } & RoutingDeps,
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const plans = createPathPlansRepository(opts.store.db);
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
        summary: 'Route every zone of a stored plan again (blocking)',
        description:
          'Routes the active group of every zone under routeOptions and stores the plan; answers the plan. Blocks until done or until the time-out: routeOptions.maxOptimizerTime (default 10 s, at most 60) + 5 s per zone, after which it answers 422 PLAN_TOO_COMPLEX and stores nothing. No credits are spent.',
        body: Type.Object(
          { pathPlanId: Uuid('The stored plan.'), routeOptions: Type.Optional(RouteOptions) },
          { additionalProperties: false },
        ),
        response: answers(
          { 200: { schema: ModelSchema, description: 'The plan with its new routes.' } },
          400,
          404,
          412,
          415,
        ),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const stored = await plans.get(userId, req.body.pathPlanId);
      if (!stored) throw notFound('plan', req.body.pathPlanId);
      for (const zone of stored.model.zones) {
        const group = zone.geometryGroups.find((g) => g.geometryGroupId === zone.activeGeometryGroupId);
        if (group)
          await routeZone(
            opts,
            stored.model,
            zone,
            group,
            req.body.routeOptions as Record<string, unknown> | undefined,
            '/routeOptions',
          );
      }
      if (!(await plans.replaceModelIfVersion(userId, stored.id, stored.model, stored.version))) {
        throw preconditionFailed('plan', stored.id);
      }
      reply.header('content-type', 'application/json; charset=utf-8');
      return reply.send(JSON.stringify(stored.model));
    },
  );
}
