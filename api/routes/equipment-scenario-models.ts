/**
 * Equipment scenario sets as the API shows them: the named schemas, the
 * set's view (its scenarios in request order, each with its totals and its
 * fields in request order, each field with its figures and plans) and the
 * comparison as CSV. Shared by the scenario routes and the anonymous share
 * read.
 */
import { Type } from 'typebox';
import type { MachineCostInputs as CostInputs } from '../../core/costs/machinery-cost.ts';
import { csvCell } from '../../formats/plan-csv.ts';
import {
  fieldFigures,
  type ScenarioFigures,
  type ScenarioMachine,
  sumFigures,
} from '../../formats/scenario-figures.ts';
import type { JobPlanRequest } from '../../jobs/plan-item.ts';
import { readScenarioItemKey } from '../../jobs/scenario-item.ts';
import type { Store } from '../../store/db.ts';
import type { ScenarioDetailsRecord, ScenarioSet } from '../../store/repositories/equipment-scenarios.ts';
import { createJobsRepository, type JobRecord } from '../../store/repositories/jobs.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { named } from '../openapi/components.ts';
import { Equipment, MachineCostInputs } from '../planning/schemas.ts';
import { iso } from './common.ts';

const Num = (description: string) => Type.Number({ description });

export const ScenarioFiguresSchema = named(
  'EquipmentScenarioFigures',
  Type.Object(
    {
      areaHa: Num('Field area less holes [ha].'),
      coveredAreaHa: Num('Area covered by the plans [ha].'),
      workingHours: Num('Time working [h].'),
      totalHours: Num('Time working, turning and on connectors [h].'),
      fuelLitres: Num('Fuel burnt [l].'),
      ghgKgCo2e: Num('Greenhouse gas from that fuel [kg CO2e].'),
      costTotal: Num(
        'Machinery cost (ASABE EP496.3 cost model: ownership, repairs, fuel and lubrication, labour), in the currency of the cost inputs.',
      ),
      costPerHa: Num('costTotal per covered hectare.'),
      traffickedAreaHa: Num('Ground run on by the wheels [ha].'),
      traffickedAreaPercent: Num('traffickedAreaHa / areaHa [%].'),
    },
    { description: 'Figures of a field plan, or their sums over a scenario.' },
  ),
);

const ScenarioField = named(
  'EquipmentScenarioField',
  Type.Object({
    boundaryId: Type.String({ format: 'uuid' }),
    fieldId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()], { description: 'The plan’s name (the field’s).' }),
    pathPlanIds: Type.Array(Type.String({ format: 'uuid' }), {
      description: 'The plan of this field with this scenario’s machine (empty while planning or on error).',
    }),
    figures: Type.Union([ScenarioFiguresSchema, Type.Null()], {
      description: 'Null until planned, or when it could not be planned.',
    }),
    error: Type.Union([Type.Object({ errorCode: Type.String(), message: Type.String() }), Type.Null()]),
  }),
);

export const ScenarioSchema = named(
  'EquipmentScenarioDetails',
  Type.Object({
    equipmentScenarioDetailsId: Type.String({
      format: 'uuid',
      description: 'PUT /api/equipment-scenarios-details/{id}/total-cost-of-ownership changes its costs.',
    }),
    name: Type.String(),
    equipmentId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'The stored machine it was made from, if any.',
    }),
    equipment: Equipment,
    costInputs: Type.Union([MachineCostInputs, Type.Null()], {
      description:
        'Cost inputs set by total-cost-of-ownership (they replace equipment.cost); null if never set.',
    }),
    totals: ScenarioFiguresSchema,
    fields: Type.Array(ScenarioField, { description: 'In the order of the request’s boundaryIds.' }),
  }),
);

export const ScenarioSetSchema = named(
  'NormalizedEquipmentScenario',
  Type.Object({
    equipmentScenarioId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    companyId: Type.String({ format: 'uuid' }),
    jobId: Type.String({ format: 'uuid' }),
    status: Type.Union(
      ['queued', 'running', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s)),
      {
        description: 'Of its job.',
      },
    ),
    boundaryIds: Type.Array(Type.String({ format: 'uuid' })),
    createdAt: Type.String({ format: 'date-time' }),
    scenarios: Type.Array(ScenarioSchema, { description: 'In request order.' }),
  }),
);

export type ScenarioSetView = {
  equipmentScenarioId: string;
  name: string;
  companyId: string;
  jobId: string;
  status: JobRecord['status'];
  boundaryIds: string[];
  createdAt: string;
  scenarios: {
    equipmentScenarioDetailsId: string;
    name: string;
    equipmentId: string | null;
    equipment: object;
    costInputs: Partial<CostInputs> | null;
    totals: ScenarioFigures;
    fields: {
      boundaryId: string;
      fieldId: string | null;
      name: string | null;
      pathPlanIds: string[];
      figures: ScenarioFigures | null;
      error: { errorCode: string; message: string } | null;
    }[];
  }[];
};

const equipmentOf = (d: ScenarioDetailsRecord) =>
  ((d.request as JobPlanRequest).equipment ?? { swathWidth: 0 }) as ScenarioMachine;

/** The set with its figures (the caller checked access to it). */
export async function scenarioSetView(store: Store, set: ScenarioSet): Promise<ScenarioSetView> {
  const jobs = createJobsRepository(store.db);
  const [job, items, plans] = await Promise.all([
    jobs.byId(set.jobId),
    jobs.items(set.jobId),
    createPathPlansRepository(store.db).byJobs(
      set.companyId,
      set.details.map((d) => d.id),
    ),
  ]);
  const planById = new Map(plans.map((p) => [p.id, p]));
  const errors = new Map<string, { errorCode: string; message: string }>();
  const planOf = new Map<string, string>();
  for (const i of items) {
    const key = readScenarioItemKey(i.itemKey);
    if (!key) continue;
    if (i.pathPlanId) planOf.set(i.itemKey, i.pathPlanId);
    else if (i.errorCode) errors.set(i.itemKey, { errorCode: i.errorCode, message: i.message ?? '' });
  }
  return {
    equipmentScenarioId: set.id,
    name: set.name,
    companyId: set.companyId,
    jobId: set.jobId,
    status: job?.status ?? 'failed',
    boundaryIds: set.boundaryIds,
    createdAt: iso(set.createdAt),
    scenarios: set.details.map((d) => {
      const machine = equipmentOf(d);
      const fields = set.boundaryIds.map((boundaryId) => {
        const key = `${d.position}:${boundaryId}`;
        const plan = planById.get(planOf.get(key) ?? '');
        return {
          boundaryId,
          fieldId: plan?.fieldId ?? null,
          name: plan?.name ?? null,
          pathPlanIds: plan ? [plan.id] : [],
          figures: plan
            ? fieldFigures(
                plan.model.stats,
                plan.traffickedArea,
                machine,
                d.costInputs as Partial<CostInputs> | null,
              )
            : null,
          error: errors.get(key) ?? null,
        };
      });
      return {
        equipmentScenarioDetailsId: d.id,
        name: d.name,
        equipmentId: d.equipmentId,
        equipment: machine,
        costInputs: d.costInputs as Partial<CostInputs> | null,
        totals: sumFigures(fields.flatMap((f) => (f.figures ? [f.figures] : []))),
        fields,
      };
    }),
  };
}

const FIGURE_COLUMNS = [
  'areaHa',
  'coveredAreaHa',
  'workingHours',
  'totalHours',
  'fuelLitres',
  'ghgKgCo2e',
  'costTotal',
  'costPerHa',
  'traffickedAreaHa',
  'traffickedAreaPercent',
] as const satisfies readonly (keyof ScenarioFigures)[];

/**
 * The comparison as CSV (RFC 4180, CRLF; cells as formats/plan-csv.ts
 * writes them): a line of totals per scenario (boundaryId empty), then a
 * line per scenario and field.
 */
export function scenarioSetCsv(v: ScenarioSetView): string {
  const lines = [['scenario', 'boundaryId', 'fieldName', 'pathPlanId', ...FIGURE_COLUMNS, 'error'].join(',')];
  const row = (cells: unknown[]) => lines.push(cells.map(csvCell).join(','));
  for (const s of v.scenarios) row([s.name, '', 'total', '', ...FIGURE_COLUMNS.map((c) => s.totals[c]), '']);
  for (const s of v.scenarios) {
    for (const f of s.fields) {
      row([
        s.name,
        f.boundaryId,
        f.name,
        f.pathPlanIds[0] ?? '',
        ...FIGURE_COLUMNS.map((c) => f.figures?.[c] ?? ''),
        f.error?.errorCode ?? '',
      ]);
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
