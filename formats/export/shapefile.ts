/**
 * Shapefile export: two zipped ESRI shapefile layers for all plans, WGS84
 * (`.prj`), 2D (no Z or M values), text attributes in Windows-1252 (`.cpg`):
 *
 *   boundary.shp        Polygon, one record per zone (field part); holes are
 *                       the obstacles. CLIENT, FARM, FIELD, ZONE (1..),
 *                       AREA_HA (less holes), AREA_M2, PLAN_ID
 *   guidance_lines.shp  PolyLine, per zone: the AB line, every guidance
 *                       track and every headland pass of the active
 *                       geometry group. CLIENT, FARM, FIELD, ZONE, NAME
 *                       (`AB 12.3 deg`, `Track 4`, `Headland 1`,
 *                       `Obstacle 2 headland 1`), TYPE (AB, TRACK,
 *                       HEADLAND, OBST_HDL), HEADING [deg clockwise from
 *                       north], WIDTH_M (swath), LENGTH_M, PLAN_ID
 *
 * CLIENT / FARM / FIELD are the attribute names farm software and display
 * importers look for to place a boundary in the client-farm-field tree.
 */
import type { GeometryGroupModel, PathPlanZoneModel } from '../plan-model.ts';
import { activeGroup, exportDate, fieldPartsOf, hasLength, lineLength, resolveNames } from './common.ts';
import { type DbfField, type ShpLayer, type ShpRecord, shpLayerFiles } from './shp-layer.ts';
import type { ExportFile, ExportPlan } from './types.ts';

const NAME_FIELDS: DbfField[] = [
  { name: 'CLIENT', type: 'C', size: 64 },
  { name: 'FARM', type: 'C', size: 64 },
  { name: 'FIELD', type: 'C', size: 64 },
  { name: 'ZONE', type: 'N', size: 4 },
];

export const BOUNDARY_FIELDS: DbfField[] = [
  ...NAME_FIELDS,
  { name: 'AREA_HA', type: 'N', size: 14, decimals: 4 },
  { name: 'AREA_M2', type: 'N', size: 14, decimals: 1 },
  { name: 'PLAN_ID', type: 'C', size: 64 },
];

export const GUIDANCE_FIELDS: DbfField[] = [
  ...NAME_FIELDS,
  { name: 'NAME', type: 'C', size: 40 },
  { name: 'TYPE', type: 'C', size: 10 },
  { name: 'HEADING', type: 'N', size: 10, decimals: 4 },
  { name: 'WIDTH_M', type: 'N', size: 8, decimals: 3 },
  { name: 'LENGTH_M', type: 'N', size: 12, decimals: 2 },
  { name: 'PLAN_ID', type: 'C', size: 64 },
];

export interface GuidanceLine {
  kind: 'AB' | 'TRACK' | 'HEADLAND' | 'OBST_HDL';
  name: string;
  coordinates: [number, number][];
  /** [deg clockwise from north]; undefined for headland passes. */
  heading?: number;
  width: number;
  length: number;
}

export function headingText(b: number): string {
  return `${(Math.round(b * 10) / 10).toFixed(1)} deg`;
}

/** The AB line, guidance tracks and headland passes of a group, named for a display's list. */
export function guidanceLines(g: GeometryGroupModel, swath: number): GuidanceLine[] {
  const out: GuidanceLine[] = [];
  const ab = g.abLine.coordinates;
  if (hasLength(ab)) {
    out.push({
      kind: 'AB',
      name: `AB ${headingText(g.trackBearing)}`,
      coordinates: ab,
      heading: g.trackBearing,
      width: swath,
      length: lineLength(ab),
    });
  }
  for (const p of g.geometryParts) {
    if (p.sequence !== undefined || !hasLength(p.geometry.coordinates)) continue;
    if (p.geometryPartType === 'GuidanceTrack') {
      out.push({
        kind: 'TRACK',
        name: `Track ${(p.trackDetail?.trackIndex ?? 0) + 1}`,
        coordinates: p.geometry.coordinates,
        heading: p.trackDetail?.bearing ?? g.trackBearing,
        width: p.trackDetail?.width ?? swath,
        length: p.length,
      });
    } else if (p.geometryPartType === 'ExteriorHeadlandPass') {
      out.push({
        kind: 'HEADLAND',
        name: `Headland ${p.headlandDetail?.passNumber ?? 1}`,
        coordinates: p.geometry.coordinates,
        width: swath,
        length: p.length,
      });
    } else if (p.geometryPartType === 'InteriorHeadlandPass') {
      out.push({
        kind: 'OBST_HDL',
        name: `Obstacle ${(p.headlandDetail?.obstacleIndex ?? 0) + 1} headland ${p.headlandDetail?.passNumber ?? 1}`,
        coordinates: p.geometry.coordinates,
        width: swath,
        length: p.length,
      });
    }
  }
  return out;
}

export interface ZoneEntry {
  p: ExportPlan;
  names: ReturnType<typeof resolveNames>;
  zone: PathPlanZoneModel;
  group?: GeometryGroupModel;
  swath: number;
}

export function zoneEntries(plans: readonly ExportPlan[]): ZoneEntry[] {
  const out: ZoneEntry[] = [];
  for (const p of plans) {
    const names = resolveNames(p);
    for (const zone of p.plan.zones) {
      out.push({ p, names, zone, group: activeGroup(zone), swath: p.plan.equipment?.swathWidth ?? 0 });
    }
  }
  return out;
}

export function shapefileLayers(plans: readonly ExportPlan[]): ShpLayer[] {
  const boundary: ShpRecord[] = [];
  const guidance: ShpRecord[] = [];
  // A boundary record per field part (a decomposed part once, not its cells); ZONE numbers the part.
  for (const p of plans) {
    const n = resolveNames(p);
    for (const part of fieldPartsOf(p.plan)) {
      boundary.push({
        parts: part.rings,
        attributes: {
          CLIENT: n.customer,
          FARM: n.farm,
          FIELD: n.field,
          ZONE: part.index + 1,
          PLAN_ID: p.plan.pathPlanId,
          AREA_HA: part.area / 10000,
          AREA_M2: part.area,
        },
      });
    }
  }
  for (const e of zoneEntries(plans)) {
    const base = {
      CLIENT: e.names.customer,
      FARM: e.names.farm,
      FIELD: e.names.field,
      ZONE: e.zone.zoneIndex + 1,
      PLAN_ID: e.p.plan.pathPlanId,
    };
    if (!e.group) continue;
    for (const l of guidanceLines(e.group, e.swath)) {
      guidance.push({
        parts: [l.coordinates],
        attributes: {
          ...base,
          NAME: l.name,
          TYPE: l.kind,
          HEADING: l.heading,
          WIDTH_M: l.width,
          LENGTH_M: l.length,
        },
      });
    }
  }
  return [
    { name: 'boundary', shapeType: 'POLYGON', fields: BOUNDARY_FIELDS, records: boundary },
    { name: 'guidance_lines', shapeType: 'POLYLINE', fields: GUIDANCE_FIELDS, records: guidance },
  ];
}

export function shapefileFiles(plans: readonly ExportPlan[], folder = ''): ExportFile[] {
  const date = exportDate(plans);
  return shapefileLayers(plans).flatMap((l) => shpLayerFiles(l, folder, date));
}
