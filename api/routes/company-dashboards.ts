/**
 * Dashboards of a company:
 *   GET /api/companies/{companyId}/dashboards              the dashboards there are
 *   GET /api/companies/{companyId}/dashboards/summary      what the company holds and has planned
 *   GET /api/companies/{companyId}/dashboards/fieldwatch   fields: coverage by boundaries and plans, recent changes
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import { answers, idParams, iso, notFound, principalOf, Timestamp, Uuid } from './common.ts';
import { CompanyEvent, eventBody } from './company-events.ts';
import { CompanyUnits, companyUnits, unitsBody } from './company-lists.ts';

const tags = ['Companies'];
const params = idParams('companyId');

const DashboardList = Type.Object(
  {
    companyId: Uuid('The company.'),
    items: Type.Array(
      Type.Object({
        name: Type.String(),
        title: Type.String(),
        href: Type.String({ description: 'Where to read it.' }),
      }),
    ),
  },
  { $id: 'CompanyDashboards', title: 'CompanyDashboards' },
);

const Area = Type.Object({
  fields: Type.Number({ description: 'Of the active boundaries [m²].' }),
  planned: Type.Number({ description: 'Of the plans not archived [m²].' }),
});

const DashboardSummary = Type.Object(
  {
    companyId: Uuid('The company.'),
    name: Type.String(),
    growers: Type.Integer(),
    farms: Type.Integer(),
    fields: Type.Integer(),
    boundaries: Type.Object({ total: Type.Integer(), active: Type.Integer() }),
    pathPlans: Type.Object({
      total: Type.Integer(),
      active: Type.Integer({ description: 'Not archived.' }),
      archived: Type.Integer(),
      starred: Type.Integer(),
      groups: Type.Integer({ description: 'Path plan groups.' }),
    }),
    area: Area,
    equipment: Type.Integer(),
    operators: Type.Integer(),
    users: Type.Integer({ description: 'Users with access.' }),
    credits: Type.Object({
      available: Type.Union([Type.Integer(), Type.Null()], { description: 'null when unlimited.' }),
      unlimited: Type.Boolean(),
    }),
    units: CompanyUnits,
    lastChangeAt: Type.Union([Timestamp, Type.Null()], {
      description: 'The newest event of the company log.',
    }),
  },
  { $id: 'CompanyDashboardSummary', title: 'CompanyDashboardSummary' },
);

const FieldWatch = Type.Object(
  {
    companyId: Uuid('The company.'),
    fields: Type.Object({
      total: Type.Integer(),
      enabled: Type.Integer(),
      withActiveBoundary: Type.Integer(),
      withoutBoundary: Type.Integer({ description: 'Fields to draw or import a boundary for.' }),
      withPlans: Type.Integer({ description: 'Fields with a plan that is not archived.' }),
      withoutPlans: Type.Integer({ description: 'Fields with a boundary but no plan yet.' }),
    }),
    boundaries: Type.Object({ total: Type.Integer(), active: Type.Integer() }),
    pathPlans: Type.Object({ total: Type.Integer(), active: Type.Integer() }),
    area: Area,
    recentFields: Type.Array(
      Type.Object({
        fieldId: Uuid('The field.'),
        name: Type.String(),
        enabled: Type.Boolean(),
        area: Type.Union([Type.Number(), Type.Null()], {
          description: 'Of its active boundary [m²]; null without one.',
        }),
        pathPlans: Type.Integer({ description: 'Plans not archived.' }),
        updatedAt: Timestamp,
      }),
      { description: 'The 10 fields changed last.' },
    ),
    recentActivity: Type.Array(CompanyEvent, { description: 'The 20 newest events of the company log.' }),
  },
  { $id: 'CompanyFieldWatch', title: 'CompanyFieldWatch' },
);

export async function companyDashboardRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;

  r.get(
    '/api/companies/:companyId/dashboards',
    {
      schema: {
        tags,
        summary: "A company's dashboards",
        params,
        response: answers({ 200: { schema: DashboardList, description: 'The dashboards.' } }, 400, 404),
      },
    },
    async (req) => {
      const { companyId } = req.params;
      const base = `/api/companies/${companyId}/dashboards`;
      return {
        companyId,
        items: [
          { name: 'summary', title: 'What the company holds and has planned', href: `${base}/summary` },
          {
            name: 'fieldwatch',
            title: 'Fields: boundaries, plans and recent changes',
            href: `${base}/fieldwatch`,
          },
        ],
      };
    },
  );

  r.get(
    '/api/companies/:companyId/dashboards/summary',
    {
      schema: {
        tags,
        summary: 'What a company holds and has planned',
        params,
        response: answers({ 200: { schema: DashboardSummary, description: 'The summary.' } }, 400, 404),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const c = await store.companies.get(userId, req.params.companyId);
      if (!c) throw notFound('company', req.params.companyId);
      const [d, credits, units] = await Promise.all([
        store.companyStats.dashboard(c.companyId),
        store.credits.get(c.companyId),
        companyUnits(store, userId, c.companyId),
      ]);
      return {
        companyId: c.companyId,
        name: c.name,
        growers: d.growers,
        farms: d.farms,
        fields: d.fields.total,
        boundaries: d.boundaries,
        pathPlans: d.pathPlans,
        area: d.area,
        equipment: d.equipment,
        operators: d.operators,
        users: d.users,
        credits: { available: credits.unlimited ? null : credits.credits, unlimited: credits.unlimited },
        units: unitsBody(c.companyId, units),
        lastChangeAt: d.lastChangeAt ? iso(d.lastChangeAt) : null,
      };
    },
  );

  r.get(
    '/api/companies/:companyId/dashboards/fieldwatch',
    {
      schema: {
        tags,
        summary: 'Fields of a company: boundaries, plans, recent changes',
        params,
        response: answers({ 200: { schema: FieldWatch, description: 'The field watch.' } }, 400, 404),
      },
    },
    async (req) => {
      const c = await store.companies.get(principalOf(req).userId, req.params.companyId);
      if (!c) throw notFound('company', req.params.companyId);
      const [d, recentFields, events] = await Promise.all([
        store.companyStats.dashboard(c.companyId),
        store.companyStats.recentFields(c.companyId, 10),
        store.companyEvents.recent(c.companyId, 20),
      ]);
      return {
        companyId: c.companyId,
        fields: {
          total: d.fields.total,
          enabled: d.fields.enabled,
          withActiveBoundary: d.fields.withActiveBoundary,
          withoutBoundary: d.fields.total - d.fields.withActiveBoundary,
          withPlans: d.fields.withPlans,
          withoutPlans: d.fields.awaitingPlan,
        },
        boundaries: d.boundaries,
        pathPlans: { total: d.pathPlans.total, active: d.pathPlans.active },
        area: d.area,
        recentFields: recentFields.map((f) => ({ ...f, updatedAt: iso(f.updatedAt) })),
        recentActivity: events.map(eventBody),
      };
    },
  );
}
