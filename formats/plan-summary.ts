/**
 * Sums of stored plans' figures (spec: seasonal summary, dashboard plan
 * summary): areas, hours, distances, fuel and emissions, per crop season,
 * grower and farm. Figures are the plans' own statistics (their active
 * geometry groups), in SI units plus hours.
 */
import type { PathPlanNormalizedModel } from './plan-model.ts';

export interface SummaryFigures {
  planCount: number;
  /** Field area [m^2]. */
  area: number;
  coveredArea: number;
  /** [s] */
  workingTime: number;
  totalTime: number;
  /** totalTime in hours. */
  hours: number;
  /** [m] */
  workingDistance: number;
  totalDistance: number;
  /** [l] */
  fuelLitres: number;
  /** [kg CO2e] */
  ghgKgCo2e: number;
}

export function emptyFigures(): SummaryFigures {
  return {
    planCount: 0,
    area: 0,
    coveredArea: 0,
    workingTime: 0,
    totalTime: 0,
    hours: 0,
    workingDistance: 0,
    totalDistance: 0,
    fuelLitres: 0,
    ghgKgCo2e: 0,
  };
}

/** Adds a plan's figures to `into`. */
export function addPlan(into: SummaryFigures, model: PathPlanNormalizedModel): SummaryFigures {
  const s = model.stats;
  into.planCount++;
  into.area += model.area ?? s.fieldArea ?? 0;
  into.coveredArea += s.coveredArea ?? 0;
  into.workingTime += s.workingTime ?? 0;
  into.totalTime += s.totalTime ?? 0;
  into.hours = into.totalTime / 3600;
  into.workingDistance += (s.workingDistance ?? 0) + (s.headlandDistance ?? 0);
  into.totalDistance += s.totalDistance ?? 0;
  into.fuelLitres += s.fuelLitres ?? 0;
  into.ghgKgCo2e += s.ghgKgCo2e ?? 0;
  return into;
}

export interface PlacedPlan {
  season: string;
  growerId: string | null;
  growerName: string | null;
  farmId: string | null;
  farmName: string | null;
  model: PathPlanNormalizedModel;
}

export interface FarmSummary {
  farmId: string | null;
  farmName: string | null;
  totals: SummaryFigures;
}

export interface GrowerSummary {
  growerId: string | null;
  growerName: string | null;
  totals: SummaryFigures;
  farms: FarmSummary[];
}

export interface SeasonSummary {
  season: string;
  totals: SummaryFigures;
  growers: GrowerSummary[];
}

/** Per season (newest first), per grower and farm (by name; plans without a field last, ids null). */
export function seasonalSummary(plans: readonly PlacedPlan[]): SeasonSummary[] {
  const seasons = new Map<
    string,
    { totals: SummaryFigures; growers: Map<string, GrowerSummary & { byFarm: Map<string, FarmSummary> }> }
  >();
  for (const p of plans) {
    let s = seasons.get(p.season);
    if (!s) {
      s = { totals: emptyFigures(), growers: new Map() };
      seasons.set(p.season, s);
    }
    addPlan(s.totals, p.model);
    const gk = p.growerId ?? '';
    let g = s.growers.get(gk);
    if (!g) {
      g = {
        growerId: p.growerId,
        growerName: p.growerName,
        totals: emptyFigures(),
        farms: [],
        byFarm: new Map(),
      };
      s.growers.set(gk, g);
    }
    addPlan(g.totals, p.model);
    const fk = p.farmId ?? '';
    let f = g.byFarm.get(fk);
    if (!f) {
      f = { farmId: p.farmId, farmName: p.farmName, totals: emptyFigures() };
      g.byFarm.set(fk, f);
    }
    addPlan(f.totals, p.model);
  }
  const byName =
    <T>(name: (x: T) => string | null) =>
    (a: T, b: T) => {
      const x = name(a);
      const y = name(b);
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      return x.localeCompare(y);
    };
  return [...seasons.entries()]
    .sort(([a], [b]) => b.localeCompare(a))
    .map(([season, s]) => ({
      season,
      totals: s.totals,
      growers: [...s.growers.values()]
        .map(({ byFarm, ...g }) => ({
          ...g,
          farms: [...byFarm.values()].sort(byName((f: FarmSummary) => f.farmName)),
        }))
        .sort(byName((g: GrowerSummary) => g.growerName)),
    }));
}
