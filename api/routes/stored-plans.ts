/**
 * Stored plans (the v2.0.0 normalized model) and path plan groups, scoped
 * to the companies the caller can access (another company's ids: 404).
 *
 *   GET  /api/path-plans-normalized/{id}           the full zone hierarchy (ETag)
 *   GET  /api/path-plans-normalized/{id}/preview   small payload for lists and maps
 *   GET  /api/path-plans/{id}/geo | list-item      GeoJSON of the active groups | list form
 *   GET  /api/fields/{fieldId}/path-plans[/list] | path-plan-ids | path-plan-names
 *   GET  /api/boundaries/{boundaryId}/path-plan-ids
 *   POST /api/path-plans/upsert | csv | archive ; POST/GET .../rate ; POST .../star ; DELETE
 *   POST /api/path-plan-zones/{zoneId}/geometry-groups/{groupId}/set-active
 *   path plan groups: every endpoint of spec 4.4
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CSV_COLUMNS, csvOf } from '../../formats/plan-csv.ts';
import type {
  GeoJSONLineString,
  GeometryPartModel,
  PathPlanNormalizedModel,
} from '../../formats/plan-model.ts';
import type { Store } from '../../store/db.ts';
import { createPathPlansRepository, type PathPlanRow } from '../../store/repositories/path-plans.ts';
import { versionMatches } from '../../store/repositories/versions.ts';
import { validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { PathPlanNormalizedModel as ModelSchema } from '../openapi/responses.ts';
import {
  answers,
  callerCompany,
  etagOf,
  ifMatchVersion,
  iso,
  notFound,
  preconditionFailed,
  principalOf,
  requireCompany,
  setEtag,
  Uuid,
} from './common.ts';

const ROUTE_PARTS = new Set(['RouteTrack', 'Turn', 'HeadlandTurn', 'HeadlandConnector', 'Connector']);

const Any = Type.Object({}, { additionalProperties: true });

const ListItem = Type.Object(
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

const planParams = Type.Object({ pathPlanId: Uuid('The plan id.') }, { additionalProperties: false });
const fieldParams = Type.Object({ fieldId: Uuid('The field id.') }, { additionalProperties: false });
const groupParams = Type.Object(
  { pathPlanGroupId: Uuid('The path plan group id.') },
  { additionalProperties: false },
);
const companyParams = Type.Object({ companyId: Uuid('The company id.') }, { additionalProperties: false });
const IdList = (what: string) =>
  Type.Array(Uuid(what), { minItems: 1, maxItems: 1000, description: `1..1000 ${what.toLowerCase()}` });
const listQuery = Type.Object(
  {
    includeArchived: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: 'Also list archived plans (default false).',
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
type ListQuery = { includeArchived?: 'true' | 'false'; offset?: string; limit?: string };
const readQuery = (q: ListQuery, defaultLimit: number) => ({
  includeArchived: q.includeArchived === 'true',
  offset: q.offset ? Number(q.offset) : 0,
  limit: q.limit ? Number(q.limit) : defaultLimit,
});
const Ids = Type.Object(
  { pathPlanIds: Type.Array(Type.String({ format: 'uuid' })) },
  { $id: 'PathPlanIdList', title: 'PathPlanIdList' },
);

export async function storedPlanRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const plans = createPathPlansRepository(opts.store.db);
  const tags = ['Path plans'];
  /**
   * Where a new plan belongs: the field and boundary the body names (ids of
   * a company the caller can access, else 404 as for unknown ids; a
   * boundary alone names its field too) and their company; without either,
   * the company the caller's credentials act for (403 when there is none).
   */
  const placeOf = async (
    req: FastifyRequest,
    body: { fieldId?: string; boundaryId?: string },
  ): Promise<{ companyId: string; fieldId?: string; boundaryId?: string }> => {
    const userId = principalOf(req).userId;
    let fieldId = body.fieldId;
    let companyId: string | undefined;
    if (body.boundaryId !== undefined) {
      const b = await opts.store.hierarchy.getBoundary(userId, body.boundaryId);
      if (!b) throw notFound('boundary', body.boundaryId);
      if (fieldId !== undefined && b.fieldId !== fieldId)
        throw validationError([
          {
            path: '/boundaryId',
            message: `must be a boundary of the field ${fieldId} (it is one of ${b.fieldId})`,
          },
        ]);
      fieldId = b.fieldId;
      companyId = b.companyId;
    }
    if (body.fieldId !== undefined) {
      const f = await opts.store.hierarchy.getField(userId, body.fieldId);
      if (!f) throw notFound('field', body.fieldId);
      companyId = f.companyId;
    }
    return {
      companyId: companyId ?? (await callerCompany(opts.store, req)),
      fieldId,
      boundaryId: body.boundaryId,
    };
  };
  const must = async <T>(v: Promise<T | null>, what: string, id: string): Promise<T> => {
    const x = await v;
    if (!x) throw notFound(what, id);
    return x;
  };

  r.get(
    '/api/path-plans-normalized/:pathPlanId',
    {
      schema: {
        tags,
        summary: 'A stored plan: the full zone hierarchy',
        params: planParams,
        response: answers(
          { 200: { schema: ModelSchema, description: 'The plan (ETag: its version).' } },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const p = await must(
        plans.get(principalOf(req).userId, req.params.pathPlanId),
        'plan',
        req.params.pathPlanId,
      );
      setEtag(reply, p.version);
      reply.header('content-type', 'application/json; charset=utf-8');
      return reply.send(JSON.stringify(p.model));
    },
  );

  r.get(
    '/api/path-plans-normalized/:pathPlanId/preview',
    {
      schema: {
        tags,
        summary: 'A stored plan, simplified',
        description:
          'Figures, the boundary to 6 decimals (about 0.1 m), and per zone its geometry groups, the active group’s AB line and its guidance tracks as their two ends; no route parts. For lists and maps.',
        params: planParams,
        response: answers(
          { 200: { schema: named('PathPlanPreview', Any), description: 'The preview.' } },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const p = await must(
        plans.get(principalOf(req).userId, req.params.pathPlanId),
        'plan',
        req.params.pathPlanId,
      );
      setEtag(reply, p.version);
      return previewOf(p.model);
    },
  );

  r.get(
    '/api/path-plans/:pathPlanId/geo',
    {
      schema: {
        tags,
        summary: 'A stored plan as GeoJSON (the active group of each zone)',
        params: planParams,
        response: answers(
          { 200: { schema: named('PathPlanGeoJson', Any), description: 'A FeatureCollection.' } },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const p = await must(
        plans.get(principalOf(req).userId, req.params.pathPlanId),
        'plan',
        req.params.pathPlanId,
      );
      reply.header('content-type', 'application/geo+json; charset=utf-8');
      return reply.send(JSON.stringify(geoOf(p.model)));
    },
  );

  r.get(
    '/api/path-plans/:pathPlanId/list-item',
    {
      schema: {
        tags,
        summary: 'A stored plan in list form',
        params: planParams,
        response: answers({ 200: { schema: ListItem, description: 'The list item.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const p = await must(
        plans.row(principalOf(req).userId, req.params.pathPlanId),
        'plan',
        req.params.pathPlanId,
      );
      setEtag(reply, p.version);
      return listItem(p);
    },
  );

  /**
   * Lists by field or boundary answer 404 for ids the caller cannot know (another
   * company's): a field or boundary of the caller's companies, or one the caller's plans name.
   */
  const requireKnown = async (
    userId: string,
    where: { fieldId?: string; boundaryId?: string },
    found: boolean,
  ) => {
    if (found) return;
    if (where.fieldId && !(await opts.store.hierarchy.getField(userId, where.fieldId)))
      throw notFound('field', where.fieldId);
    if (where.boundaryId && !(await opts.store.boundaries.forUser(userId, where.boundaryId)))
      throw notFound('boundary', where.boundaryId);
  };

  const listOf = async (
    userId: string,
    where: { fieldId?: string; boundaryId?: string },
    q: ListQuery,
    defaultLimit = 100,
  ) => {
    const l = await plans.list(userId, where, readQuery(q, defaultLimit));
    await requireKnown(userId, where, l.total > 0);
    return l;
  };

  r.get(
    '/api/fields/:fieldId/path-plans',
    {
      schema: {
        tags,
        summary: 'Plans of a field (list form, newest first)',
        params: fieldParams,
        querystring: listQuery,
        response: answers(
          {
            200: {
              schema: Type.Object(
                { items: Type.Array(ListItem), total: Type.Integer() },
                { $id: 'PathPlanListPage', title: 'PathPlanListPage' },
              ),
              description: 'A page of plans.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const l = await listOf(principalOf(req).userId, { fieldId: req.params.fieldId }, req.query);
      return { items: l.items.map(listItem), total: l.total };
    },
  );

  r.get(
    '/api/fields/:fieldId/path-plans/list',
    {
      schema: {
        tags,
        summary: 'Plans of a field as full normalized models (newest first)',
        params: fieldParams,
        querystring: listQuery,
        response: answers({ 200: { schema: Type.Array(ModelSchema), description: 'The models.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const q = readQuery(req.query, 100);
      const ms = await plans.listModels(principalOf(req).userId, req.params.fieldId, {
        ...q,
        limit: Math.min(q.limit, 100),
      });
      await requireKnown(
        principalOf(req).userId,
        { fieldId: req.params.fieldId },
        ms.length > 0 || q.offset > 0,
      );
      reply.header('content-type', 'application/json; charset=utf-8');
      return reply.send(JSON.stringify(ms.map((m) => m.model)));
    },
  );

  r.get(
    '/api/fields/:fieldId/path-plan-ids',
    {
      schema: {
        tags,
        summary: 'Ids of a field’s plans',
        params: fieldParams,
        querystring: listQuery,
        response: answers(
          {
            200: {
              schema: named('PathPlanIds', Type.Array(Type.String({ format: 'uuid' }))),
              description: 'Plan ids, newest first.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) =>
      (await listOf(principalOf(req).userId, { fieldId: req.params.fieldId }, req.query, 1000)).items.map(
        (i) => i.id,
      ),
  );

  r.get(
    '/api/fields/:fieldId/path-plan-names',
    {
      schema: {
        tags,
        summary: 'Ids and names of a field’s plans',
        params: fieldParams,
        querystring: listQuery,
        response: answers(
          {
            200: {
              schema: Type.Array(
                Type.Object(
                  { pathPlanId: Type.String(), name: Type.String() },
                  { $id: 'PathPlanName', title: 'PathPlanName' },
                ),
              ),
              description: 'Newest first.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) =>
      (await listOf(principalOf(req).userId, { fieldId: req.params.fieldId }, req.query, 1000)).items.map(
        (i) => ({
          pathPlanId: i.id,
          name: i.name,
        }),
      ),
  );

  r.get(
    '/api/boundaries/:boundaryId/path-plan-ids',
    {
      schema: {
        tags,
        summary: 'Ids of a boundary’s plans',
        params: Type.Object({ boundaryId: Uuid('The boundary id.') }, { additionalProperties: false }),
        querystring: listQuery,
        response: answers(
          {
            200: {
              schema: named('PathPlanIds', Type.Array(Type.String({ format: 'uuid' }))),
              description: 'Plan ids, newest first.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) =>
      (
        await listOf(principalOf(req).userId, { boundaryId: req.params.boundaryId }, req.query, 1000)
      ).items.map((i) => i.id),
  );

  r.post(
    '/api/path-plans/upsert',
    {
      schema: {
        tags,
        summary: 'Store a plan (new) or replace a stored plan’s model',
        description:
          'Body: `{ plan, fieldId?, boundaryId? }` with `plan` a PathPlanNormalizedModel (e.g. from /api/path-plans/direct). A `plan.pathPlanId` of a stored plan you can access replaces its model (If-Match honoured); an unused id (such as the id of a direct plan) stores a new plan under that id, in the company of the named field or boundary (a boundary alone names its field), else of your key’s company (403 when your credentials act for no company you can access). A fieldId or boundaryId you cannot access, and a plan id used by another company, answer 404 as unknown ids do; replacing a stored plan, fieldId and boundaryId may be left out or must be the plan’s own (400 otherwise). Answers the list item.',
        body: Type.Object(
          {
            plan: ModelSchema,
            fieldId: Type.Optional(Uuid('The field the plan belongs to.')),
            boundaryId: Type.Optional(Uuid('The boundary the plan was made for.')),
          },
          { additionalProperties: false },
        ),
        response: answers(
          {
            200: { schema: ListItem, description: 'Replaced.' },
            201: { schema: ListItem, description: 'Stored.' },
          },
          400,
          403,
          404,
          412,
          413,
          415,
        ),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const body = req.body as { plan: PathPlanNormalizedModel; fieldId?: string; boundaryId?: string };
      const model = body.plan;
      const id = typeof model.pathPlanId === 'string' ? model.pathPlanId : undefined;
      const existing = id ? await plans.row(p.userId, id) : null;
      if (existing) {
        // A stored plan keeps its place: ids named with it must be ones the caller can access and its own.
        if (body.fieldId !== undefined || body.boundaryId !== undefined) {
          const place = await placeOf(req, body);
          const moved =
            (place.fieldId !== undefined && place.fieldId !== existing.fieldId) ||
            (place.boundaryId !== undefined && place.boundaryId !== existing.boundaryId);
          if (moved)
            throw validationError([
              {
                path: body.boundaryId !== undefined ? '/boundaryId' : '/fieldId',
                message: `must be the stored plan's own (field ${existing.fieldId ?? 'none'}, boundary ${existing.boundaryId ?? 'none'}) or left out: a stored plan keeps its field and boundary`,
              },
            ]);
        }
        const want = ifMatchVersion(req);
        if (!versionMatches(want, existing.version))
          throw preconditionFailed('plan', existing.id, existing.version);
        await plans.replaceModel(p.userId, existing.id, model);
        const row = (await plans.row(p.userId, existing.id))!;
        setEtag(reply, row.version);
        return listItem(row);
      }
      // An id stored under a company the caller cannot access is neither overwritten nor revealed.
      if (id && (await plans.getAny(id))) throw notFound('plan', id);
      const { companyId, fieldId, boundaryId } = await placeOf(req, body);
      const newId = await plans.insert({
        companyId,
        fieldId,
        boundaryId,
        model,
        ...(id ? { id } : {}),
      });
      const row = (await plans.row(p.userId, newId!))!;
      setEtag(reply, row.version);
      reply.code(201);
      return listItem(row);
    },
  );

  r.post(
    '/api/path-plans/csv',
    {
      schema: {
        tags,
        summary: 'Figures of stored plans as CSV',
        description: `Body: \`{ pathPlanIds }\`. Answers text/csv (RFC 4180, CRLF) with the columns ${CSV_COLUMNS.join(', ')}; SI units. Ids you cannot access are 404.`,
        body: Type.Object({ pathPlanIds: IdList('Plan ids') }, { additionalProperties: false }),
        response: {
          200: { description: 'CSV.', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...answers({}, 400, 404),
        },
      },
    },
    async (req, reply) => {
      const ids = [...new Set(req.body.pathPlanIds)];
      const got = await plans.getMany(principalOf(req).userId, ids);
      const missing = ids.find((id) => !got.some((g) => g.id === id));
      if (missing) throw notFound('plan', missing);
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="path-plans.csv"');
      return reply.send(csvOf(got));
    },
  );

  r.post(
    '/api/path-plans/archive',
    {
      schema: {
        tags,
        summary: 'Archive (or unarchive) stored plans',
        description:
          'Body: `{ pathPlanIds, archived? }` (archived default true). Archived plans leave the lists unless includeArchived=true. Answers the ids changed; ids you cannot access are 404 and nothing changes.',
        body: Type.Object(
          { pathPlanIds: IdList('Plan ids'), archived: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: answers({ 200: { schema: Ids, description: 'Changed.' } }, 400, 404),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const ids = [...new Set(req.body.pathPlanIds)];
      const rows = await plans.getManyRows(userId, ids);
      const missing = ids.find((id) => !rows.some((x) => x.id === id));
      if (missing) throw notFound('plan', missing);
      return { pathPlanIds: await plans.update(userId, ids, { archived: req.body.archived ?? true }) };
    },
  );

  r.post(
    '/api/path-plans/:pathPlanId/star',
    {
      schema: {
        tags,
        summary: 'Star or unstar a plan',
        description: 'Body (optional): `{ starred }`, default true.',
        params: planParams,
        body: Type.Optional(
          Type.Object({ starred: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
        ),
        response: answers({ 200: { schema: ListItem, description: 'The plan.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const starred = (req.body as { starred?: boolean } | undefined)?.starred ?? true;
      if ((await plans.update(userId, [req.params.pathPlanId], { starred })).length === 0)
        throw notFound('plan', req.params.pathPlanId);
      const row = (await plans.row(userId, req.params.pathPlanId))!;
      setEtag(reply, row.version);
      return listItem(row);
    },
  );

  const Rating = Type.Object(
    {
      pathPlanId: Type.String({ format: 'uuid' }),
      rating: Type.Union([Type.Integer({ minimum: 1, maximum: 5 }), Type.Null()]),
      comment: Type.Union([Type.String(), Type.Null()]),
    },
    { $id: 'PathPlanRating', title: 'PathPlanRating' },
  );
  r.get(
    '/api/path-plans/:pathPlanId/rate',
    {
      schema: {
        tags,
        summary: 'A plan’s rating',
        params: planParams,
        response: answers({ 200: { schema: Rating, description: 'null until rated.' } }, 400, 404),
      },
    },
    async (req) => {
      const row = await must(
        plans.row(principalOf(req).userId, req.params.pathPlanId),
        'plan',
        req.params.pathPlanId,
      );
      return { pathPlanId: row.id, rating: row.rating, comment: row.ratingComment };
    },
  );
  r.post(
    '/api/path-plans/:pathPlanId/rate',
    {
      schema: {
        tags,
        summary: 'Rate a plan 1..5',
        params: planParams,
        body: Type.Object(
          {
            rating: Type.Union([Type.Integer({ minimum: 1, maximum: 5 }), Type.Null()], {
              description: '1..5; null clears the rating.',
            }),
            comment: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: answers({ 200: { schema: Rating, description: 'The rating.' } }, 400, 404),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const changed = await plans.update(userId, [req.params.pathPlanId], {
        rating: req.body.rating,
        ratingComment: req.body.comment ?? null,
      });
      if (changed.length === 0) throw notFound('plan', req.params.pathPlanId);
      return {
        pathPlanId: req.params.pathPlanId,
        rating: req.body.rating,
        comment: req.body.comment ?? null,
      };
    },
  );

  r.delete(
    '/api/path-plans/:pathPlanId',
    {
      schema: {
        tags,
        summary: 'Delete a stored plan (and its shares)',
        params: planParams,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      if (!(await plans.remove(principalOf(req).userId, req.params.pathPlanId)))
        throw notFound('plan', req.params.pathPlanId);
      return reply.code(204).send();
    },
  );

  r.post(
    '/api/path-plan-zones/:pathPlanZoneId/geometry-groups/:geometryGroupId/set-active',
    {
      schema: {
        tags,
        summary: 'Make a geometry group the active group of its zone',
        description:
          'Spec 3: the group must belong to the zone (404 otherwise); afterwards it is the only active group of the zone, the zone’s statistics are its statistics and the plan’s statistics follow. Answers the plan.',
        params: Type.Object(
          {
            pathPlanZoneId: Type.String({
              minLength: 1,
              maxLength: 100,
              description: 'A zone id of a stored plan (`{pathPlanId}-z{n}`).',
            }),
            geometryGroupId: Type.String({
              minLength: 1,
              maxLength: 120,
              description: 'A geometry group id of that zone.',
            }),
          },
          { additionalProperties: false },
        ),
        response: answers(
          { 200: { schema: ModelSchema, description: 'The plan after the switch.' } },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const out = await plans.setActive(
        principalOf(req).userId,
        req.params.pathPlanZoneId,
        req.params.geometryGroupId,
      );
      if (!out.ok) {
        throw out.reason === 'no-zone'
          ? notFound('path plan zone', req.params.pathPlanZoneId)
          : notFound(`geometry group of zone ${req.params.pathPlanZoneId}:`, req.params.geometryGroupId);
      }
      reply.header('content-type', 'application/json; charset=utf-8');
      return reply.send(JSON.stringify(out.model));
    },
  );

  // ---- path plan groups ----
  const gtags = ['Path plan groups'];
  const Group = Type.Object(
    {
      pathPlanGroupId: Type.String({ format: 'uuid' }),
      companyId: Type.String({ format: 'uuid' }),
      name: Type.String(),
      pathPlanIds: Type.Array(Type.String({ format: 'uuid' })),
      createdAt: Type.String({ format: 'date-time' }),
    },
    { $id: 'PathPlanGroup', title: 'PathPlanGroup' },
  );
  const groupOut = async (g: { id: string; companyId: string; name: string; createdAt: Date }) => ({
    pathPlanGroupId: g.id,
    companyId: g.companyId,
    name: g.name,
    pathPlanIds: await plans.groupPlanIds(g.id),
    createdAt: iso(g.createdAt),
  });
  const groupOf = async (userId: string, id: string) =>
    must(plans.getGroup(userId, id), 'path plan group', id);

  r.post(
    '/api/companies/:companyId/path-plan-groups',
    {
      schema: {
        tags: gtags,
        summary: 'Make a path plan group',
        params: companyParams,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            pathPlanIds: Type.Optional(Type.Array(Uuid('A plan of the company.'), { maxItems: 1000 })),
          },
          { additionalProperties: false },
        ),
        response: answers({ 201: { schema: Group, description: 'The group.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      await requireCompany(opts.store, req, req.params.companyId);
      const ids = [...new Set(req.body.pathPlanIds ?? [])];
      const rows = await plans.getManyRows(principalOf(req).userId, ids);
      const bad = ids.find((id) => !rows.some((x) => x.id === id && x.companyId === req.params.companyId));
      if (bad) throw notFound(`plan of company ${req.params.companyId}:`, bad);
      const g = await plans.createGroup(req.params.companyId, req.body.name);
      await plans.addToGroup(g.id, req.params.companyId, ids);
      reply.code(201);
      return groupOut({ ...g, companyId: req.params.companyId });
    },
  );

  r.get(
    '/api/companies/:companyId/path-plan-groups/names',
    {
      schema: {
        tags: gtags,
        summary: 'Names of a company’s path plan groups',
        params: companyParams,
        response: answers(
          {
            200: {
              schema: Type.Array(
                Type.Object(
                  { pathPlanGroupId: Type.String(), name: Type.String() },
                  { $id: 'PathPlanGroupName', title: 'PathPlanGroupName' },
                ),
              ),
              description: 'By name.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      await requireCompany(opts.store, req, req.params.companyId);
      return plans.groupNames(req.params.companyId);
    },
  );

  r.post(
    '/api/companies/:companyId/path-plan-groups/summary',
    {
      schema: {
        tags: gtags,
        summary: 'Per group: number of plans, total trafficked area, total time',
        description:
          'Body (optional): `{ pathPlanGroupIds }` to restrict to some groups. Archived plans are left out. traffickedArea is the wheels’ footprint along each route (total distance x the width the tyres run on, from the equipment’s trackWidths and tireWidths; 0 without tyre widths) [m^2]; totalTime [s]; totalArea is the field area of the plans [m^2].',
        params: companyParams,
        body: Type.Optional(
          Type.Object(
            { pathPlanGroupIds: Type.Optional(Type.Array(Uuid('A group id.'), { maxItems: 1000 })) },
            { additionalProperties: false },
          ),
        ),
        response: answers(
          {
            200: {
              schema: named(
                'PathPlanGroupSummary',
                Type.Object({
                  groups: Type.Array(
                    Type.Object({
                      pathPlanGroupId: Type.String(),
                      name: Type.String(),
                      planCount: Type.Integer(),
                      totalArea: Type.Number(),
                      totalTraffickedArea: Type.Number(),
                      totalTime: Type.Number(),
                    }),
                  ),
                  planCount: Type.Integer(),
                  totalTraffickedArea: Type.Number(),
                  totalTime: Type.Number(),
                }),
              ),
              description: 'The summary.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      await requireCompany(opts.store, req, req.params.companyId);
      const ids = (req.body as { pathPlanGroupIds?: string[] } | undefined)?.pathPlanGroupIds;
      const groups = await plans.groupSummary(req.params.companyId, ids);
      // Every group asked for must be one of the company (another company's or unknown ids: 404).
      const missing = ids?.find((id) => !groups.some((g) => g.pathPlanGroupId === id));
      if (missing) throw notFound('path plan group', missing);
      return {
        groups,
        planCount: groups.reduce((a, g) => a + g.planCount, 0),
        // Each group's sums are capped at 1e300 (the repository); so are their totals.
        totalTraffickedArea: Math.min(
          groups.reduce((a, g) => a + g.totalTraffickedArea, 0),
          1e300,
        ),
        totalTime: Math.min(
          groups.reduce((a, g) => a + g.totalTime, 0),
          1e300,
        ),
      };
    },
  );

  r.get(
    '/api/path-plan-groups/path-plans/:pathPlanId',
    {
      schema: {
        tags: gtags,
        summary: 'The group of a plan',
        params: planParams,
        response: answers(
          {
            200: {
              schema: Type.Union([Group, Type.Null()]),
              description: 'null when the plan is in no group.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const row = await must(plans.row(userId, req.params.pathPlanId), 'plan', req.params.pathPlanId);
      if (!row.groupId) return null;
      return groupOut(await groupOf(userId, row.groupId));
    },
  );

  r.get(
    '/api/path-plan-groups/:pathPlanGroupId',
    {
      schema: {
        tags: gtags,
        summary: 'A path plan group with its plan ids',
        params: groupParams,
        response: answers({ 200: { schema: Group, description: 'The group.' } }, 400, 404),
      },
    },
    async (req) => groupOut(await groupOf(principalOf(req).userId, req.params.pathPlanGroupId)),
  );

  r.delete(
    '/api/path-plan-groups/:pathPlanGroupId',
    {
      schema: {
        tags: gtags,
        summary: 'Delete a group (its plans stay, ungrouped)',
        params: groupParams,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      if (!(await plans.deleteGroup(principalOf(req).userId, req.params.pathPlanGroupId)))
        throw notFound('path plan group', req.params.pathPlanGroupId);
      return reply.code(204).send();
    },
  );

  const planIdsBody = Type.Object({ pathPlanIds: IdList('Plan ids') }, { additionalProperties: false });
  const checkPlansOf = async (userId: string, companyId: string, ids: string[]) => {
    const rows = await plans.getManyRows(userId, ids);
    const bad = ids.find((id) => !rows.some((x) => x.id === id && x.companyId === companyId));
    if (bad) throw notFound(`plan of company ${companyId}:`, bad);
  };

  r.post(
    '/api/path-plan-groups/:pathPlanGroupId/add-plans',
    {
      schema: {
        tags: gtags,
        summary: 'Add plans to a group (moving them from any other group)',
        params: groupParams,
        body: planIdsBody,
        response: answers({ 200: { schema: Group, description: 'The group.' } }, 400, 404),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const g = await groupOf(userId, req.params.pathPlanGroupId);
      const ids = [...new Set(req.body.pathPlanIds)];
      await checkPlansOf(userId, g.companyId, ids);
      await plans.addToGroup(g.id, g.companyId, ids);
      return groupOut(g);
    },
  );

  r.post(
    '/api/path-plan-groups/group-plans',
    {
      schema: {
        tags: gtags,
        summary: 'Make a group of plans in one call',
        description:
          'Body: `{ name, pathPlanIds }`; the plans must belong to one company, which the group belongs to.',
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200 }), pathPlanIds: IdList('Plan ids') },
          { additionalProperties: false },
        ),
        response: answers({ 201: { schema: Group, description: 'The group.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const ids = [...new Set(req.body.pathPlanIds)];
      const rows = await plans.getManyRows(userId, ids);
      const missing = ids.find((id) => !rows.some((x) => x.id === id));
      if (missing) throw notFound('plan', missing);
      const companies = new Set(rows.map((x) => x.companyId));
      if (companies.size !== 1)
        throw validationError([{ path: '/pathPlanIds', message: 'must name plans of one company' }]);
      const companyId = rows[0]!.companyId;
      const g = await plans.createGroup(companyId, req.body.name);
      await plans.addToGroup(g.id, companyId, ids);
      reply.code(201);
      return groupOut({ ...g, companyId });
    },
  );

  r.post(
    '/api/path-plan-groups/:pathPlanGroupId/ungroup-plan/:pathPlanId',
    {
      schema: {
        tags: gtags,
        summary: 'Take a plan out of a group',
        params: Type.Object(
          { pathPlanGroupId: Uuid('The group id.'), pathPlanId: Uuid('The plan id.') },
          { additionalProperties: false },
        ),
        response: answers({ 200: { schema: Group, description: 'The group.' } }, 400, 404),
      },
    },
    async (req) => {
      const g = await groupOf(principalOf(req).userId, req.params.pathPlanGroupId);
      if ((await plans.removeFromGroup(g.id, [req.params.pathPlanId])).length === 0) {
        throw notFound(`plan of group ${g.id}:`, req.params.pathPlanId);
      }
      return groupOut(g);
    },
  );

  r.delete(
    '/api/path-plan-groups/:pathPlanGroupId/delete-plans',
    {
      schema: {
        tags: gtags,
        summary: 'Delete plans of a group',
        description:
          'Body: `{ pathPlanIds }` (plans of this group). Answers the ids deleted. An id that is not a plan of this group you can access (another group’s, another company’s, unknown) answers 404 and nothing is deleted.',
        params: groupParams,
        body: planIdsBody,
        response: answers({ 200: { schema: Ids, description: 'Deleted.' } }, 400, 404),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const g = await groupOf(userId, req.params.pathPlanGroupId);
      const ids = [...new Set(req.body.pathPlanIds)];
      const rows = await plans.getManyRows(userId, ids);
      const missing = ids.find((id) => !rows.some((x) => x.id === id && x.groupId === g.id));
      if (missing) throw notFound(`plan of group ${g.id}:`, missing);
      return { pathPlanIds: await plans.deleteGroupPlans(g.id, ids) };
    },
  );
}
