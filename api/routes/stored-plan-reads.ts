import { Type } from 'typebox';
import type {} from '../../formats/plan-model.ts';
import { named } from '../openapi/components.ts';
import { PathPlanNormalizedModel as ModelSchema } from '../openapi/responses.ts';
import { answers, notFound, principalOf, setEtag, Uuid } from './common.ts';
import {
  Any,
  fieldParams,
  geoOf,
  ListItem,
  type ListQuery,
  listItem,
  listQuery,
  type PlanRouteContext,
  planParams,
  previewOf,
  readQuery,
} from './stored-plan-models.ts';

export function storedPlanReadRoutes(ctx: PlanRouteContext): void {
  const { r, opts, plans, tags, must } = ctx;
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
}
