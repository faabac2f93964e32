import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CSV_COLUMNS, csvOf } from '../../formats/plan-csv.ts';
import type { PathPlanNormalizedModel } from '../../formats/plan-model.ts';
import { versionMatches } from '../../store/repositories/versions.ts';
import { validationError } from '../errors.ts';
import { PathPlanNormalizedModel as ModelSchema } from '../openapi/responses.ts';
import {
  answers,
  callerCompany,
  ifMatchVersion,
  notFound,
  preconditionFailed,
  principalOf,
  setEtag,
  Uuid,
} from './common.ts';
import { IdList, Ids, ListItem, listItem, type PlanRouteContext, planParams } from './stored-plan-models.ts';

export function storedPlanWriteRoutes(ctx: PlanRouteContext): void {
  const { r, opts, plans, tags, must } = ctx;
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
}
