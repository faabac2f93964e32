/**
 * What the stored plan routes share: the list item schema and its builder,
 * the preview and GeoJSON forms of a plan, path parameters, the list query,
 * and the context (router, store, plans repository) the route modules use.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type {
  GeoJSONLineString,
  GeometryPartModel,
  PathPlanNormalizedModel,
} from '../../formats/plan-model.ts';
import type { Store } from '../../store/db.ts';
import { createPathPlansRepository, type PathPlanRow } from '../../store/repositories/path-plans.ts';
import { etagOf, iso, notFound, Uuid } from './common.ts';

const ROUTE_PARTS = new Set(['RouteTrack', 'Turn', 'HeadlandTurn', 'HeadlandConnector', 'Connector']);

export const Any = Type.Object({}, { additionalProperties: true });

export const ListItem = Type.Object(
  {
    pathPlanId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    fieldId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    boundaryId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    pathPlanGroupId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    operationType: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    totalArea: Type.Number({ description: 'Field area less holes [m^2].' }),
    numberOfTracks: Type.Integer(),
    traffickedArea: Type.Number({
      description:
        'Wheel footprint along the route: total distance x the width the tyres run on (equipment trackWidths and tireWidths; 0 without tyre widths) [m^2].',
    }),
    totalTime: Type.Number({ description: 'Estimated time to complete [s].' }),
    archived: Type.Boolean(),
    starred: Type.Boolean(),
    rating: Type.Union([Type.Integer({ minimum: 1, maximum: 5 }), Type.Null()]),
    ratingComment: Type.Union([Type.String(), Type.Null()]),
    etag: Type.String(),
  },
  { $id: 'PathPlanListItem', title: 'PathPlanListItem' },
);

export function listItem(r: PathPlanRow) {
  return {
    pathPlanId: r.id,
    name: r.name,
    fieldId: r.fieldId,
    boundaryId: r.boundaryId,
    pathPlanGroupId: r.groupId,
    operationType: r.operationType,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    totalArea: r.area,
    numberOfTracks: r.numberOfTracks,
    traffickedArea: r.traffickedArea,
    totalTime: r.totalTime,
    archived: r.archived,
    starred: r.starred,
    rating: r.rating,
    ratingComment: r.ratingComment,
    etag: etagOf(r.version),
  };
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const roundCoords = (c: unknown): unknown =>
  Array.isArray(c) ? c.map(roundCoords) : typeof c === 'number' ? round6(c) : c;

/** The preview: figures, the boundary to 6 decimals, and per zone the active group's guidance tracks as their two ends. */
export function previewOf(m: PathPlanNormalizedModel) {
  return {
    pathPlanId: m.pathPlanId,
    name: m.pathPlanName,
    createdAt: m.createdAt,
    operationType: m.operationType,
    totalArea: m.area,
    numberOfTracks: m.numberOfTracks,
    stats: m.stats,
    boundary: { type: m.boundary.type, coordinates: roundCoords(m.boundary.coordinates) },
    zones: m.zones.map((z) => {
      const active = z.geometryGroups.find((g) => g.isActive) ?? z.geometryGroups[0];
      const ends = (g: GeoJSONLineString) =>
        [g.coordinates[0], g.coordinates[g.coordinates.length - 1]].map(roundCoords);
      return {
        zoneId: z.zoneId,
        zoneIndex: z.zoneIndex,
        activeGeometryGroupId: z.activeGeometryGroupId,
        stats: z.stats,
        geometryGroups: z.geometryGroups.map((g) => ({
          geometryGroupId: g.geometryGroupId,
          isActive: g.isActive,
          trackBearing: g.trackBearing,
          trackCount: g.stats.trackCount,
        })),
        abLine: active ? { type: 'LineString', coordinates: roundCoords(active.abLine.coordinates) } : null,
        tracks: active
          ? {
              type: 'MultiLineString',
              coordinates: active.geometryParts
                .filter((p: GeometryPartModel) => p.geometryPartType === 'GuidanceTrack')
                .map((p) => ends(p.geometry)),
            }
          : null,
      };
    }),
  };
}

/** GeoJSON of a stored plan: the boundary and every part of each zone's active group. */
export function geoOf(m: PathPlanNormalizedModel) {
  const features: unknown[] = [
    {
      type: 'Feature',
      geometry: m.boundary,
      properties: { featureType: 'boundary', pathPlanId: m.pathPlanId },
    },
  ];
  for (const z of m.zones) {
    const g = z.geometryGroups.find((x) => x.isActive);
    if (!g) continue;
    features.push({
      type: 'Feature',
      geometry: g.abLine,
      properties: { featureType: 'abLine', zoneId: z.zoneId },
    });
    for (const p of g.geometryParts) {
      features.push({
        type: 'Feature',
        geometry: p.geometry,
        properties: {
          featureType: 'geometryPart',
          geometryPartType: p.geometryPartType,
          geometryPartId: p.geometryPartId,
          zoneId: z.zoneId,
          zoneIndex: z.zoneIndex,
          working: p.working,
          length: p.length,
          ...(p.sequence !== undefined ? { sequence: p.sequence } : {}),
          route: ROUTE_PARTS.has(p.geometryPartType),
        },
      });
    }
  }
  return { type: 'FeatureCollection', features };
}

export const planParams = Type.Object({ pathPlanId: Uuid('The plan id.') }, { additionalProperties: false });
export const fieldParams = Type.Object({ fieldId: Uuid('The field id.') }, { additionalProperties: false });
export const groupParams = Type.Object(
  { pathPlanGroupId: Uuid('The path plan group id.') },
  { additionalProperties: false },
);
export const companyParams = Type.Object(
  { companyId: Uuid('The company id.') },
  { additionalProperties: false },
);
export const IdList = (what: string) =>
  Type.Array(Uuid(what), { minItems: 1, maxItems: 1000, description: `1..1000 ${what.toLowerCase()}` });
export const listQuery = Type.Object(
  {
    includeArchived: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: 'Also list archived plans (default false).',
      }),
    ),
    includeScenarioPlans: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description:
          'Also list the plans equipment scenarios made of the field with their machines (default false: those are listed under /api/equipment-scenarios/{equipmentScenarioId}/path-plans).',
      }),
    ),
    offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,7}$', description: 'Whole number, default 0.' })),
    limit: Type.Optional(
      Type.String({
        pattern: '^([1-9][0-9]{0,2}|1000)$',
        description: 'Whole number 1 to 1000, default 100.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListQuery = {
  includeArchived?: 'true' | 'false';
  includeScenarioPlans?: 'true' | 'false';
  offset?: string;
  limit?: string;
};
export const readQuery = (q: ListQuery, defaultLimit: number) => ({
  includeArchived: q.includeArchived === 'true',
  includeScenarioPlans: q.includeScenarioPlans === 'true',
  offset: q.offset ? Number(q.offset) : 0,
  limit: q.limit ? Number(q.limit) : defaultLimit,
});
export const Ids = Type.Object(
  { pathPlanIds: Type.Array(Type.String({ format: 'uuid' })) },
  { $id: 'PathPlanIdList', title: 'PathPlanIdList' },
);

export type PlanRoutes = ReturnType<typeof typed>;
const typed = (app: FastifyInstance) => app.withTypeProvider<TypeBoxTypeProvider>();

/** What the stored plan route modules share: the typed router, the store, the plans repository. */
export interface PlanRouteContext {
  r: PlanRoutes;
  opts: { store: Store };
  plans: ReturnType<typeof createPathPlansRepository>;
  tags: string[];
  must: <T>(v: Promise<T | null>, what: string, id: string) => Promise<T>;
}

export function planRouteContext(app: FastifyInstance, opts: { store: Store }): PlanRouteContext {
  const r = typed(app);
  const plans = createPathPlansRepository(opts.store.db);
  const tags = ['Path plans'];
  const must = async <T>(v: Promise<T | null>, what: string, id: string): Promise<T> => {
    const x = await v;
    if (!x) throw notFound(what, id);
    return x;
  };
  return { r, opts, plans, tags, must };
}
