/**
 * Route reads of stored plans. A plan's routes are embedded in its geometry
 * groups (spec 2.4: RouteTrack, Turn, HeadlandTurn, HeadlandConnector
 * parts); a route's id is its geometry group's id.
 *
 *   GET /api/path-plans/{pathPlanId}/routes   the route of every geometry group of the plan
 *   GET /api/routes/{routeId}                 one route (a geometry group id)
 *   GET /api/routes/gpx?pathPlanId=           GPX 1.1 of the active routes, one track per route part
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { GPX_NON_WORKING, GPX_WORKING, planToGpx } from '../../formats/export/gpx.ts';
import { ExportError } from '../../formats/export/index.ts';
import type {
  GeometryGroupModel,
  PathPlanNormalizedModel,
  PathPlanZoneModel,
} from '../../formats/plan-model.ts';
import type { Store } from '../../store/db.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { ApiError } from '../errors.ts';
import { answers, notFound, principalOf, Uuid } from './common.ts';

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

export async function routeReadRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const plans = createPathPlansRepository(opts.store.db);
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
        description: `One <trk> per route part in driving order; <type>${GPX_WORKING}</type> for working parts and <type>${GPX_NON_WORKING}</type> for turns and connectors; consecutive parts share their end points. Waypoints mark each zone's start and end. 422 ROUTE_MISSING when the plan has no route.`,
        querystring: Type.Object({ pathPlanId: Uuid('The plan id.') }, { additionalProperties: false }),
        response: {
          200: {
            description: 'GPX 1.1.',
            content: { 'application/gpx+xml': { schema: { type: 'string' } } },
          },
          ...answers({}, 400, 404),
        },
      },
    },
    async (req, reply) => {
      const p = await plans.get(principalOf(req).userId, req.query.pathPlanId);
      if (!p) throw notFound('plan', req.query.pathPlanId);
      let xml: string;
      try {
        xml = planToGpx({ plan: p.model, fieldName: p.name });
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
