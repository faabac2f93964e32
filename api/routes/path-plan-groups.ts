import { Type } from 'typebox';
import type {} from '../../formats/plan-model.ts';
import { validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, iso, notFound, principalOf, requireCompany, Uuid } from './common.ts';
import {
  companyParams,
  groupParams,
  IdList,
  Ids,
  type PlanRouteContext,
  planParams,
} from './stored-plan-models.ts';

export function pathPlanGroupRoutes(ctx: PlanRouteContext): void {
  const { r, opts, plans, must } = ctx;
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
