/**
 * The company's cost settings (fuelPrice, labourRate, interestRate; see
 * SETTING_DEFINITIONS in api/routes/settings.ts) as the base of the cost
 * inputs of every plan a job makes: a machine's own inputs come first, the
 * company's settings next, the documented defaults of the cost model last
 * (core/costs/machinery-cost.ts costDefaults).
 */
import type { MachineCostInputs } from '../core/costs/machinery-cost.ts';
import type { Database } from '../store/database.ts';
import { createSettingsRepository } from '../store/repositories/settings.ts';
import type { JobPlanRequest } from './plan-item.ts';

export const COMPANY_COST_SETTINGS = ['fuelPrice', 'labourRate', 'interestRate'] as const;

/** The company's cost settings that are set (numbers only). */
export async function companyCostInputs(
  db: Database,
  companyId: string,
): Promise<Partial<MachineCostInputs>> {
  const values = await createSettingsRepository(db).companyValues(companyId, COMPANY_COST_SETTINGS);
  const out: Partial<MachineCostInputs> = {};
  for (const name of COMPANY_COST_SETTINGS) {
    const v = values[name];
    if (typeof v === 'number' && Number.isFinite(v)) out[name] = v;
  }
  return out;
}

/** The request with the company's cost settings under its machine's own cost inputs. */
export function withCompanyCosts(request: JobPlanRequest, base: Partial<MachineCostInputs>): JobPlanRequest {
  if (!request.equipment || Object.keys(base).length === 0) return request;
  return { ...request, equipment: { ...request.equipment, cost: { ...base, ...request.equipment.cost } } };
}
