/**
 * Routing a stored plan's zone again: the direct request that plans the
 * zone with the group's own track bearing, the plan's equipment and the
 * group's headland passes under new route options, and the merge of the
 * newly planned zone into the stored model (the group keeps its id, its
 * parts are renumbered; the zone's and plan's statistics follow the active
 * group). Shared by the synchronous routing endpoints and the route jobs.
 */
import { sumStats } from '../core/metrics/compute-stats.ts';
import type { DirectRequestBody } from './direct-request.ts';
import {
  type GeometryGroupModel,
  type PathPlanNormalizedModel,
  type PathPlanZoneModel,
  roundStats,
} from './plan-model.ts';

/** The highest pass number of a type in a group (0 when it has none). */
export function maxPass(
  g: GeometryGroupModel,
  type: 'ExteriorHeadlandPass' | 'InteriorHeadlandPass',
): number {
  let n = 0;
  for (const p of g.geometryParts) {
    if (p.geometryPartType === type && p.headlandDetail) n = Math.max(n, p.headlandDetail.passNumber);
  }
  return n;
}

/** True when the group has guidance tracks to route (a headlands-only group has none). */
export function hasTracks(g: GeometryGroupModel): boolean {
  return g.geometryParts.some((p) => p.geometryPartType === 'GuidanceTrack');
}

/**
 * Why a zone's route cannot be made again on its own, or null: the zones of
 * a decomposed field part (its cells and its headland) are driven as one
 * route, each continuing where the previous ended, so one of them re-routed
 * alone would break the route at its ends. The field is planned again instead.
 */
export function whyNotReroutableAlone(zone: PathPlanZoneModel): string | null {
  return zone.decomposition
    ? `Zone ${zone.zoneId} is one of the zones a decomposed field part was split into (${zone.decomposition.role}); they are driven as one route and cannot be routed again one by one. Plan the field again with the new routeOptions (POST /api/path-plans/direct), or with useDecomposition false for one zone per part that can be re-routed.`
    : null;
}

/** Why a group cannot be routed again, or null. */
export function whyNotRoutable(zoneId: string, g: GeometryGroupModel): string | null {
  return hasTracks(g)
    ? null
    : `Geometry group ${g.geometryGroupId} of zone ${zoneId} has no guidance tracks to route (a headlands-only plan); make a path plan inside its headlands with POST /api/guidance/pathplan.`;
}

/** The plan's equipment as a direct request names it. */
export function requestEquipment(
  model: PathPlanNormalizedModel,
): NonNullable<DirectRequestBody['equipment']> {
  const e = model.equipment;
  return {
    swathWidth: e.swathWidth,
    minTurningRadius: e.minTurningRadius,
    workingSpeed: e.workingSpeed,
    turningSpeed: e.turningSpeed,
    trackWidths: e.trackWidths,
    tireWidths: e.tireWidths,
  };
}

/** The direct request that plans `zone` again with `group`'s guidance under `routeOptions`. */
export function zoneRouteRequest(
  model: PathPlanNormalizedModel,
  zone: PathPlanZoneModel,
  group: GeometryGroupModel,
  routeOptions: DirectRequestBody['routeOptions'] | undefined,
): DirectRequestBody {
  return {
    boundary: { type: 'Feature', properties: { name: model.pathPlanName }, geometry: zone.zoneBoundary },
    operationType: model.operationType,
    equipment: requestEquipment(model),
    exteriorHeadlandPasses: maxPass(group, 'ExteriorHeadlandPass'),
    interiorHeadlandPasses: maxPass(group, 'InteriorHeadlandPass'),
    trackBearing: group.trackBearing,
    ...(routeOptions ? { routeOptions } : {}),
  };
}

/**
 * Puts the routed zone of `made` (a plan of the one zone) in place of
 * `group` of `zone` in `model` (changed in place). Returns the updated
 * group, or null when `made` holds no zone.
 */
export function mergeRoutedZone(
  model: PathPlanNormalizedModel,
  zone: PathPlanZoneModel,
  group: GeometryGroupModel,
  made: PathPlanNormalizedModel,
): GeometryGroupModel | null {
  const newZone = made.zones[0];
  const newGroup = newZone?.geometryGroups.find((g) => g.isActive) ?? newZone?.geometryGroups[0];
  if (!newZone || !newGroup) return null;
  const updated: GeometryGroupModel = {
    ...newGroup,
    geometryGroupId: group.geometryGroupId,
    isActive: group.isActive,
    geometryParts: newGroup.geometryParts.map((p, i) => ({
      ...p,
      geometryPartId: `${group.geometryGroupId}-p${i}`,
    })),
  };
  zone.geometryGroups = zone.geometryGroups.map((g) =>
    g.geometryGroupId === group.geometryGroupId ? updated : g,
  );
  if (group.isActive) {
    zone.stats = updated.stats;
    zone.routeFailures = newZone.routeFailures;
    if (newZone.routeStartPoint) zone.routeStartPoint = newZone.routeStartPoint;
    if (newZone.routeEndPoint) zone.routeEndPoint = newZone.routeEndPoint;
    if (newZone.optimizer) zone.optimizer = newZone.optimizer;
    else delete zone.optimizer;
    model.stats = roundStats(sumStats(model.zones.map((z) => z.stats)));
    model.numberOfTracks = model.stats.trackCount;
  }
  return updated;
}
