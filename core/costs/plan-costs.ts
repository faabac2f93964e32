/** Fuel, emissions and machinery cost of a planned route from its times and covered area. */
import type { Machine } from '../types/index.ts';
import { fuelLitres, fuelRates } from './fuel.ts';
import { costDefaults, operationCost } from './machinery-cost.ts';

export interface PlanCosts {
  fuelLitres: number;
  ghgKgCo2e: number;
  costTotal: number;
  costPerHa: number;
}

/** Cost per hectare covered (0 when nothing is covered). */
export function perHectare(costTotal: number, coveredArea: number): number {
  return coveredArea > 0 ? costTotal / (coveredArea / 10_000) : 0;
}

/** Times in seconds, area in m^2. */
export function planCosts(
  machine: Readonly<Machine>,
  workingTime: number,
  nonWorkingTime: number,
  coveredArea: number,
): PlanCosts {
  const rates = fuelRates(machine);
  const fuel = fuelLitres(rates, workingTime, nonWorkingTime);
  const inputs = costDefaults(rates.ptoPowerKw, machine.cost);
  const costTotal = operationCost(inputs, (workingTime + nonWorkingTime) / 3600, fuel);
  return {
    fuelLitres: fuel,
    ghgKgCo2e: fuel * rates.kgCo2ePerL,
    costTotal,
    costPerHa: perHectare(costTotal, coveredArea),
  };
}
