/**
 * The ASABE machinery cost model (ASAE EP496.3 "Agricultural Machinery
 * Management" with the data of ASABE D497.7), as the extension services'
 * machinery cost calculators use it (Iowa State Ag Decision Maker A3-29
 * "Estimating Farm Machinery Costs", 2015; Mississippi State P3543 "Farm
 * Machinery Cost Calculations"; farmdoc "Machinery Cost Estimates: Tractors"):
 *
 * - remaining value after n years with h hours a year, as a share of the list
 *   price: RV = (C1 - C2 n^0.5 - C3 h^0.5)^2 (D497.7 table 3, by class);
 * - depreciation per year = (purchase price - remaining value) / years owned;
 * - interest on the average investment = (purchase + remaining value) / 2 x rate;
 * - taxes, housing and insurance = 2 % of the purchase price a year
 *   (EP496.3: taxes 1 %, housing 0.75 %, insurance 0.25 %);
 * - repair and maintenance from accumulated use: accumulated repairs =
 *   list price x RF1 (hours / 1000)^RF2 (D497.7 table 1), per hour the
 *   increase over the hours owned;
 * - lubrication 15 % of the fuel cost; labour 1.1 hours per machine hour
 *   (A3-29: labour time exceeds field time by 10 to 20 %).
 *
 * Prices carry no currency: give them all in one. The defaults are US
 * dollars from the publications above.
 */

/** Machine classes of the model: tractors (2-wheel drive or mechanical front drive) and 4-wheel drive tractors. */
export type MachineCostClass = 'tractor' | 'tractor4wd';

/** D497.7 table 3 remaining-value coefficients of tractors by rated PTO power. */
const TRACTOR_RV = {
  small: { c1: 0.981, c2: 0.093, c3: 0.0058 }, // < 60 kW
  medium: { c1: 0.942, c2: 0.1, c3: 0.0008 }, // 60..112 kW
  large: { c1: 0.976, c2: 0.119, c3: 0.0019 }, // > 112 kW
} as const;

/** D497.7 table 1 repair factors. */
const REPAIR_FACTORS: Record<MachineCostClass, { rf1: number; rf2: number }> = {
  tractor: { rf1: 0.007, rf2: 2.0 },
  tractor4wd: { rf1: 0.003, rf2: 2.0 },
};

/** Lubrication cost as a share of the fuel cost. */
export const LUBRICATION_SHARE = 0.15;
/** Labour hours per machine hour. */
export const LABOUR_FACTOR = 1.1;
/** Taxes, housing and insurance a year, share of the purchase price (EP496.3). */
export const DEFAULT_THI_RATE = 0.02;
/**
 * List price per kW of rated PTO power, from the A3-29 example ($150,000 for
 * a 180 hp tractor): a planning default.
 */
export const DEFAULT_LIST_PRICE_PER_KW = 150_000 / (180 * 0.745699872);
/** Purchase price as a share of the list price (farmdoc: 85 %). */
export const DEFAULT_PURCHASE_SHARE = 0.85;

/** The inputs of the model, every one optional in a request (see costDefaults). */
export interface MachineCostInputs {
  machineClass: MachineCostClass;
  /** Rated PTO power [kW] (chooses the remaining-value coefficients). */
  ptoPowerKw: number;
  /** List price of a comparable new machine. */
  listPrice: number;
  /** Price paid. */
  purchasePrice: number;
  /** Age when bought [years]. */
  ageAtPurchaseYears: number;
  /** Years owned. */
  ownershipYears: number;
  /** Hours used a year. */
  annualHours: number;
  /** Interest rate a year [share, 0.08 = 8 %]. */
  interestRate: number;
  /** Taxes, housing and insurance a year [share of the purchase price]. */
  thiRate: number;
  /** Fuel price per litre. */
  fuelPrice: number;
  /** Labour cost per hour. */
  labourRate: number;
}

/** Defaults (Iowa State A3-29 example: 15 years, 400 h a year, 8 %; fuel $3.40/gal = $0.898/l; labour $20/h). */
export function costDefaults(ptoPowerKw: number, given: Partial<MachineCostInputs> = {}): MachineCostInputs {
  const listPrice = given.listPrice ?? Math.round(DEFAULT_LIST_PRICE_PER_KW * ptoPowerKw);
  return {
    machineClass: given.machineClass ?? 'tractor',
    ptoPowerKw: given.ptoPowerKw ?? ptoPowerKw,
    listPrice,
    purchasePrice: given.purchasePrice ?? Math.round(DEFAULT_PURCHASE_SHARE * listPrice),
    ageAtPurchaseYears: given.ageAtPurchaseYears ?? 0,
    ownershipYears: given.ownershipYears ?? 15,
    annualHours: given.annualHours ?? 400,
    interestRate: given.interestRate ?? 0.08,
    thiRate: given.thiRate ?? DEFAULT_THI_RATE,
    fuelPrice: given.fuelPrice ?? 3.4 / 3.785411784,
    labourRate: given.labourRate ?? 20,
  };
}

/** Remaining value as a share of the list price after `years` with `annualHours` a year (D497.7). */
export function remainingValueShare(
  c: Pick<MachineCostInputs, 'ptoPowerKw'>,
  years: number,
  annualHours: number,
): number {
  const k = c.ptoPowerKw < 60 ? TRACTOR_RV.small : c.ptoPowerKw <= 112 ? TRACTOR_RV.medium : TRACTOR_RV.large;
  const base = k.c1 - k.c2 * Math.sqrt(years) - k.c3 * Math.sqrt(annualHours);
  return base > 0 ? base * base : 0;
}

/** Accumulated repair and maintenance cost after `hours` of use (D497.7). */
export function accumulatedRepairs(
  c: Pick<MachineCostInputs, 'machineClass' | 'listPrice'>,
  hours: number,
): number {
  const { rf1, rf2 } = REPAIR_FACTORS[c.machineClass];
  return c.listPrice * rf1 * (Math.max(0, hours) / 1000) ** rf2;
}

export interface HourlyCost {
  /** Remaining value at the end of ownership. */
  salvageValue: number;
  depreciation: number;
  interest: number;
  taxesHousingInsurance: number;
  repair: number;
  /** depreciation + interest + taxes, housing, insurance + repair, per hour. */
  overhead: number;
  labour: number;
}

/** The costs per machine hour that do not depend on the fuel burnt. */
export function hourlyCost(c: Readonly<MachineCostInputs>): HourlyCost {
  const yearsEnd = c.ageAtPurchaseYears + c.ownershipYears;
  const salvageValue = c.listPrice * remainingValueShare(c, yearsEnd, c.annualHours);
  const hoursOwned = c.ownershipYears * c.annualHours;
  const perHour = (perYear: number) => perYear / c.annualHours;
  const depreciation = perHour((c.purchasePrice - salvageValue) / c.ownershipYears);
  const interest = perHour(((c.purchasePrice + salvageValue) / 2) * c.interestRate);
  const taxesHousingInsurance = perHour(c.purchasePrice * c.thiRate);
  const startHours = c.ageAtPurchaseYears * c.annualHours;
  const repair =
    (accumulatedRepairs(c, startHours + hoursOwned) - accumulatedRepairs(c, startHours)) / hoursOwned;
  return {
    salvageValue,
    depreciation,
    interest,
    taxesHousingInsurance,
    repair,
    overhead: depreciation + interest + taxesHousingInsurance + repair,
    labour: LABOUR_FACTOR * c.labourRate,
  };
}

/** Cost of fuel and lubrication for `litres` of fuel. */
export function fuelAndLubricationCost(c: Pick<MachineCostInputs, 'fuelPrice'>, litres: number): number {
  return litres * c.fuelPrice * (1 + LUBRICATION_SHARE);
}

/** Cost of an operation of `hours` machine hours burning `litres` of fuel. */
export function operationCost(c: Readonly<MachineCostInputs>, hours: number, litres: number): number {
  const h = hourlyCost(c);
  return (h.overhead + h.labour) * hours + fuelAndLubricationCost(c, litres);
}
