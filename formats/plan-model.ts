/**
 * The v2.0.0 normalized path plan model (spec 2.4), camelCase on the wire:
 *
 *   PathPlanNormalizedModel
 *     zones[]            one per field part (PathPlanZoneModel)
 *       geometryGroups[] one complete guidance result each; one is active (GeometryGroupModel)
 *         geometryParts[] tracks, headland passes, route parts (GeometryPartModel)
 *
 * with statistics at plan, zone and group level.
 *
 * Units, everywhere: metres [m], square metres [m^2], seconds [s], metres per
 * second [m/s]; bearings in degrees clockwise from north. The plan also gives
 * `areaHa` [ha] for display. Geometry is GeoJSON (RFC 7946) in WGS84,
 * [lon, lat] rounded to 9 decimals (under 1 mm); polygon exteriors run
 * counter-clockwise and holes clockwise, rings are closed. Lengths and
 * statistics are rounded to 3 decimals (mm, mm^2, ms).
 *
 * Ids are derived from the plan id and the position of each element, so the
 * same plan always has the same ids:
 *   zone  `${pathPlanId}-z${zoneIndex}`
 *   group `${zoneId}-g${groupIndex}`
 *   part  `${groupId}-p${partIndex}`   (partIndex: position in the group's geometryParts)
 */
import { signedArea } from '../core/geometry/polygon.ts';
import type { GroupSlopes, PlanSlopes, SlopeDetail, SlopeSummary } from '../core/terrain/slopes.ts';
import type {
  GeometryGroup,
  GeometryPartType,
  MetricFrame,
  OptimizerReport,
  PathPart,
  PlanResult,
  PlanStats,
  Point,
  Polygon,
  Zone,
} from '../core/types/index.ts';

export type { GeometryPartType, PlanStats, SlopeDetail, SlopeSummary };

export type Position = [number, number];

export interface GeoJSONPoint {
  type: 'Point';
  coordinates: Position;
}

export interface GeoJSONLineString {
  type: 'LineString';
  coordinates: Position[];
}

export interface GeoJSONPolygon {
  type: 'Polygon';
  coordinates: Position[][];
}

export interface GeoJSONMultiPolygon {
  type: 'MultiPolygon';
  coordinates: Position[][][];
}

/** Details of guidance tracks and route tracks. */
export interface GeometryPartTrackDetail {
  /** Index of the guidance track in its group (0 = first track across the field). */
  trackIndex: number;
  /** Bearing of the track line [deg clockwise from north, 0..180); the driving direction is the order of the coordinates. */
  bearing: number;
  /** Working width along the track [m]. */
  width: number;
}

/** Details of exterior and interior headland passes. */
export interface GeometryPartHeadlandDetail {
  /** Exterior: 1 = outermost pass. Interior: 1 = the pass closest to the obstacle. */
  passNumber: number;
  /** Sense of travel around the pass as seen on a north-up map. */
  direction: 'CW' | 'CCW';
  /** Interior passes: index of the obstacle (hole of the zone boundary, from 0). */
  obstacleIndex?: number;
}

export interface GeometryPartTurnDetail {
  /** Turn shape: 'U', 'bulb', 'K', 'headland', ... */
  turnKind: string;
}

export interface GeometryPartModel {
  geometryPartId: string;
  /** GuidanceTrack, ExteriorHeadlandPass, InteriorHeadlandPass, RouteTrack, Turn, HeadlandTurn, HeadlandConnector, Connector, Crosshatch. */
  geometryPartType: GeometryPartType;
  /** Centre line; for driven parts in the direction of driving. */
  geometry: GeoJSONLineString;
  /** Driving order across the whole plan, from 0; only on parts of the route. */
  sequence?: number;
  /** Present (true) only when the part is driven backwards. */
  reverse?: boolean;
  /** The implement works along this part. */
  working: boolean;
  /** Length of the centre line [m]. */
  length: number;
  trackDetail?: GeometryPartTrackDetail;
  headlandDetail?: GeometryPartHeadlandDetail;
  turnDetail?: GeometryPartTurnDetail;
  /** includeSlopes only: the ground's slopes along the part (GeometryPartSlopeDetail). */
  slopeDetails?: SlopeDetail;
}

export interface GeometryGroupModel {
  geometryGroupId: string;
  isActive: boolean;
  trackType: 'Straight' | 'Curved' | 'Spiral';
  /** Track bearing [deg clockwise from north, 0..180). */
  trackBearing: number;
  /** The AB line: the reference line the tracks are parallel to. */
  abLine: GeoJSONLineString;
  /** Curved tracks: the reference curve they follow. */
  referenceLine?: GeoJSONLineString;
  stats: PlanStats;
  /** Reference geometry first (guidance tracks, headland passes), then the route parts. */
  geometryParts: GeometryPartModel[];
}

export interface PathPlanZoneModel {
  zoneId: string;
  zoneIndex: number;
  /** The zone's field polygon; its holes are the obstacles. */
  zoneBoundary: GeoJSONPolygon;
  /** The workable area inside the headlands, where the tracks run. */
  innerBoundaries: GeoJSONMultiPolygon;
  /** Statistics of the active group. */
  stats: PlanStats;
  /** includeSlopes only: slopes along the route of the active group. */
  slopeSummary?: SlopeSummary;
  activeGeometryGroupId: string;
  /** Where the route of the active group starts and ends; absent when the zone has no route. */
  routeStartPoint?: GeoJSONPoint;
  routeEndPoint?: GeoJSONPoint;
  /** Route connections that could not be kept inside the field (0 on a valid plan). */
  routeFailures: number;
  /** What the planner could not do as asked and did instead (a track type it fell back from). */
  warnings?: string[];
  /** The field part (input polygon) the zone belongs to; the zones of a decomposed part share it. */
  fieldPartIndex: number;
  /** trackDirection 'Contour': the bearing the zone's tracks take and the ground it was chosen on. */
  contour?: { bearingDeg: number; meanAlongTrackPercent: number; meanSlopePercent: number };
  /** Set on the zones of a decomposed field part: the zone's role and the part planned as one zone. */
  decomposition?: {
    role: 'cell' | 'headland';
    cells: number;
    baseline: { turnCount: number; nonWorkingDistance: number; totalTime: number };
  };
  /** What the route optimizer gained over the plain boustrophedon order (algorithm 'optimized' only). */
  optimizer?: OptimizerReport;
  /** Refill points in driving order (routeOptions.calculateRefillPoints only); volumeApplied [l] up to each. */
  refillPoints?: { point: GeoJSONPoint; sequence: number; volumeApplied: number }[];
  /** With routeOptions.stagingArea: transport from the staging area to the route start and back from its end. */
  stagingEntry?: GeoJSONLineString;
  stagingExit?: GeoJSONLineString;
  geometryGroups: GeometryGroupModel[];
}

/** The machine as planned (defaults filled in), SI units; other members of the request's equipment are echoed. */
export interface EquipmentModel {
  /** [m] */
  swathWidth: number;
  /** Minimum turning radius of the centre line [m]. */
  minTurningRadius: number;
  /** [m/s] */
  workingSpeed: number;
  /** Speed in turns and connectors [m/s]. */
  turningSpeed: number;
  /** [m] */
  trackWidths: number[];
  /** [m] */
  tireWidths: number[];
  /** Curvature rate limit [1/m^2]; absent when turns may start abruptly. */
  maxCurvatureRate?: number;
  [k: string]: unknown;
}

export interface PathPlanNormalizedModel {
  pathPlanId: string;
  pathPlanName: string;
  /** Same as pathPlanName (the list-form name). */
  name: string;
  /** ISO 8601 date-time. */
  createdAt: string;
  /** Echo of the request's operationType ('generic' when not given). */
  operationType: string;
  /** The field: all zones. */
  boundary: GeoJSONMultiPolygon;
  /** Field area less holes [m^2]. */
  area: number;
  /** Same as area [m^2] (the list-form name). */
  totalArea: number;
  /** Field area [ha], for display. */
  areaHa: number;
  /** Number of tracks of the active groups (the list-form name of stats.trackCount). */
  numberOfTracks: number;
  equipment: EquipmentModel;
  /** Aggregated statistics of the active groups of all zones. */
  stats: PlanStats;
  /** includeSlopes only: slopes along the routes of all zones. */
  slopeSummary?: SlopeSummary;
  /** What was repaired in the input boundary, in words. */
  repairs: string[];
  zones: PathPlanZoneModel[];
}

export interface PlanMeta {
  pathPlanId: string;
  pathPlanName: string;
  createdAt: string;
  operationType?: string;
  /** The request's equipment object; members the planner does not use are echoed. */
  equipment?: object;
}

export const DEFAULT_OPERATION_TYPE = 'generic';

export function zoneId(pathPlanId: string, zoneIndex: number): string {
  return `${pathPlanId}-z${zoneIndex}`;
}

export function groupId(zoneId: string, groupIndex: number): string {
  return `${zoneId}-g${groupIndex}`;
}

export function partId(groupId: string, partIndex: number): string {
  return `${groupId}-p${partIndex}`;
}

export function round9(v: number): number {
  return Math.round(v * 1e9) / 1e9;
}

export function round3(v: number): number {
  return Math.round(v * 1e3) / 1e3;
}

export function lonLat(frame: MetricFrame, p: Point): Position {
  const [lon, lat] = frame.toLonLat(p);
  return [round9(lon), round9(lat)];
}

/** A closed GeoJSON ring (first position repeated at the end). */
export function ringCoords(frame: MetricFrame, ring: readonly Point[]): Position[] {
  const c = ring.map((p) => lonLat(frame, p));
  if (c.length) c.push(c[0]);
  return c;
}

export function polygonCoords(frame: MetricFrame, p: Polygon): Position[][] {
  return [ringCoords(frame, p.outer), ...p.holes.map((h) => ringCoords(frame, h))];
}

export function pointGeometry(frame: MetricFrame, p: Point): GeoJSONPoint {
  return { type: 'Point', coordinates: lonLat(frame, p) };
}

export function lineString(frame: MetricFrame, pts: readonly Point[]): GeoJSONLineString {
  return { type: 'LineString', coordinates: pts.map((p) => lonLat(frame, p)) };
}

export function polygonGeometry(frame: MetricFrame, p: Polygon): GeoJSONPolygon {
  return { type: 'Polygon', coordinates: polygonCoords(frame, p) };
}

export function multiPolygonGeometry(frame: MetricFrame, ps: readonly Polygon[]): GeoJSONMultiPolygon {
  return { type: 'MultiPolygon', coordinates: ps.map((p) => polygonCoords(frame, p)) };
}

/** Length of a polyline [m]. */
export function partLength(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += Math.hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
  return s;
}

/**
 * Sense of travel along a headland pass in the metric frame (y = north, so
 * the same as on a north-up map). An open stretch of a pass is closed by its
 * chord, which gives the sense of travel around the region it bends around.
 */
export function ringDirection(pts: readonly Point[]): 'CW' | 'CCW' {
  return signedArea(pts) < 0 ? 'CW' : 'CCW';
}

export function roundStats(s: PlanStats): PlanStats {
  const out = { ...s };
  for (const k of Object.keys(out) as (keyof PlanStats)[]) {
    const v = out[k];
    if (v !== undefined) out[k] = round3(v);
  }
  return out;
}

/** One path part as a GeometryPartModel. `trackBearing` [deg] is the group's, used when the part has none. */
export function partModel(
  frame: MetricFrame,
  p: PathPart,
  id: string,
  swathWidth: number,
  trackBearing: number,
): GeometryPartModel {
  const m: GeometryPartModel = {
    geometryPartId: id,
    geometryPartType: p.type,
    geometry: lineString(frame, p.points),
    working: p.working,
    length: round3(partLength(p.points)),
  };
  if (p.sequence !== undefined) m.sequence = p.sequence;
  if (p.reverse) m.reverse = true;
  if (p.trackIndex !== undefined) {
    m.trackDetail = {
      trackIndex: p.trackIndex,
      bearing: round9(p.bearingDeg ?? trackBearing),
      width: swathWidth,
    };
  }
  if (p.passNumber !== undefined) {
    m.headlandDetail = { passNumber: p.passNumber, direction: ringDirection(p.points) };
    if (p.obstacleIndex !== undefined) m.headlandDetail.obstacleIndex = p.obstacleIndex;
  }
  if (p.turnKind) m.turnDetail = { turnKind: p.turnKind };
  return m;
}

function groupModel(
  frame: MetricFrame,
  g: GeometryGroup,
  id: string,
  isActive: boolean,
  swathWidth: number,
  slopes: GroupSlopes | undefined,
): GeometryGroupModel {
  return {
    geometryGroupId: id,
    isActive,
    trackType: g.trackType,
    trackBearing: round9(g.bearingDeg),
    abLine: lineString(frame, g.abLine),
    ...(g.referenceLine ? { referenceLine: lineString(frame, g.referenceLine) } : {}),
    stats: roundStats(g.stats),
    geometryParts: g.parts.map((p, i) => {
      const m = partModel(frame, p, partId(id, i), swathWidth, g.bearingDeg);
      if (slopes) m.slopeDetails = slopes.parts[i];
      return m;
    }),
  };
}

/**
 * The field's parts in order of their index: a zone's own boundary, or for
 * the zones a part was decomposed into, the part's boundary once.
 */
export function fieldParts(zones: Zone[]): Polygon[] {
  const parts = new Map<number, Polygon>();
  for (const z of zones) {
    const k = z.fieldPart ?? z.index;
    if (!parts.has(k)) parts.set(k, z.partBoundary ?? z.boundary);
  }
  return [...parts.entries()].sort((a, b) => a[0] - b[0]).map(([, poly]) => poly);
}

function zoneModel(
  frame: MetricFrame,
  z: Zone,
  pathPlanId: string,
  swathWidth: number,
  slopes: PlanSlopes['zones'][number] | undefined,
): PathPlanZoneModel {
  const id = zoneId(pathPlanId, z.index);
  const zm: PathPlanZoneModel = {
    zoneId: id,
    zoneIndex: z.index,
    zoneBoundary: polygonGeometry(frame, z.boundary),
    innerBoundaries: multiPolygonGeometry(frame, z.workable),
    stats: roundStats(z.stats),
    ...(slopes ? { slopeSummary: slopes.summary } : {}),
    activeGeometryGroupId: groupId(id, z.activeGroup),
    routeFailures: z.routeFailures ?? 0,
    ...(z.warnings?.length || slopes?.warnings?.length
      ? { warnings: [...(z.warnings ?? []), ...(slopes?.warnings ?? [])] }
      : {}),
    fieldPartIndex: z.fieldPart ?? z.index,
    geometryGroups: z.groups.map((g, gi) =>
      groupModel(frame, g, groupId(id, gi), gi === z.activeGroup, swathWidth, slopes?.groups[gi]),
    ),
  };
  if (z.contour) zm.contour = contourReport(z.contour);
  if (z.decomposition?.report) {
    const b = z.decomposition.report.baseline;
    zm.decomposition = {
      role: z.decomposition.role,
      cells: z.decomposition.report.cells,
      baseline: {
        turnCount: b.turnCount,
        nonWorkingDistance: Math.round(b.nonWorkingDistance * 1000) / 1000,
        totalTime: Math.round(b.totalTime * 1000) / 1000,
      },
    };
  }
  if (z.optimizer) zm.optimizer = { ...z.optimizer };
  if (z.stagingLegs?.entry) zm.stagingEntry = lineString(frame, z.stagingLegs.entry);
  if (z.stagingLegs?.exit) zm.stagingExit = lineString(frame, z.stagingLegs.exit);
  if (z.refillPoints)
    zm.refillPoints = z.refillPoints.map((r) => ({
      point: pointGeometry(frame, r.point),
      sequence: r.partSequence,
      volumeApplied: Math.round(r.volumeApplied * 1000) / 1000,
    }));
  if (z.routeStart) zm.routeStartPoint = pointGeometry(frame, z.routeStart);
  if (z.routeEnd) zm.routeEndPoint = pointGeometry(frame, z.routeEnd);
  return zm;
}

/** Machine members of the fuel and cost models echoed in the model's equipment when the request gives them. */
const FUEL_AND_COST_INPUTS = [
  'ptoPowerKw',
  'fuelUseWorkingLph',
  'fuelUseNonWorkingLph',
  'fuelUseIdleLph',
  'fuelEmissionFactorKgPerL',
  'cost',
] as const;

/**
 * The plan as the v2.0.0 normalized model: the response body itself, no
 * wrapper. With `slopes` (includeSlopes), every geometry part carries its
 * slopeDetails and zones and plan a slopeSummary.
 */
export function toNormalizedModel(
  result: PlanResult,
  meta: PlanMeta,
  slopes?: PlanSlopes,
): PathPlanNormalizedModel {
  const { plan, frame } = result;
  const m = plan.machine;
  const equipment: EquipmentModel = {
    ...(meta.equipment as Record<string, unknown> | undefined),
    swathWidth: m.swathWidth,
    minTurningRadius: m.minTurningRadius,
    workingSpeed: m.workingSpeed,
    turningSpeed: m.turningSpeed,
    trackWidths: [...m.trackWidths],
    tireWidths: [...m.tireWidths],
  };
  if (m.maxCurvatureRate !== undefined) equipment.maxCurvatureRate = m.maxCurvatureRate;
  // The fuel and cost inputs as given (their defaults are documented, core/costs).
  const echoed = equipment as unknown as Record<string, unknown>;
  for (const k of FUEL_AND_COST_INPUTS) if (m[k] !== undefined) echoed[k] = m[k];
  const area = round3(plan.stats.fieldArea);
  return {
    pathPlanId: meta.pathPlanId,
    pathPlanName: meta.pathPlanName,
    name: meta.pathPlanName,
    createdAt: meta.createdAt,
    operationType: meta.operationType ?? DEFAULT_OPERATION_TYPE,
    boundary: multiPolygonGeometry(frame, fieldParts(plan.zones)),
    area,
    totalArea: area,
    areaHa: Math.round(plan.stats.fieldArea) / 10000,
    numberOfTracks: plan.stats.trackCount,
    equipment,
    stats: roundStats(plan.stats),
    ...(slopes ? { slopeSummary: slopes.summary } : {}),
    repairs: [...result.repairs],
    zones: plan.zones.map((z, zi) => zoneModel(frame, z, meta.pathPlanId, m.swathWidth, slopes?.zones[zi])),
  };
}

/** The contour report of a zone on the wire (trackDirection 'Contour'). */
export function contourReport(c: NonNullable<Zone['contour']>): NonNullable<PathPlanZoneModel['contour']> {
  return {
    bearingDeg: Math.round(c.bearingDeg * 1000) / 1000,
    meanAlongTrackPercent: c.meanAlongPercent,
    meanSlopePercent: c.meanSlopePercent,
  };
}
