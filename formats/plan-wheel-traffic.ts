/**
 * Wheel traffic of a stored plan (its normalized model): the wheel tracks of
 * the active groups' routes by passes, as GeoJSON, and the plan's statistics
 * brought up to date for another machine's track and tyre widths without
 * planning again (core/metrics/wheel-traffic.ts does the geometry in a
 * local metric frame of the field).
 */
import { createMetricFrame } from '../core/geometry/projection.ts';
import { sumStats } from '../core/metrics/compute-stats.ts';
import { traffickedArea, type WheelTrafficLayer, wheelTraffic } from '../core/metrics/wheel-traffic.ts';
import type { MetricFrame, PathPart, Polygon } from '../core/types/index.ts';
import {
  type GeometryGroupModel,
  multiPolygonGeometry,
  type PathPlanNormalizedModel,
  type PathPlanZoneModel,
  roundStats,
} from './plan-model.ts';

export interface WheelTrafficFeature {
  type: 'Feature';
  geometry: ReturnType<typeof multiPolygonGeometry>;
  properties: { passes: 1 | 2 | 3; area: number };
}

export interface PlanWheelTraffic {
  type: 'FeatureCollection';
  features: WheelTrafficFeature[];
  /** The union of all features [m^2]. */
  traffickedArea: number;
  /** traffickedArea / field area [%]. */
  traffickedAreaPercent: number;
  trackWidths: number[];
  tireWidths: number[];
}

function frameOf(model: PathPlanNormalizedModel): MetricFrame {
  const first = model.zones[0]?.zoneBoundary.coordinates[0]?.[0] ?? [0, 0];
  return createMetricFrame(first[0] as number, first[1] as number);
}

function zoneField(frame: MetricFrame, zone: PathPlanZoneModel): Polygon[] {
  const [outer, ...holes] = zone.zoneBoundary.coordinates.map((ring) =>
    ring.map(([lon, lat]) => frame.toMetric(lon as number, lat as number)),
  );
  return outer ? [{ outer, holes }] : [];
}

function groupParts(frame: MetricFrame, g: GeometryGroupModel): PathPart[] {
  return g.geometryParts.flatMap((p) =>
    p.sequence === undefined
      ? []
      : [
          {
            type: p.geometryPartType,
            points: p.geometry.coordinates.map(([lon, lat]) => frame.toMetric(lon as number, lat as number)),
            working: p.working,
            sequence: p.sequence,
          } as PathPart,
        ],
  );
}

const activeGroup = (z: PathPlanZoneModel) =>
  z.geometryGroups.find((g) => g.geometryGroupId === z.activeGeometryGroupId);

const widthsOf = (
  model: PathPlanNormalizedModel,
  given?: { trackWidths?: number[]; tireWidths?: number[] },
) => ({
  trackWidths: given?.trackWidths ?? model.equipment.trackWidths ?? [],
  tireWidths: given?.tireWidths ?? model.equipment.tireWidths ?? [],
});

/** The wheel tracks of the plan's active routes by passes (1, 2, 3 or more), with the plan's widths or the given ones. */
export function planWheelTraffic(
  model: PathPlanNormalizedModel,
  given?: { trackWidths?: number[]; tireWidths?: number[] },
): PlanWheelTraffic {
  const { trackWidths, tireWidths } = widthsOf(model, given);
  const frame = frameOf(model);
  const byPasses = new Map<1 | 2 | 3, { polygons: Polygon[]; area: number }>();
  let total = 0;
  let fieldArea = 0;
  for (const zone of model.zones) {
    fieldArea += zone.stats.fieldArea;
    const g = activeGroup(zone);
    if (!g) continue;
    const t = wheelTraffic(groupParts(frame, g), trackWidths, tireWidths, zoneField(frame, zone));
    total += t.traffickedArea;
    for (const l of t.layers as WheelTrafficLayer[]) {
      const acc = byPasses.get(l.passes) ?? { polygons: [], area: 0 };
      acc.polygons.push(...l.polygons);
      acc.area += l.area;
      byPasses.set(l.passes, acc);
    }
  }
  return {
    type: 'FeatureCollection',
    features: ([1, 2, 3] as const).flatMap((passes) => {
      const l = byPasses.get(passes);
      return l
        ? [
            {
              type: 'Feature' as const,
              geometry: multiPolygonGeometry(frame, l.polygons),
              properties: { passes, area: Math.round(l.area * 1000) / 1000 },
            },
          ]
        : [];
    }),
    traffickedArea: total,
    traffickedAreaPercent: fieldArea > 0 ? (100 * total) / fieldArea : 0,
    trackWidths,
    tireWidths,
  };
}

/**
 * The model with the given track and tyre widths in its equipment and the
 * trafficked area of every group, zone and the plan measured with them
 * (the route is kept as it is). Mutates and returns `model`.
 */
export function withEquipmentSnapshot(
  model: PathPlanNormalizedModel,
  given?: { trackWidths?: number[]; tireWidths?: number[] },
): PathPlanNormalizedModel {
  const { trackWidths, tireWidths } = widthsOf(model, given);
  const frame = frameOf(model);
  model.equipment = { ...model.equipment, trackWidths, tireWidths };
  for (const zone of model.zones) {
    const field = zoneField(frame, zone);
    for (const g of zone.geometryGroups) {
      const area = tireWidths.length
        ? traffickedArea(groupParts(frame, g), trackWidths, tireWidths, field)
        : 0;
      g.stats = roundStats({
        ...g.stats,
        traffickedArea: area,
        traffickedAreaPercent: g.stats.fieldArea > 0 ? (100 * area) / g.stats.fieldArea : 0,
      });
    }
    const g = activeGroup(zone);
    if (g) zone.stats = g.stats;
  }
  model.stats = roundStats(sumStats(model.zones.map((z) => z.stats)));
  return model;
}
