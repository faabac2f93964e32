/**
 * The companies a user can access, as a table, and a company's units:
 *   POST /api/companies/table                  a page of companies with their counts; sort, search, role filter
 *   POST /api/companies/list-summary           totals over the companies that match
 *   POST /api/companies/{companyId}/uom        set the company's display units; answers the display factors
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import { COMPANY_SORTS, type CompanyTableQuery } from '../../store/repositories/company-stats.ts';
import { createSettingsRepository } from '../../store/repositories/settings.ts';
import { DISPLAY_UNITS, unitSystemOf } from '../units.ts';
import {
  answers,
  CompanyRoleSchema,
  idParams,
  iso,
  optionalBody,
  principalOf,
  Timestamp,
  Uuid,
} from './common.ts';

const CompanyFilter = {
  search: Type.Optional(
    Type.String({ maxLength: 200, description: 'Case-insensitive fragment of the name.' }),
  ),
  roles: Type.Optional(
    Type.Array(CompanyRoleSchema, {
      maxItems: 3,
      uniqueItems: true,
      description: 'Only companies where you have one of these roles.',
    }),
  ),
};

const CompanyTableRequest = Type.Object(
  {
    ...CompanyFilter,
    sort: Type.Optional(
      Type.Object(
        {
          field: Type.Union(
            COMPANY_SORTS.map((s) => Type.Literal(s)),
            { description: 'Column to sort by.' },
          ),
          direction: Type.Optional(
            Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: "Default 'asc'." }),
          ),
        },
        { additionalProperties: false, description: 'Default: name ascending.' },
      ),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Default 0.' })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 50, at most 1000.' }),
    ),
  },
  { additionalProperties: false, $id: 'CompanyTableRequest', title: 'CompanyTableRequest' },
);

const CompanyTableRow = Type.Object(
  {
    companyId: Uuid('The company.'),
    name: Type.String(),
    role: CompanyRoleSchema,
    partnerCompanyId: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    users: Type.Integer({ description: 'Users with access.' }),
    fields: Type.Integer(),
    boundaries: Type.Integer({ description: 'Active boundaries (one per field at most).' }),
    pathPlans: Type.Integer({ description: 'Plans not archived.' }),
    area: Type.Number({ description: 'Area of the active boundaries [m²].' }),
  },
  { $id: 'CompanyTableRow', title: 'CompanyTableRow' },
);

const CompanyTable = Type.Object(
  {
    items: Type.Array(CompanyTableRow),
    total: Type.Integer({ description: 'Companies that match.' }),
    offset: Type.Integer(),
    limit: Type.Integer(),
  },
  { $id: 'CompanyTable', title: 'CompanyTable' },
);

const CompanyListSummaryRequest = Type.Object(CompanyFilter, {
  additionalProperties: false,
  $id: 'CompanyListSummaryRequest',
  title: 'CompanyListSummaryRequest',
});

const CompanyListSummary = Type.Object(
  {
    companies: Type.Integer(),
    byRole: Type.Object({ admin: Type.Integer(), editor: Type.Integer(), viewer: Type.Integer() }),
    fields: Type.Integer(),
    boundaries: Type.Integer({ description: 'Active boundaries.' }),
    pathPlans: Type.Integer({ description: 'Plans not archived.' }),
    area: Type.Number({ description: 'Area of the active boundaries [m²].' }),
  },
  { $id: 'CompanyListSummary', title: 'CompanyListSummary' },
);

const UnitSystemSchema = Type.Union([Type.Literal('metric'), Type.Literal('imperial')], {
  $id: 'UnitSystem',
  title: 'UnitSystem',
  description: "'metric' (km, m, ha, km/h, L) or 'imperial' (mi, ft, ac, mph, US gal).",
});

const DisplayUnit = Type.Object({
  unit: Type.String(),
  factor: Type.Number({ description: 'Shown value = API value × factor.' }),
});

export const CompanyUnits = Type.Object(
  {
    companyId: Uuid('The company.'),
    uom: UnitSystemSchema,
    display: Type.Object(
      {
        length: { ...DisplayUnit, description: 'From metres (distances).' },
        width: { ...DisplayUnit, description: 'From metres (widths).' },
        area: { ...DisplayUnit, description: 'From square metres.' },
        speed: { ...DisplayUnit, description: 'From m/s.' },
        volume: { ...DisplayUnit, description: 'From litres.' },
      },
      { description: 'How apps show API values (which stay SI) in the company’s units.' },
    ),
  },
  { $id: 'CompanyUnits', title: 'CompanyUnits' },
);

const UomRequest = Type.Object(
  { uom: UnitSystemSchema },
  { additionalProperties: false, $id: 'CompanyUomRequest', title: 'CompanyUomRequest' },
);

const filterOf = (b: { search?: string; roles?: Static<typeof CompanyRoleSchema>[] }) => ({
  search: b.search || undefined,
  roles: b.roles,
});

export const unitsBody = (companyId: string, stored: unknown) => {
  const uom = unitSystemOf(stored);
  return { companyId, uom, display: DISPLAY_UNITS[uom] };
};

export async function companyListRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const settings = createSettingsRepository(store.db);
  const tags = ['Companies'];

  r.post(
    '/api/companies/table',
    {
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'The companies you can access, as a table',
        description:
          'A page of companies with your role and their counts (users, fields, active boundaries, plans, area); sorted by any column, filtered by a name fragment and your roles.',
        body: CompanyTableRequest,
        response: answers({ 200: { schema: CompanyTable, description: 'A page.' } }, 400),
      },
    },
    async (req) => {
      const b = req.body;
      const q: CompanyTableQuery = {
        ...filterOf(b),
        sort: b.sort?.field ?? 'name',
        descending: b.sort?.direction === 'desc',
        offset: b.offset ?? 0,
        limit: b.limit ?? 50,
      };
      const page = await store.companyStats.table(principalOf(req).userId, q);
      return {
        items: page.items.map((c) => ({ ...c, createdAt: iso(c.createdAt), updatedAt: iso(c.updatedAt) })),
        total: page.total,
        offset: q.offset,
        limit: q.limit,
      };
    },
  );

  r.post(
    '/api/companies/list-summary',
    {
      preValidation: optionalBody,
      schema: {
        tags,
        summary: 'Totals over the companies you can access',
        description:
          'How many companies match (by your role), and their fields, active boundaries, plans and area together.',
        body: CompanyListSummaryRequest,
        response: answers({ 200: { schema: CompanyListSummary, description: 'The totals.' } }, 400),
      },
    },
    async (req) => store.companyStats.listSummary(principalOf(req).userId, filterOf(req.body)),
  );

  r.post(
    '/api/companies/:companyId/uom',
    {
      schema: {
        tags,
        summary: "Set a company's units",
        description:
          'Stores the company setting `units` (also readable through GET /api/companies/{companyId}/settings). Apps show values in these units; the API keeps speaking SI (metres, m², s, m/s, L), and the answer carries the factors to convert for display. Admins and editors.',
        params: idParams('companyId'),
        body: UomRequest,
        response: answers(
          { 200: { schema: CompanyUnits, description: 'The units and their display factors.' } },
          400,
          403,
          404,
        ),
      },
    },
    async (req) => {
      const { companyId } = req.params;
      await settings.put({ companyId }, 'units', req.body.uom);
      return unitsBody(companyId, req.body.uom);
    },
  );
}

/** The company's stored `units` setting (undefined when not set). */
export async function companyUnits(store: Store, userId: string, companyId: string): Promise<unknown> {
  const { items } = await createSettingsRepository(store.db).list(userId, { companyId }, { search: 'units' });
  return items.find((s) => s.name === 'units')?.value;
}
