/**
 * Fuel use and greenhouse-gas emissions of a machine.
 *
 * Fuel use per hour of a diesel tractor from its rated PTO power, after
 * ASABE D497.7 (Agricultural Machinery Management Data, 2011) as used by
 * extension services:
 * - the year-round average for budgets (ASAE EP496.3 6.3.2.1; Iowa State
 *   Ag Decision Maker A3-29 "Estimating Farm Machinery Costs"):
 *   Qavg = 0.223 l/kWh x Ppto (0.044 gal/hp-h);
 * - the partial-load equation of D497.7 (Grisso, Kocher and Vaughan 2004,
 *   "Predicting Tractor Fuel Consumption", Applied Engineering in Agriculture
 *   20(5); Virginia Cooperative Extension 442-073):
 *   Q = (0.22 X + 0.096) l/kWh x Ppto, X = share of rated PTO power used.
 * Working defaults to the year-round average; not working (turns and travel
 * with the implement raised) to the partial-load equation at X = 0.2;
 * standing (stop, shift and start at a reversing cusp) to it at X = 0, but
 * never above the non-working rate.
 *
 * Emissions: 2.68 kg CO2 per litre of diesel, from the IPCC 2006 Guidelines
 * (Vol. 2, ch. 1, tables 1.2 and 1.4: gas/diesel oil 74,100 kg CO2/TJ, net
 * calorific value 43.0 TJ/Gg) at a density of 0.84 kg/l:
 * 74.1 x 43.0e-3 x 0.84 = 2.676 kg/l.
 */

/** Litres per US gallon. */
export const L_PER_GAL = 3.785411784;
/** Kilowatts per horsepower. */
export const KW_PER_HP = 0.745699872;
/** Year-round average diesel use per kW of rated PTO power [l/kWh]: 0.044 gal/hp-h (ASAE EP496.3). */
export const AVERAGE_FUEL_PER_KWH = (0.044 * L_PER_GAL) / KW_PER_HP;
/** Load share of rated PTO power assumed while turning or travelling. */
export const NON_WORKING_LOAD = 0.2;
/** Diesel emission factor [kg CO2e/l] (IPCC 2006, see above). */
export const DIESEL_KG_CO2E_PER_L = 2.68;

/** Diesel use at a share X of rated PTO power [l/h] (ASABE D497.7 partial-load equation). */
export function partialLoadFuelLph(ptoPowerKw: number, load: number): number {
  return (0.22 * load + 0.096) * ptoPowerKw;
}

/**
 * Rated PTO power assumed for a working width [kW] when none is given:
 * 25 kW x sqrt(width [m]), within 20..300 kW (a 3 m drill on 43 kW, a 24 m
 * sprayer on 122 kW, a 36 m one on 150 kW). A planning default, not a
 * figure of the standard: give the machine's own power where it is known.
 */
export function defaultPtoPowerKw(swathWidth: number): number {
  return Math.min(300, Math.max(20, 25 * Math.sqrt(Math.max(0, swathWidth))));
}

/** What a machine says about its fuel (any member may be absent). */
export interface FuelInputs {
  swathWidth: number;
  /** Rated PTO power [kW]. */
  ptoPowerKw?: number;
  /** Fuel use while working [l/h]. */
  fuelUseWorkingLph?: number;
  /** Fuel use while turning and travelling [l/h]. */
  fuelUseNonWorkingLph?: number;
  /** Fuel use standing at a reversing cusp [l/h]. */
  fuelUseIdleLph?: number;
  /** Emissions per litre of fuel [kg CO2e/l]. */
  fuelEmissionFactorKgPerL?: number;
}

export interface FuelRates {
  ptoPowerKw: number;
  workingLph: number;
  nonWorkingLph: number;
  idleLph: number;
  kgCo2ePerL: number;
}

/** The machine's fuel rates, its own where given, else the defaults above. */
export function fuelRates(m: Readonly<FuelInputs>): FuelRates {
  const ptoPowerKw = m.ptoPowerKw ?? defaultPtoPowerKw(m.swathWidth);
  const nonWorkingLph = m.fuelUseNonWorkingLph ?? partialLoadFuelLph(ptoPowerKw, NON_WORKING_LOAD);
  return {
    ptoPowerKw,
    workingLph: m.fuelUseWorkingLph ?? AVERAGE_FUEL_PER_KWH * ptoPowerKw,
    nonWorkingLph,
    idleLph: m.fuelUseIdleLph ?? Math.min(nonWorkingLph, partialLoadFuelLph(ptoPowerKw, 0)),
    kgCo2ePerL: m.fuelEmissionFactorKgPerL ?? DIESEL_KG_CO2E_PER_L,
  };
}

/** Fuel burnt [l] in the given working and non-working times [s]. */
export function fuelLitres(rates: FuelRates, workingTime: number, nonWorkingTime: number): number {
  return (rates.workingLph * workingTime + rates.nonWorkingLph * nonWorkingTime) / 3600;
}
