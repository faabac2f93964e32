/**
 * The figures of an equipment scenario: per field from its plan's
 * statistics, per scenario their sums. Costs come from the plan unless the
 * scenario's cost inputs were changed since (PUT
 * /api/equipment-scenarios-details/{id}/total-cost-of-ownership): then the
 * ASABE cost model (core/costs/machinery-cost.ts) prices the plan's machine
 * hours and fuel again with the new inputs, without planning again.
 */
import { fuelRates } from '../core/costs/fuel.ts';
import { costDefaults, type MachineCostInputs, operationCost } from '../core/costs/machinery-cost.ts';
import { perHectare } from '../core/costs/plan-costs.ts';
import type { PlanStats } from '../core/types/index.ts';

export interface ScenarioFigures {
  /** Field area less holes [ha]. */
  areaHa: number;
  /** Area covered by the plan [ha] (costPerHa divides by it). */
  coveredAreaHa: number;
  workingHours: number;
  /** Working and not working (turns, connectors) [h]. */
  totalHours: number;
  fuelLitres: number;
  ghgKgCo2e: number;
  costTotal: number;
  costPerHa: number;
  /** Ground run on by the wheels [ha]. */
  traffickedAreaHa: number;
  /** traffickedAreaHa / areaHa [%]. */
  traffickedAreaPercent: number;
}

/** The machine of a scenario as its request gives it (the direct request's equipment). */
export interface ScenarioMachine {
  swathWidth: number;
  ptoPowerKw?: number;
  fuelUseWorkingLph?: number;
  fuelUseNonWorkingLph?: number;
  fuelEmissionFactorKgPerL?: number;
  cost?: Partial<MachineCostInputs>;
}

const HA = 10_000;

/**
 * A field's figures from its plan's statistics and trafficked area [m^2].
 * With `costInputs`, the cost is the plan's hours and fuel priced with the
 * machine's cost inputs overridden by them.
 */
export function fieldFigures(
  stats: PlanStats,
  traffickedArea: number,
  machine: Readonly<ScenarioMachine>,
  costInputs?: Partial<MachineCostInputs> | null,
): ScenarioFigures {
  const fuel = stats.fuelLitres ?? 0;
  const totalHours = stats.totalTime / 3600;
  const costTotal = costInputs
    ? operationCost(
        costDefaults(fuelRates(machine).ptoPowerKw, { ...machine.cost, ...costInputs }),
        totalHours,
        fuel,
      )
    : (stats.costTotal ?? 0);
  return {
    areaHa: stats.fieldArea / HA,
    coveredAreaHa: stats.coveredArea / HA,
    workingHours: stats.workingTime / 3600,
    totalHours,
    fuelLitres: fuel,
    ghgKgCo2e: stats.ghgKgCo2e ?? 0,
    costTotal,
    costPerHa: costInputs ? perHectare(costTotal, stats.coveredArea) : (stats.costPerHa ?? 0),
    traffickedAreaHa: traffickedArea / HA,
    traffickedAreaPercent: stats.fieldArea > 0 ? (100 * traffickedArea) / stats.fieldArea : 0,
  };
}

/** The sums of fields' figures, the shares recomputed from the sums. */
export function sumFigures(list: readonly ScenarioFigures[]): ScenarioFigures {
  const t: ScenarioFigures = {
    areaHa: 0,
    coveredAreaHa: 0,
    workingHours: 0,
    totalHours: 0,
    fuelLitres: 0,
    ghgKgCo2e: 0,
    costTotal: 0,
    costPerHa: 0,
    traffickedAreaHa: 0,
    traffickedAreaPercent: 0,
  };
  for (const f of list) {
    t.areaHa += f.areaHa;
    t.coveredAreaHa += f.coveredAreaHa;
    t.workingHours += f.workingHours;
    t.totalHours += f.totalHours;
    t.fuelLitres += f.fuelLitres;
    t.ghgKgCo2e += f.ghgKgCo2e;
    t.costTotal += f.costTotal;
    t.traffickedAreaHa += f.traffickedAreaHa;
  }
  t.costPerHa = t.coveredAreaHa > 0 ? t.costTotal / t.coveredAreaHa : 0;
  t.traffickedAreaPercent = t.areaHa > 0 ? (100 * t.traffickedAreaHa) / t.areaHa : 0;
  return t;
}
