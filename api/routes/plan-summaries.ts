/**
 * Plan summaries (spec 4.4, "Path plans"): sums of a company's stored plans.
 *   POST /api/path-plans/seasonal-summary-result                per crop season, grower and farm
 *   POST /api/companies/{companyId}/dashboard-path-plan-summary  totals, per season, grower and farm
 * A plan's crop season is its `cropSeason` descriptor, else its field's,
 * else the year it was made.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { addPlan, emptyFigures, type SummaryFigures, seasonalSummary } from '../../formats/plan-summary.ts';
import type { Store } from '../../store/db.ts';
import {
  CROP_SEASON_DESCRIPTOR,
  createPlanSummariesRepository,
} from '../../store/repositories/plan-summaries.ts';
import { named } from '../openapi/components.ts';
import { answers, callerCompany, idParams, notFound, principalOf, requireCompany, Uuid } from './common.ts';

const Figures = named(
  'PlanSummaryFigures',
  Type.Object({
    planCount: Type.Integer(),
    area: Type.Number({ description: 'Field area [m²].' }),
    coveredArea: Type.Number({ description: '[m²]' }),
    workingTime: Type.Number({ description: '[s]' }),
    totalTime: Type.Number({ description: '[s]' }),
    hours: Type.Number({ description: 'totalTime in hours.' }),
    workingDistance: Type.Number({ description: 'Tracks and headland passes [m].' }),
    totalDistance: Type.Number({ description: '[m]' }),
    fuelLitres: Type.Number({ description: '[l]' }),
    ghgKgCo2e: Type.Number({ description: 'Greenhouse gas from the fuel [kg CO2e].' }),
  }),
);
const Nullable = (d: string) => Type.Union([Type.String(), Type.Null()], { description: d });
const FarmSummary = Type.Object({
  farmId: Nullable('null: plans without a field.'),
  farmName: Nullable(''),
  totals: Figures,
});
const GrowerSummary = Type.Object({
  growerId: Nullable('null: plans without a field.'),
  growerName: Nullable(''),
  totals: Figures,
  farms: Type.Array(FarmSummary),
});

const filterMembers = {
  seasons: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
      maxItems: 100,
      description: 'Only these crop seasons.',
    }),
  ),
  growerIds: Type.Optional(Type.Array(Uuid('A grower of the company.'), { maxItems: 1000 })),
  farmIds: Type.Optional(Type.Array(Uuid('A farm of the company.'), { maxItems: 1000 })),
  fieldIds: Type.Optional(Type.Array(Uuid('A field of the company.'), { maxItems: 1000 })),
  includeArchived: Type.Optional(Type.Boolean({ description: 'Count archived plans too (default false).' })),
};

const SeasonalRequest = named(
  'SeasonalSummaryRequest',
  Type.Object(
    {
      companyId: Type.Optional(Uuid('The company (default: the one the credentials act for).')),
      ...filterMembers,
    },
    { additionalProperties: false },
  ),
);
const SeasonalResult = named(
  'SeasonalSummaryResult',
  Type.Object({
    companyId: Type.String({ format: 'uuid' }),
    seasons: Type.Array(
      Type.Object({ season: Type.String(), totals: Figures, growers: Type.Array(GrowerSummary) }),
      { description: 'Newest season first; growers and farms by name.' },
    ),
  }),
);
const DashboardRequest = named(
  'DashboardPlanSummaryRequest',
  Type.Object(filterMembers, { additionalProperties: false }),
);
const DashboardResult = named(
  'DashboardPlanSummary',
  Type.Object({
    companyId: Type.String({ format: 'uuid' }),
    totals: Figures,
    bySeason: Type.Array(Type.Object({ season: Type.String(), totals: Figures })),
    byGrower: Type.Array(Type.Object({ growerId: Nullable(''), growerName: Nullable(''), totals: Figures })),
    byFarm: Type.Array(
      Type.Object({ farmId: Nullable(''), farmName: Nullable(''), growerId: Nullable(''), totals: Figures }),
    ),
  }),
);

type Filter = {
  seasons?: string[];
  growerIds?: string[];
  farmIds?: string[];
  fieldIds?: string[];
  includeArchived?: boolean;
};

export async function planSummaryRoutes(appBase: FastifyInstance, opts: { store: Store }): Promise<void> {
  const app = appBase.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const repo = createPlanSummariesRepository(store.db);
  const tags = ['Path plans'];
  const seasonText = `A plan's crop season is its \`${CROP_SEASON_DESCRIPTOR}\` descriptor, else its field's, else the year it was made.`;

  /** Ids of another company in the filters answer 404, as anywhere. */
  const placed = async (req: FastifyRequest, companyId: string, f: Filter) => {
    const userId = principalOf(req).userId;
    for (const id of f.growerIds ?? []) {
      const g = await store.hierarchy.getGrower(userId, id);
      if (!g || g.companyId !== companyId) throw notFound('grower', id);
    }
    for (const id of f.farmIds ?? []) {
      const g = await store.hierarchy.getFarm(userId, id);
      if (!g || g.companyId !== companyId) throw notFound('farm', id);
    }
    for (const id of f.fieldIds ?? []) {
      const g = await store.hierarchy.getField(userId, id);
      if (!g || g.companyId !== companyId) throw notFound('field', id);
    }
    const plans = await repo.plans(companyId, f);
    return f.seasons?.length ? plans.filter((p) => f.seasons!.includes(p.season)) : plans;
  };

  app.post(
    '/api/path-plans/seasonal-summary-result',
    {
      schema: {
        tags,
        summary: 'Plan figures per crop season, grower and farm',
        description: `Areas, hours, distances, fuel and emissions of the company's stored plans (not archived unless asked), summed per crop season, grower and farm. ${seasonText}`,
        body: SeasonalRequest,
        response: answers({ 200: { schema: SeasonalResult, description: 'The summary.' } }, 400, 403, 404),
      },
    },
    async (req) => {
      const { companyId: asked, ...f } = req.body;
      const companyId = asked ?? (await callerCompany(store, req));
      if (asked) await requireCompany(store, req, asked);
      return { companyId, seasons: seasonalSummary(await placed(req, companyId, f)) };
    },
  );

  app.post(
    '/api/companies/:companyId/dashboard-path-plan-summary',
    {
      schema: {
        tags,
        summary: 'Dashboard summary of a company’s plans',
        description: `Totals of the company's stored plans (not archived unless asked) and the same per crop season, grower and farm. ${seasonText}`,
        params: idParams('companyId'),
        body: DashboardRequest,
        response: answers({ 200: { schema: DashboardResult, description: 'The summary.' } }, 400, 404),
      },
    },
    async (req) => {
      const companyId = req.params.companyId;
      await requireCompany(store, req, companyId);
      const plans = await placed(req, companyId, req.body ?? {});
      const totals = emptyFigures();
      const growers = new Map<
        string,
        { growerId: string | null; growerName: string | null; totals: SummaryFigures }
      >();
      const farms = new Map<
        string,
        { farmId: string | null; farmName: string | null; growerId: string | null; totals: SummaryFigures }
      >();
      for (const p of plans) {
        addPlan(totals, p.model);
        const g = growers.get(p.growerId ?? '') ?? {
          growerId: p.growerId,
          growerName: p.growerName,
          totals: emptyFigures(),
        };
        growers.set(p.growerId ?? '', g);
        addPlan(g.totals, p.model);
        const fm = farms.get(p.farmId ?? '') ?? {
          farmId: p.farmId,
          farmName: p.farmName,
          growerId: p.growerId,
          totals: emptyFigures(),
        };
        farms.set(p.farmId ?? '', fm);
        addPlan(fm.totals, p.model);
      }
      return {
        companyId,
        totals,
        bySeason: seasonalSummary(plans).map((s) => ({ season: s.season, totals: s.totals })),
        byGrower: [...growers.values()],
        byFarm: [...farms.values()],
      };
    },
  );
}
