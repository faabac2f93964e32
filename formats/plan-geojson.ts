/**
 * The direct GeoJSON response of spec 2.5: one FeatureCollection holding the
 * active geometry group of each zone. Coordinates are WGS84 [lon, lat] with 9
 * decimals; lengths [m], areas [m^2], times [s], bearings [deg clockwise from
 * north]. Every feature has an `id` and `properties.featureType`:
 *
 *   zonesBoundary       MultiPolygon of the field's parts (the whole field); zoneCount
 *   zoneBoundary        Polygon, one per zone (holes are obstacles); zoneId, zoneIndex
 *   abLine              LineString, the reference line of the zone's tracks; geometryGroupId, trackBearing
 *                       (left out for a zone without tracks)
 *   geometryPart        LineString centre line: geometryPartId, geometryPartType, zoneId, zoneIndex,
 *                       geometryGroupId, working, length; route parts add `sequence` (0..n-1 over the
 *                       whole collection, in driving order, coordinates in the direction of driving) and
 *                       `reverse: true` where driven backwards; tracks add trackIndex and bearing;
 *                       headland passes add passNumber, direction (CW|CCW) and, around obstacles,
 *                       obstacleIndex; turns add turnKind; with includeSlopes, slopeDetails (SlopeDetail)
 *   routeStartPoint, routeEndPoint   Point, where each zone's route starts and ends
 *   zoneStatistics      the zone's statistics (PlanStats) with zoneId, zoneIndex, routeFailures;
 *                       geometry: a Point inside the zone, to label it on a map
 *   pathPlanStatistics  the aggregated statistics with pathPlanId, pathPlanName; geometry null
 *                       (zoneStatistics and pathPlanStatistics add slopeSummary with includeSlopes;
 *                       zoneStatistics adds contour with trackDirection 'Contour')
 *   stagingLeg          LineString from the staging area to the route start (leg 'entry') and from the
 *                       route end back to it (leg 'exit'); transport outside the planned route
 *   refillPoint         Point where the tank is refilled (routeOptions.calculateRefillPoints): refillIndex,
 *                       sequence (the driven part it lies on or starts), volumeApplied [l] up to it
 *
 * Order: the field, then per zone its boundary, AB line, reference parts
 * (guidance tracks, headland passes), route parts in driving order, route
 * ends and statistics; the plan statistics last.
 */
import type { PlanSlopes } from '../core/terrain/slopes.ts';
import type { PathPart, PlanResult, Point, Polygon } from '../core/types/index.ts';
import {
  contourReport,
  fieldParts,
  type GeoJSONLineString,
  type GeoJSONMultiPolygon,
  type GeoJSONPoint,
  type GeoJSONPolygon,
  groupId,
  lineString,
  multiPolygonGeometry,
  partId,
  partLength,
  partModel,
  pointGeometry,
  polygonGeometry,
  roundStats,
  zoneId,
} from './plan-model.ts';

export type PlanFeatureType =
  | 'zonesBoundary'
  | 'zoneBoundary'
  | 'abLine'
  | 'geometryPart'
  | 'routeStartPoint'
  | 'routeEndPoint'
  | 'zoneStatistics'
  | 'pathPlanStatistics'
  | 'refillPoint'
  | 'stagingLeg';

export type PlanGeometry = GeoJSONPoint | GeoJSONLineString | GeoJSONPolygon | GeoJSONMultiPolygon;

export interface PlanFeature {
  type: 'Feature';
  id: string;
  geometry: PlanGeometry | null;
  properties: Record<string, unknown> & { featureType: PlanFeatureType };
}

export interface PlanFeatureCollection {
  type: 'FeatureCollection';
  /** Foreign member naming the plan. */
  properties: { pathPlanId: string; pathPlanName: string };
  features: PlanFeature[];
}

export function toPlanGeoJSON(
  result: PlanResult,
  meta: { pathPlanId: string; pathPlanName: string },
  slopes?: PlanSlopes,
): PlanFeatureCollection {
  const { plan, frame } = result;
  const swath = plan.machine.swathWidth;
  const features: PlanFeature[] = [];
  const add = (id: string, geometry: PlanGeometry | null, properties: PlanFeature['properties']) =>
    features.push({ type: 'Feature', id, geometry, properties });

  add(`${meta.pathPlanId}-field`, multiPolygonGeometry(frame, fieldParts(plan.zones)), {
    featureType: 'zonesBoundary',
    pathPlanId: meta.pathPlanId,
    zoneCount: plan.zones.length,
  });

  // Route parts of the active groups, renumbered 0..n-1 in driving order.
  const driven: PathPart[] = [];
  for (const z of plan.zones)
    for (const p of z.groups[z.activeGroup].parts) if (p.sequence !== undefined) driven.push(p);
  driven.sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
  const rank = new Map<PathPart, number>(driven.map((p, i) => [p, i]));

  for (const [zi, z] of plan.zones.entries()) {
    const zid = zoneId(meta.pathPlanId, z.index);
    const gid = groupId(zid, z.activeGroup);
    const zone = { zoneId: zid, zoneIndex: z.index };
    const g = z.groups[z.activeGroup];
    add(zid, polygonGeometry(frame, z.boundary), { featureType: 'zoneBoundary', ...zone });
    if (partLength(g.abLine) > 1e-6) {
      add(`${gid}-abLine`, lineString(frame, g.abLine), {
        featureType: 'abLine',
        ...zone,
        geometryGroupId: gid,
        trackBearing: Math.round(g.bearingDeg * 1e9) / 1e9,
      });
    }
    const indexed = g.parts.map((p, i) => ({ p, i }));
    const reference = indexed.filter(({ p }) => !rank.has(p));
    const route = indexed.filter(({ p }) => rank.has(p)).sort((a, b) => rank.get(a.p)! - rank.get(b.p)!);
    for (const { p, i } of [...reference, ...route]) {
      const m = partModel(frame, p, partId(gid, i), swath, g.bearingDeg);
      const props: PlanFeature['properties'] = {
        featureType: 'geometryPart',
        geometryPartId: m.geometryPartId,
        geometryPartType: m.geometryPartType,
        ...zone,
        geometryGroupId: gid,
        working: m.working,
        length: m.length,
      };
      const seq = rank.get(p);
      if (seq !== undefined) props.sequence = seq;
      if (m.reverse) props.reverse = true;
      if (m.trackDetail) {
        props.trackIndex = m.trackDetail.trackIndex;
        props.bearing = m.trackDetail.bearing;
      }
      if (m.headlandDetail) {
        props.passNumber = m.headlandDetail.passNumber;
        props.direction = m.headlandDetail.direction;
        if (m.headlandDetail.obstacleIndex !== undefined)
          props.obstacleIndex = m.headlandDetail.obstacleIndex;
      }
      if (m.turnDetail) props.turnKind = m.turnDetail.turnKind;
      const slope = slopes?.zones[zi].groups[z.activeGroup].parts[i];
      if (slope) props.slopeDetails = slope;
      add(m.geometryPartId, m.geometry, props);
    }
    if (z.routeStart)
      add(`${zid}-start`, pointGeometry(frame, z.routeStart), { featureType: 'routeStartPoint', ...zone });
    if (z.routeEnd)
      add(`${zid}-end`, pointGeometry(frame, z.routeEnd), { featureType: 'routeEndPoint', ...zone });
    for (const leg of ['entry', 'exit'] as const) {
      const l = z.stagingLegs?.[leg];
      if (l) add(`${zid}-staging-${leg}`, lineString(frame, l), { featureType: 'stagingLeg', ...zone, leg });
    }
    for (const [i, r] of (z.refillPoints ?? []).entries()) {
      add(`${zid}-refill-${i}`, pointGeometry(frame, r.point), {
        featureType: 'refillPoint',
        ...zone,
        refillIndex: i,
        sequence: r.partSequence,
        volumeApplied: Math.round(r.volumeApplied * 1000) / 1000,
      });
    }
    add(`${zid}-stats`, pointGeometry(frame, labelPoint(z.boundary)), {
      featureType: 'zoneStatistics',
      ...zone,
      routeFailures: z.routeFailures ?? 0,
      ...(z.warnings?.length || slopes?.zones[zi].warnings?.length
        ? { warnings: [...(z.warnings ?? []), ...(slopes?.zones[zi].warnings ?? [])] }
        : {}),
      ...(z.optimizer ? { optimizer: { ...z.optimizer } } : {}),
      ...(slopes ? { slopeSummary: slopes.zones[zi].summary } : {}),
      ...(z.contour ? { contour: contourReport(z.contour) } : {}),
      ...roundStats(z.stats),
    });
  }
  add(`${meta.pathPlanId}-stats`, null, {
    featureType: 'pathPlanStatistics',
    pathPlanId: meta.pathPlanId,
    pathPlanName: meta.pathPlanName,
    ...(slopes ? { slopeSummary: slopes.summary } : {}),
    ...roundStats(plan.stats),
  });
  return {
    type: 'FeatureCollection',
    properties: { pathPlanId: meta.pathPlanId, pathPlanName: meta.pathPlanName },
    features,
  };
}

/**
 * A point well inside the polygon (not in a hole), to label it on a map: of
 * the midpoints of the inside stretches of 16 horizontal lines across it,
 * the one furthest from the edge horizontally and vertically.
 *
 *   y3  ----[=====]-------[==]---
 *   y2  --[======*========]------   <- * : widest clearance both ways
 *   y1  ----[====]---------------
 */
export function labelPoint(poly: Polygon): Point {
  const rings = [poly.outer, ...poly.holes];
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const p of poly.outer) {
    if (p.y < minY) minY = p.y;
    if (p.y > maxY) maxY = p.y;
  }
  let best: Point = poly.outer[0] ?? { x: 0, y: 0 };
  let bestScore = -1;
  const rows = 16;
  for (let k = 0; k < rows; k++) {
    // From the middle outwards, so ties go to the middle.
    const j = k % 2 ? rows / 2 + (k - 1) / 2 : rows / 2 - 1 - k / 2;
    const y = minY + ((maxY - minY) * (j + 0.5)) / rows;
    const xs = crossings(rings, y, 'x');
    for (let i = 0; i + 1 < xs.length; i += 2) {
      const x = (xs[i] + xs[i + 1]) / 2;
      const ys = crossings(rings, x, 'y');
      let clearY = 0;
      for (let m = 0; m + 1 < ys.length; m += 2) {
        if (ys[m] <= y && y <= ys[m + 1]) clearY = Math.min(y - ys[m], ys[m + 1] - y);
      }
      const score = Math.min((xs[i + 1] - xs[i]) / 2, clearY);
      if (score > bestScore) {
        bestScore = score;
        best = { x, y };
      }
    }
  }
  return best;
}

/** Sorted crossings of all rings with the line y = v (axis 'x': the x values) or x = v (axis 'y'). */
function crossings(rings: readonly (readonly Point[])[], v: number, axis: 'x' | 'y'): number[] {
  const out: number[] = [];
  for (const r of rings) {
    for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
      const a = r[j];
      const b = r[i];
      if (axis === 'x') {
        if (a.y > v !== b.y > v) out.push(a.x + ((v - a.y) * (b.x - a.x)) / (b.y - a.y));
      } else if (a.x > v !== b.x > v) {
        out.push(a.y + ((v - a.x) * (b.y - a.y)) / (b.x - a.x));
      }
    }
  }
  return out.sort((p, q) => p - q);
}
