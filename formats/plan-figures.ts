/**
 * The scalar figures of a plan that lists and summaries read without
 * loading the model (stored beside it).
 */
import type { PathPlanNormalizedModel } from './plan-model.ts';

export interface PlanFigures {
  /** Field area less holes [m^2]. */
  area: number;
  numberOfTracks: number;
  /** [m^2] */
  traffickedArea: number;
  /** [s] */
  totalTime: number;
}

/**
 * Width of ground the wheels run on [m]: per axle two tyre strips centred
 * at +-trackWidth/2, the strips of all axles merged (axles running in each
 * other's tracks count once). 0 when the equipment names no tyres.
 */
export function wheelFootprintWidth(trackWidths: readonly number[], tireWidths: readonly number[]): number {
  const strips: [number, number][] = [];
  tireWidths.forEach((tw, i) => {
    const half = (trackWidths[i] ?? trackWidths[trackWidths.length - 1] ?? 0) / 2;
    for (const c of half > 0 ? [-half, half] : [0]) strips.push([c - tw / 2, c + tw / 2]);
  });
  strips.sort((a, b) => a[0] - b[0]);
  let width = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [a, b] of strips) {
    if (b <= end) continue;
    width += b - Math.max(a, end);
    end = b;
  }
  return width;
}

/**
 * The scalar figures lists and summaries read, taken from the model. The
 * trafficked area is the plan's: the union of its wheel tracks in the field
 * (stats.traffickedArea). Plans made before it carry an estimate instead:
 * total distance x the footprint width (repeated passes over the same
 * ground count each time); 0 when the equipment names no tyre widths.
 */
export function figuresOf(model: PathPlanNormalizedModel): PlanFigures {
  const e = model.equipment;
  return {
    area: model.area ?? 0,
    numberOfTracks: model.numberOfTracks ?? 0,
    traffickedArea:
      model.stats?.traffickedArea ??
      (model.stats?.totalDistance ?? 0) * wheelFootprintWidth(e?.trackWidths ?? [], e?.tireWidths ?? []),
    totalTime: model.stats?.totalTime ?? 0,
  };
}
