/**
 * Equipment scenarios (spec 4.4): the same stored boundaries planned with
 * several machines, to compare what each costs per hectare, how long it
 * takes, what it burns and emits and how much of the field it runs on.
 *
 *   POST /api/equipment-scenarios/normalized                      a scenario set: 202 { jobId, status }
 *   GET  /api/equipment-scenarios/normalized/jobs/{jobId}         its job
 *   POST /api/equipment-scenarios                                 a set of stored machines (flat body): 202
 *   GET  /api/equipment-scenarios/jobs/{jobId}                    its job
 *   GET  /api/equipment-scenarios/{equipmentScenarioId}           the set: scenarios, totals, fields
 *   GET  /api/equipment-scenarios/{equipmentScenarioId}/csv       the comparison as CSV
 *   POST /api/equipment-scenarios/{equipmentScenarioId}/path-plans   the set's plans
 *   PUT  /api/equipment-scenarios-details/{id}/total-cost-of-ownership   new cost inputs, costs recomputed
 *   POST /api/equipment-scenarios/fields-summary                  what a set over boundaries would plan and cost in credits
 *   GET  /api/equipment-scenarios/enterprise-company              the company sets are made in, and its sets
 *   GET  /api/equipment-scenarios/is-paid                         whether the company can pay for scenario plans
 *
 * Every boundary is planned once with every scenario's machine by the job
 * system (jobs/scenario-item.ts); each plan is stored in the caller's
 * company and costs one credit, as in bulk guidance. Another company's sets,
 * scenarios, jobs and boundaries answer 404.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type Static, Type } from 'typebox';
import type { MachineCostInputs as CostInputs } from '../../core/costs/machinery-cost.ts';
import { measureBoundary } from '../../formats/field-complexity.ts';
import { storeBoundaryLoader } from '../../jobs/boundaries.ts';
import { JOB_PLAN_CREDIT_COST, type JobPlanRequest } from '../../jobs/plan-item.ts';
import type { JobSystem } from '../../jobs/runtime.ts';
import { readScenarioItemKey, type ScenarioJobRequest } from '../../jobs/scenario-item.ts';
import type { Store } from '../../store/db.ts';
import { createEquipmentRepository, type EquipmentRecord } from '../../store/repositories/equipment.ts';
import { createEquipmentScenariosRepository } from '../../store/repositories/equipment-scenarios.ts';
import { createHierarchyRepository } from '../../store/repositories/hierarchy.ts';
import { createJobsRepository } from '../../store/repositories/jobs.ts';
import { ApiError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { MachineCostInputs } from '../planning/schemas.ts';
import { answers, callerCompany, iso, notFound, principalOf, Uuid } from './common.ts';
import {
  ScenarioFiguresSchema,
  ScenarioSchema,
  ScenarioSetSchema,
  scenarioSetCsv,
  scenarioSetView,
} from './equipment-scenario-models.ts';
import { Accepted, checkJobRequest, JobRequest, MAX_BULK_BOUNDARIES } from './jobs.ts';

/** Machines one set may compare. */
export const MAX_SCENARIOS = 10;
/** Boundaries one set may plan (each with every machine). */
export const MAX_SCENARIO_BOUNDARIES = MAX_BULK_BOUNDARIES;

const SetName = Type.String({ minLength: 1, maxLength: 200 });
const BoundaryIds = Type.Array(Uuid('A stored boundary of the caller’s company.'), {
  minItems: 1,
  maxItems: MAX_SCENARIO_BOUNDARIES,
  description: `Boundaries to plan with every machine, 1..${MAX_SCENARIO_BOUNDARIES}; repeated ids are planned once. The set lists its fields in this order.`,
});

const Scenario = named(
  'EquipmentScenarioRequest',
  Type.Object(
    {
      ...JobRequest.properties,
      name: Type.String({ minLength: 1, maxLength: 200, description: 'The scenario’s name.' }),
      equipmentId: Type.Optional(
        Uuid(
          'A stored machine of the caller’s company to plan with (its widths, speeds, fuel use and cost inputs); give this or equipment.',
        ),
      ),
    },
    {
      additionalProperties: false,
      description:
        'One machine and how to plan with it: a direct planning request without its boundary (POST /api/path-plans/direct), with a name, and the machine given as `equipment` or as a stored `equipmentId` (one of the two).',
    },
  ),
);

const NormalizedBody = named(
  'NormalizedEquipmentScenarioRequest',
  Type.Object(
    {
      name: SetName,
      boundaryIds: BoundaryIds,
      scenarios: Type.Array(Scenario, {
        minItems: 1,
        maxItems: MAX_SCENARIOS,
        description: `The machines to compare, 1..${MAX_SCENARIOS}, in the order the set answers them.`,
      }),
    },
    { additionalProperties: false },
  ),
);

const FlatBody = named(
  'EquipmentScenarioRequestFlat',
  Type.Object(
    {
      name: SetName,
      boundaryIds: BoundaryIds,
      equipmentIds: Type.Array(Uuid('A stored machine of the caller’s company.'), {
        minItems: 1,
        maxItems: MAX_SCENARIOS,
        description: 'The stored machines to compare; each is a scenario named after the machine.',
      }),
      request: Type.Optional(
        Type.Omit(JobRequest, ['equipment', 'machine'], {
          additionalProperties: false,
          description: 'How to plan with every machine (headland passes, track type, routeOptions, ...).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const ScenarioJob = named(
  'EquipmentScenarioJob',
  Type.Object(
    {
      jobId: Type.String({ format: 'uuid' }),
      status: Type.Union(
        ['queued', 'running', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s)),
      ),
      progress: Type.Number({ minimum: 0, maximum: 1, description: 'Share of field plans with an outcome.' }),
      total: Type.Integer({ description: 'Field plans of the set: boundaries x scenarios.' }),
      equipmentScenarioId: Type.String({
        format: 'uuid',
        description:
          'GET /api/equipment-scenarios/{equipmentScenarioId} answers the set (also while planning).',
      }),
      errors: Type.Array(
        Type.Object({
          scenarioIndex: Type.Integer({ description: 'The scenario (0-based, request order).' }),
          boundaryId: Type.String({ format: 'uuid' }),
          errorCode: Type.String(),
          message: Type.String(),
        }),
        { description: 'One entry per field plan that failed; a failed field does not fail the set.' },
      ),
      createdAt: Type.String({ format: 'date-time' }),
      finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    },
    { description: 'An equipment scenario job. While queued or running the answer carries Retry-After: 5.' },
  ),
);

const FieldsSummary = named(
  'EquipmentScenarioFieldsSummary',
  Type.Object({
    fields: Type.Array(
      Type.Object({
        boundaryId: Type.String({ format: 'uuid' }),
        fieldId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
        name: Type.Union([Type.String(), Type.Null()]),
        areaHa: Type.Number(),
      }),
      { description: 'In request order (repeated ids once).' },
    ),
    fieldCount: Type.Integer(),
    totalAreaHa: Type.Number(),
    creditsPerScenario: Type.Integer({
      description: `Credits one scenario over these fields costs (${JOB_PLAN_CREDIT_COST} per field plan).`,
    }),
  }),
);

const ScenarioPlans = named(
  'EquipmentScenarioPathPlans',
  Type.Array(
    Type.Object({
      equipmentScenarioDetailsId: Type.String({ format: 'uuid' }),
      scenarioName: Type.String(),
      boundaryId: Type.String({ format: 'uuid' }),
      fieldId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
      pathPlanId: Type.String({ format: 'uuid' }),
      name: Type.Union([Type.String(), Type.Null()]),
      figures: ScenarioFiguresSchema,
    }),
    { description: 'Scenario by scenario, fields in request order; fields without a plan are left out.' },
  ),
);

const PaidStatus = named(
  'EquipmentScenarioPaidStatus',
  Type.Object({
    companyId: Type.String({ format: 'uuid' }),
    isPaid: Type.Boolean({
      description: 'Whether the company can pay for field plans now (unlimited, or credits left).',
    }),
    unlimited: Type.Boolean(),
    creditsAvailable: Type.Union([Type.Integer(), Type.Null()], { description: 'Null when unlimited.' }),
    creditsPerFieldPlan: Type.Integer(),
  }),
);

const EnterpriseCompany = named(
  'EquipmentScenarioEnterpriseCompany',
  Type.Object({
    companyId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    equipmentScenarios: Type.Array(
      Type.Object({
        equipmentScenarioId: Type.String({ format: 'uuid' }),
        name: Type.String(),
        jobId: Type.String({ format: 'uuid' }),
        normalized: Type.Boolean(),
        fieldCount: Type.Integer(),
        createdAt: Type.String({ format: 'date-time' }),
      }),
      { description: 'Its 100 newest sets, newest first.' },
    ),
  }),
);

const setParams = Type.Object(
  { equipmentScenarioId: Uuid('The scenario set.') },
  { additionalProperties: false },
);
const jobParams = Type.Object({ jobId: Uuid('The job id.') }, { additionalProperties: false });

/** A stored machine as the direct request's equipment (its cost inputs as stored). */
export function equipmentOfStored(e: EquipmentRecord): NonNullable<JobPlanRequest['equipment']> {
  return {
    swathWidth: e.swathWidth,
    trackWidths: e.trackWidths,
    tireWidths: e.tireWidths,
    ...(e.turningRadius ? { minTurningRadius: Math.max(0.5, e.turningRadius) } : {}),
    ...(e.workingSpeed ? { workingSpeed: e.workingSpeed } : {}),
    ...(e.turningSpeed ? { turningSpeed: e.turningSpeed } : {}),
    ...(e.tankCapacity ? { tankCapacity: e.tankCapacity } : {}),
    ...(e.fuelUse ? { fuelUseWorkingLph: e.fuelUse } : {}),
    ...(e.ptoPowerKw ? { ptoPowerKw: e.ptoPowerKw } : {}),
    ...(e.cost ? { cost: e.cost } : {}),
  } as NonNullable<JobPlanRequest['equipment']>;
}

type ScenarioBody = Static<typeof Scenario>;

export async function equipmentScenarioRoutes(
  app: FastifyInstance,
  opts: { store: Store; jobs: JobSystem },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const scenarios = createEquipmentScenariosRepository(store.db);
  const jobsRepo = createJobsRepository(store.db);
  const hierarchy = createHierarchyRepository(store.db);
  const equipment = createEquipmentRepository(store.db);
  const loadBoundary = storeBoundaryLoader(store);
  const tags = ['Equipment scenarios'];

  /** Every boundary one of the company's (404 naming the first that is not). */
  const checkBoundaries = async (companyId: string, ids: readonly string[]) => {
    const unique = [...new Set(ids)];
    const owned = new Set(await hierarchy.boundaryIdsOf(companyId, unique));
    const missing = unique.find((id) => !owned.has(id));
    if (missing) throw notFound('boundary', missing);
    return unique;
  };

  /** A stored machine of the company (404 otherwise). */
  const storedMachine = async (userId: string, companyId: string, id: string) => {
    const e = await equipment.get(userId, id);
    if (!e || e.companyId !== companyId) throw notFound('equipment', id);
    return e;
  };

  const enqueue = async (
    reply: FastifyReply,
    input: {
      companyId: string;
      userId: string;
      name: string;
      boundaryIds: string[];
      normalized: boolean;
      scenarios: { name: string; equipmentId: string | null; request: JobPlanRequest }[];
    },
    pollPath: string,
  ) => {
    const equipmentScenarioId = scenarios.newId();
    const details = input.scenarios.map((s) => ({ ...s, id: scenarios.newId() }));
    const request: ScenarioJobRequest = {
      equipmentScenarioId,
      boundaryIds: input.boundaryIds,
      scenarios: details.map((d) => ({ detailsId: d.id, request: d.request })),
    };
    const { jobId } = await opts.jobs.enqueueScenarios({
      companyId: input.companyId,
      userId: input.userId,
      request,
      record: (tx, jobId, planned) =>
        createEquipmentScenariosRepository(tx).insert({
          id: equipmentScenarioId,
          companyId: input.companyId,
          createdBy: input.userId,
          name: input.name,
          jobId,
          normalized: input.normalized,
          boundaryIds: input.boundaryIds,
          details: details.map((d, i) => ({ ...d, request: planned.scenarios[i]?.request ?? d.request })),
        }),
    });
    reply.code(202).header('location', `${pollPath}/${jobId}`);
    return { jobId, status: 'queued' as const };
  };

  const accepted = (summary: string, description: string, body: object) => ({
    schema: {
      tags,
      summary,
      description,
      body,
      response: answers(
        { 202: { schema: Accepted, description: 'The job is queued.' } },
        400,
        403,
        404,
        413,
        415,
        422,
      ),
    },
  });
  const COMMON =
    'Answers 202 with the job id before any planning (every boundary and stored machine must be the caller’s company’s: 404 otherwise; a bad planning request: 400 naming the member, an unsupported option 422). Each boundary is planned with each machine in a worker and stored as a plan of the company (1 credit per field plan, as in bulk guidance); a field that cannot be planned gets an entry in the job’s errors and the set goes on. Poll the job every 5 s; the set is GET /api/equipment-scenarios/{equipmentScenarioId}.';

  r.post(
    '/api/equipment-scenarios/normalized',
    accepted(
      'Compare machines over stored fields',
      `${COMMON} Each scenario is a direct planning request without its boundary, with a name and the machine given as \`equipment\` or a stored \`equipmentId\`.`,
      NormalizedBody,
    ),
    async (req, reply) => {
      const p = principalOf(req);
      const body = req.body as Static<typeof NormalizedBody>;
      const companyId = await callerCompany(store, req);
      const list: { name: string; equipmentId: string | null; request: JobPlanRequest }[] = [];
      for (const [i, s] of body.scenarios.entries()) {
        const { name, equipmentId, ...rest } = s as ScenarioBody;
        if ((equipmentId === undefined) === (rest.equipment === undefined)) {
          throw validationError([
            {
              path: `/scenarios/${i}`,
              message: 'must give the machine as either equipment or equipmentId (exactly one)',
            },
          ]);
        }
        const request = { ...rest } as JobPlanRequest;
        if (equipmentId) {
          request.equipment = equipmentOfStored(await storedMachine(p.userId, companyId, equipmentId));
        }
        checkJobRequest(request, `/scenarios/${i}`);
        list.push({ name, equipmentId: equipmentId ?? null, request });
      }
      const boundaryIds = await checkBoundaries(companyId, body.boundaryIds);
      return enqueue(
        reply,
        { companyId, userId: p.userId, name: body.name, boundaryIds, normalized: true, scenarios: list },
        '/api/equipment-scenarios/normalized/jobs',
      );
    },
  );

  r.post(
    '/api/equipment-scenarios',
    accepted(
      'Compare stored machines over stored fields',
      `${COMMON} The flat form: the stored machines by id, one planning request for all; each scenario is named after its machine.`,
      FlatBody,
    ),
    async (req, reply) => {
      const p = principalOf(req);
      const body = req.body as Static<typeof FlatBody>;
      const companyId = await callerCompany(store, req);
      const list: { name: string; equipmentId: string | null; request: JobPlanRequest }[] = [];
      for (const id of body.equipmentIds) {
        const e = await storedMachine(p.userId, companyId, id);
        const request = { ...(body.request ?? {}), equipment: equipmentOfStored(e) } as JobPlanRequest;
        checkJobRequest(request, '/request');
        list.push({ name: e.name, equipmentId: e.id, request });
      }
      const boundaryIds = await checkBoundaries(companyId, body.boundaryIds);
      return enqueue(
        reply,
        { companyId, userId: p.userId, name: body.name, boundaryIds, normalized: false, scenarios: list },
        '/api/equipment-scenarios/jobs',
      );
    },
  );

  for (const [path, summary] of [
    ['/api/equipment-scenarios/normalized/jobs/:jobId', 'An equipment scenario job'],
    ['/api/equipment-scenarios/jobs/:jobId', 'An equipment scenario job (flat form)'],
  ] as const) {
    r.get(
      path,
      {
        schema: {
          tags,
          summary,
          params: jobParams,
          response: answers({ 200: { schema: ScenarioJob, description: 'The job.' } }, 400, 404),
        },
      },
      async (req, reply) => {
        const p = principalOf(req);
        const v = await jobsRepo.view(p.userId, req.params.jobId, ['equipment-scenario']);
        if (!v) throw notFound('job', req.params.jobId);
        if (v.status === 'queued' || v.status === 'running') reply.header('retry-after', '5');
        return {
          jobId: v.id,
          status: v.status,
          progress: v.total === 0 ? 1 : Math.min(1, v.done / v.total),
          total: v.total,
          equipmentScenarioId: (v.request as ScenarioJobRequest).equipmentScenarioId,
          errors: v.errors.flatMap((e) => {
            const key = readScenarioItemKey(e.boundaryId);
            return key ? [{ ...key, errorCode: e.errorCode, message: e.message }] : [];
          }),
          createdAt: iso(v.createdAt),
          finishedAt: v.finishedAt ? iso(v.finishedAt) : null,
        };
      },
    );
  }

  const loadSet = async (userId: string, id: string) => {
    const set = await scenarios.get(userId, id);
    if (!set) throw notFound('equipment scenario', id);
    return scenarioSetView(store, set);
  };

  r.get(
    '/api/equipment-scenarios/enterprise-company',
    {
      schema: {
        tags,
        summary: 'The company scenario sets are made in, and its sets',
        description:
          'The company the caller’s credentials act for (new sets and their plans belong to it), with its newest scenario sets.',
        response: answers({ 200: { schema: EnterpriseCompany, description: 'The company.' } }, 403),
      },
    },
    async (req) => {
      const companyId = await callerCompany(store, req);
      const [company, sets] = await Promise.all([
        store.companies.get(principalOf(req).userId, companyId),
        scenarios.list(companyId),
      ]);
      return {
        companyId,
        name: company?.name ?? '',
        equipmentScenarios: sets.map((s) => ({
          equipmentScenarioId: s.id,
          name: s.name,
          jobId: s.jobId,
          normalized: s.normalized,
          fieldCount: s.boundaryIds.length,
          createdAt: iso(s.createdAt),
        })),
      };
    },
  );

  r.get(
    '/api/equipment-scenarios/is-paid',
    {
      schema: {
        tags,
        summary: 'Whether the company can pay for scenario plans',
        description: `Each field plan of a scenario costs ${JOB_PLAN_CREDIT_COST} credit, as in bulk guidance; a plan the company cannot pay for is an INSUFFICIENT_CREDITS error of its field.`,
        response: answers({ 200: { schema: PaidStatus, description: 'The company’s credits.' } }, 403),
      },
    },
    async (req) => {
      const companyId = await callerCompany(store, req);
      const c = await store.credits.get(companyId);
      return {
        companyId,
        isPaid: c.unlimited || c.credits >= JOB_PLAN_CREDIT_COST,
        unlimited: c.unlimited,
        creditsAvailable: c.unlimited ? null : c.credits,
        creditsPerFieldPlan: JOB_PLAN_CREDIT_COST,
      };
    },
  );

  r.post(
    '/api/equipment-scenarios/fields-summary',
    {
      schema: {
        tags,
        summary: 'The fields a scenario set over boundaries would plan',
        description:
          'Names and areas of the boundaries, their total, and the credits one scenario over them costs. Another company’s or unknown boundaries: 404.',
        body: named(
          'EquipmentScenarioFieldsSummaryRequest',
          Type.Object({ boundaryIds: BoundaryIds }, { additionalProperties: false }),
        ),
        response: answers({ 200: { schema: FieldsSummary, description: 'The fields.' } }, 400, 403, 404, 415),
      },
    },
    async (req) => {
      const companyId = await callerCompany(store, req);
      const ids = await checkBoundaries(companyId, req.body.boundaryIds);
      const fields = [];
      for (const id of ids) {
        const b = await loadBoundary(companyId, id);
        if (!b) throw notFound('boundary', id);
        fields.push({
          boundaryId: id,
          fieldId: b.fieldId,
          name: b.name,
          areaHa: measureBoundary(b.geometry).areaM2 / 10_000,
        });
      }
      return {
        fields,
        fieldCount: fields.length,
        totalAreaHa: fields.reduce((s, f) => s + f.areaHa, 0),
        creditsPerScenario: fields.length * JOB_PLAN_CREDIT_COST,
      };
    },
  );

  r.get(
    '/api/equipment-scenarios/:equipmentScenarioId',
    {
      schema: {
        tags,
        summary: 'A scenario set: its scenarios with totals and fields',
        description:
          'Scenarios in request order, each with its totals (the sums of its field plans’ figures) and its fields in the order of the request’s boundaryIds. Answers while the job runs (fields not yet planned have no figures).',
        params: setParams,
        response: answers({ 200: { schema: ScenarioSetSchema, description: 'The set.' } }, 400, 404),
      },
    },
    async (req) => loadSet(principalOf(req).userId, req.params.equipmentScenarioId),
  );

  r.get(
    '/api/equipment-scenarios/:equipmentScenarioId/csv',
    {
      schema: {
        tags,
        summary: 'A scenario set’s comparison as CSV',
        description:
          'RFC 4180 CSV for a spreadsheet: a line of totals per scenario, then a line per scenario and field (areaHa, coveredAreaHa, workingHours, totalHours, fuelLitres, ghgKgCo2e, costTotal, costPerHa, traffickedAreaHa, traffickedAreaPercent, error).',
        params: setParams,
        response: answers(
          { 200: { schema: Type.String(), description: 'The CSV.', mediaType: 'text/csv' } },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const v = await loadSet(principalOf(req).userId, req.params.equipmentScenarioId);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="equipment-scenario-${v.equipmentScenarioId}.csv"`,
        )
        .send(scenarioSetCsv(v));
    },
  );

  r.post(
    '/api/equipment-scenarios/:equipmentScenarioId/path-plans',
    {
      schema: {
        tags,
        summary: 'The plans of a scenario set',
        description:
          'Each field plan with its scenario and figures; optionally of one scenario. GET /api/path-plans-normalized/{pathPlanId} answers a plan.',
        params: setParams,
        body: Type.Optional(
          Type.Object(
            {
              equipmentScenarioDetailsId: Type.Optional(Uuid('Only the plans of this scenario of the set.')),
            },
            { additionalProperties: false },
          ),
        ),
        response: answers({ 200: { schema: ScenarioPlans, description: 'The plans.' } }, 400, 404, 415),
      },
    },
    async (req) => {
      const v = await loadSet(principalOf(req).userId, req.params.equipmentScenarioId);
      const only = req.body?.equipmentScenarioDetailsId;
      if (only && !v.scenarios.some((s) => s.equipmentScenarioDetailsId === only))
        throw notFound('equipment scenario details', only);
      return v.scenarios
        .filter((s) => !only || s.equipmentScenarioDetailsId === only)
        .flatMap((s) =>
          s.fields.flatMap((f) =>
            f.figures && f.pathPlanIds[0]
              ? [
                  {
                    equipmentScenarioDetailsId: s.equipmentScenarioDetailsId,
                    scenarioName: s.name,
                    boundaryId: f.boundaryId,
                    fieldId: f.fieldId,
                    pathPlanId: f.pathPlanIds[0],
                    name: f.name,
                    figures: f.figures,
                  },
                ]
              : [],
          ),
        );
    },
  );

  r.put(
    '/api/equipment-scenarios-details/:equipmentScenarioDetailsId/total-cost-of-ownership',
    {
      schema: {
        tags,
        summary: 'Change a scenario’s cost inputs; its costs are recomputed without planning again',
        description:
          'The body replaces the scenario’s cost inputs (members left out take the machine’s own, else the defaults of MachineCostInputs). The plans’ machine hours and fuel are priced again with the ASABE cost model; answers the scenario with its new totals and field figures. No credits are used.',
        params: Type.Object(
          { equipmentScenarioDetailsId: Uuid('A scenario of a set.') },
          { additionalProperties: false },
        ),
        body: MachineCostInputs,
        response: answers({ 200: { schema: ScenarioSchema, description: 'The scenario.' } }, 400, 404, 415),
      },
    },
    async (req) => {
      const p = principalOf(req);
      const id = req.params.equipmentScenarioDetailsId;
      const d = await scenarios.setCostInputs(p.userId, id, req.body as Partial<CostInputs>);
      if (!d) throw notFound('equipment scenario details', id);
      const v = await loadSet(p.userId, d.scenarioId);
      const s = v.scenarios.find((x) => x.equipmentScenarioDetailsId === id);
      if (!s) throw new ApiError(404, 'NOT_FOUND', `The scenario ${id} is no longer in its set.`);
      return s;
    },
  );
}
