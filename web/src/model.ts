/**
 * A stored plan (the normalized model of spec 2.4) as the feature collection
 * the map draws (the shape of formats/plan-geojson.ts), for one chosen
 * geometry group per zone (default: the active ones).
 */
import type { PlanFeature, PlanFeatureCollection } from '../../formats/plan-geojson.ts';
import { labelPoint } from '../../formats/plan-geojson.ts';
import type {
  GeometryGroupModel,
  PathPlanNormalizedModel,
  PathPlanZoneModel,
} from '../../formats/plan-model.ts';

export function activeGroup(z: PathPlanZoneModel): GeometryGroupModel {
  return z.geometryGroups.find((g) => g.geometryGroupId === z.activeGeometryGroupId) ?? z.geometryGroups[0];
}

export function modelToFeatures(
  m: PathPlanNormalizedModel,
  pick: (z: PathPlanZoneModel) => GeometryGroupModel = activeGroup,
): PlanFeatureCollection {
  const features: PlanFeature[] = [];
  const add = (id: string, geometry: PlanFeature['geometry'], properties: PlanFeature['properties']) =>
    features.push({ type: 'Feature', id, geometry, properties });
  add(`${m.pathPlanId}-field`, m.boundary, { featureType: 'zonesBoundary', zoneCount: m.zones.length });
  for (const z of m.zones) {
    const zone = { zoneId: z.zoneId, zoneIndex: z.zoneIndex };
    const g = pick(z);
    add(z.zoneId, z.zoneBoundary, { featureType: 'zoneBoundary', ...zone });
    for (const p of g?.geometryParts ?? []) {
      const props: PlanFeature['properties'] = {
        featureType: 'geometryPart',
        geometryPartId: p.geometryPartId,
        geometryPartType: p.geometryPartType,
        ...zone,
        geometryGroupId: g.geometryGroupId,
        working: p.working,
        length: p.length,
      };
      if (p.sequence !== undefined) props.sequence = p.sequence;
      if (p.reverse) props.reverse = true;
      if (p.trackDetail) {
        props.trackIndex = p.trackDetail.trackIndex;
        props.bearing = p.trackDetail.bearing;
      }
      if (p.headlandDetail) {
        props.passNumber = p.headlandDetail.passNumber;
        props.direction = p.headlandDetail.direction;
      }
      if (p.turnDetail) props.turnKind = p.turnDetail.turnKind;
      add(p.geometryPartId, p.geometry, props);
    }
    if (z.routeStartPoint && g === activeGroup(z))
      add(`${z.zoneId}-start`, z.routeStartPoint, { featureType: 'routeStartPoint', ...zone });
    if (z.routeEndPoint && g === activeGroup(z))
      add(`${z.zoneId}-end`, z.routeEndPoint, { featureType: 'routeEndPoint', ...zone });
    const [x, y] = centre(z);
    add(
      `${z.zoneId}-stats`,
      { type: 'Point', coordinates: [x, y] },
      {
        featureType: 'zoneStatistics',
        ...zone,
        ...(g?.stats ?? z.stats),
      },
    );
  }
  add(`${m.pathPlanId}-stats`, null, {
    featureType: 'pathPlanStatistics',
    pathPlanId: m.pathPlanId,
    pathPlanName: m.pathPlanName,
    ...m.stats,
  });
  return {
    type: 'FeatureCollection',
    properties: { pathPlanId: m.pathPlanId, pathPlanName: m.pathPlanName },
    features,
  };
}

/** A point inside the zone (lon/lat), where its figures belong. */
function centre(z: PathPlanZoneModel): [number, number] {
  const [outer, ...holes] = z.zoneBoundary.coordinates.map((r) => r.map(([x, y]) => ({ x, y })));
  if (!outer?.length) return [0, 0];
  const p = labelPoint({ outer, holes } as never);
  return [p.x, p.y];
}
