/**
 * GeoJSON export: one RFC 7946 FeatureCollection per plan (`<field>.geojson`)
 * with the feature types of the direct GeoJSON response (spec 2.5), built
 * from the normalized model's active geometry group of each zone:
 *
 *   zonesBoundary, zoneBoundary, abLine, geometryPart (guidance tracks and
 *   headland passes, then route parts in driving order), routeStartPoint,
 *   routeEndPoint, zoneStatistics (geometry null), pathPlanStatistics
 *
 * The collection's foreign member `properties` names the plan, the customer,
 * farm and field.
 */
import type { GeoJSONLineString, GeoJSONMultiPolygon, GeoJSONPoint, GeoJSONPolygon } from '../plan-model.ts';
import { activeGroup, hasLength, resolveNames, safeFileName, uniqueNamer } from './common.ts';
import type { ExportFile, ExportPlan } from './types.ts';

export interface ExportFeature {
  type: 'Feature';
  id: string;
  geometry: GeoJSONPoint | GeoJSONLineString | GeoJSONPolygon | GeoJSONMultiPolygon | null;
  properties: Record<string, unknown> & { featureType: string };
}

export interface ExportFeatureCollection {
  type: 'FeatureCollection';
  properties: {
    pathPlanId: string;
    pathPlanName: string;
    customerName: string;
    farmName: string;
    fieldName: string;
  };
  features: ExportFeature[];
}

/** One plan as a FeatureCollection (active groups only). */
export function planToGeoJSON(p: ExportPlan): ExportFeatureCollection {
  const { plan } = p;
  const names = resolveNames(p);
  const features: ExportFeature[] = [];
  const add = (id: string, geometry: ExportFeature['geometry'], properties: ExportFeature['properties']) =>
    features.push({ type: 'Feature', id, geometry, properties });
  add(`${plan.pathPlanId}-field`, plan.boundary, {
    featureType: 'zonesBoundary',
    pathPlanId: plan.pathPlanId,
    zoneCount: plan.zones.length,
    area: plan.area,
  });
  for (const z of plan.zones) {
    const zone = { zoneId: z.zoneId, zoneIndex: z.zoneIndex };
    add(z.zoneId, z.zoneBoundary, { featureType: 'zoneBoundary', ...zone, area: z.stats.fieldArea });
    const g = activeGroup(z);
    if (g) {
      if (hasLength(g.abLine.coordinates)) {
        add(`${g.geometryGroupId}-abLine`, g.abLine, {
          featureType: 'abLine',
          ...zone,
          geometryGroupId: g.geometryGroupId,
          trackBearing: g.trackBearing,
        });
      }
      const reference = g.geometryParts.filter((q) => q.sequence === undefined);
      const route = g.geometryParts
        .filter((q) => q.sequence !== undefined)
        .sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
      for (const m of [...reference, ...route]) {
        const props: ExportFeature['properties'] = {
          featureType: 'geometryPart',
          geometryPartId: m.geometryPartId,
          geometryPartType: m.geometryPartType,
          ...zone,
          geometryGroupId: g.geometryGroupId,
          working: m.working,
          length: m.length,
        };
        if (m.sequence !== undefined) props.sequence = m.sequence;
        if (m.reverse) props.reverse = true;
        if (m.trackDetail) {
          props.trackIndex = m.trackDetail.trackIndex;
          props.bearing = m.trackDetail.bearing;
          props.width = m.trackDetail.width;
        }
        if (m.headlandDetail) {
          props.passNumber = m.headlandDetail.passNumber;
          props.direction = m.headlandDetail.direction;
          if (m.headlandDetail.obstacleIndex !== undefined)
            props.obstacleIndex = m.headlandDetail.obstacleIndex;
        }
        if (m.turnDetail) props.turnKind = m.turnDetail.turnKind;
        add(m.geometryPartId, m.geometry, props);
      }
    }
    if (z.routeStartPoint)
      add(`${z.zoneId}-start`, z.routeStartPoint, { featureType: 'routeStartPoint', ...zone });
    if (z.routeEndPoint) add(`${z.zoneId}-end`, z.routeEndPoint, { featureType: 'routeEndPoint', ...zone });
    add(`${z.zoneId}-stats`, null, {
      featureType: 'zoneStatistics',
      ...zone,
      routeFailures: z.routeFailures,
      ...z.stats,
    });
  }
  add(`${plan.pathPlanId}-stats`, null, {
    featureType: 'pathPlanStatistics',
    pathPlanId: plan.pathPlanId,
    pathPlanName: plan.pathPlanName,
    ...plan.stats,
  });
  return {
    type: 'FeatureCollection',
    properties: {
      pathPlanId: plan.pathPlanId,
      pathPlanName: plan.pathPlanName,
      customerName: names.customer,
      farmName: names.farm,
      fieldName: names.field,
    },
    features,
  };
}

/** `<field>.geojson` per plan (names made unique). */
export function geojsonFiles(plans: readonly ExportPlan[]): ExportFile[] {
  const unique = uniqueNamer();
  return plans.map((p) => ({
    path: `${unique(safeFileName(resolveNames(p).field, 48, 'field'))}.geojson`,
    data: `${JSON.stringify(planToGeoJSON(p))}\n`,
  }));
}
