/**
 * Folder layouts and line names of three display families, built on the
 * ISOXML and shapefile writers. The README ("Export formats") names the
 * public manual each follows.
 *
 * vendor-a, John Deere (Operations Center, Generation 4 displays):
 *   TASKDATA/TASKDATA.XML, TASKDATA/LINKLIST.XML  ISO 11783-10 v4: client (CTR), farm (FRM), field (PFD)
 *       with exterior and interior boundaries; one guidance group per field part with one straight
 *       track per AB line ("Straight Track <part>"; no separate A+ copy of the same line, which the
 *       display would merge) and the headland passes as curve tracks ("Headland Track 1", ...)
 *   Boundaries/<Client>_<Farm>_<Field>.shp (.shx .dbf .prj .cpg)  the field boundary, CLIENT, FARM, FIELD
 *
 * vendor-b, CNH (Case IH AFS, New Holland):
 *   TASKDATA/TASKDATA.XML, TASKDATA/LINKLIST.XML  ISO 11783-10 v4 written the way CNH displays write
 *       their own exports: one guidance group per pattern, named like the pattern; patterns
 *       Straight_<ddmmyy>_<n> (AB), Heading_<ddmmyy>_<n> (A+), Curve_<ddmmyy>_<n> (headland passes);
 *       boundary rings Outer_<ddmmyy>_1 and Inner_<ddmmyy>_<n>; obstacles "Obstacle"
 *
 * vendor-c, Trimble (AgGPS displays, Farm Works):
 *   AgGPS/Data/<Client>/<Farm>/<Field>/Boundary.shp (.shx .dbf, and .prj .cpg for desktop GIS)   Polygon, one record per field
 *       (every part and hole as rings): Name, Area [ha], Perimeter [m], Date (YYYYMMDD)
 *   AgGPS/Data/<Client>/<Farm>/<Field>/ABLines/Swath.shp (.shx .dbf .prj .cpg)  PolyLine, one AB line per
 *       field part: ID, Name, Length [m], Date, Dist1, Dist2 (both 0: the line is not extended
 *       beyond A and B)
 *   Metric units, 2D shapes (the displays read no Z or M values).
 */
import {
  asciiFold,
  exportDate,
  fieldPartsOf,
  hasLength,
  lineLength,
  resolveNames,
  safeFileName,
  uniqueNamer,
} from './common.ts';
import { type IsoxmlStyle, isoxmlFiles } from './isoxml.ts';
import { BOUNDARY_FIELDS, headingText, zoneEntries } from './shapefile.ts';
import { type DbfField, type ShpRecord, shpLayerFiles } from './shp-layer.ts';
import type { ExportFile, ExportPlan } from './types.ts';

/** John Deere: straight and curve tracks, no A+ duplicate. */
export const DEERE_STYLE: IsoxmlStyle = {
  groupPerZone: true,
  aPlus: false,
  patternName: (p, i) => {
    const part = i.partCount > 1 ? ` (part ${i.part})` : '';
    return p.type === 'Curve' ? `Headland Track ${p.pass ?? 1}${part}` : `Straight Track ${i.zone}`;
  },
  ringName: (kind, n) => (kind === 'outer' ? 'Exterior' : `Interior ${n}`),
  obstacleName: (n, zone, zoneCount) => `Obstacle ${zoneCount > 1 ? `${zone}.` : ''}${n}`,
};

/** ddmmyy, as CNH displays date their line and ring names. */
export function ddmmyy(d: Date): string {
  const p = (v: number) => String(v).padStart(2, '0');
  return `${p(d.getUTCDate())}${p(d.getUTCMonth() + 1)}${p(d.getUTCFullYear() % 100)}`;
}

/** CNH: one guidance group per pattern, Straight_/Heading_/Curve_ names with the date. */
export const CNH_STYLE: IsoxmlStyle = {
  groupPerZone: false,
  aPlus: true,
  patternName: (p, i) => {
    const kind = p.type === 'AB' ? 'Straight' : p.type === 'A+' ? 'Heading' : 'Curve';
    return `${kind}_${ddmmyy(i.date)}_${i.n}`;
  },
  ringName: (kind, n, date) => `${kind === 'outer' ? 'Outer' : 'Inner'}_${ddmmyy(date)}_${n}`,
  obstacleName: () => 'Obstacle',
};

export function vendorAFiles(plans: readonly ExportPlan[]): ExportFile[] {
  const files = isoxmlFiles(plans, 4, '', DEERE_STYLE);
  const date = exportDate(plans);
  const unique = uniqueNamer();
  for (const p of plans) {
    const n = resolveNames(p);
    const name = unique(safeFileName(`${n.customer}_${n.farm}_${n.field}`, 60, 'field'));
    const records: ShpRecord[] = fieldPartsOf(p.plan).map((part) => ({
      parts: part.rings,
      attributes: {
        CLIENT: n.customer,
        FARM: n.farm,
        FIELD: n.field,
        ZONE: part.index + 1,
        AREA_HA: part.area / 10000,
        AREA_M2: part.area,
        PLAN_ID: p.plan.pathPlanId,
      },
    }));
    files.push(
      ...shpLayerFiles({ name, shapeType: 'POLYGON', fields: BOUNDARY_FIELDS, records }, 'Boundaries', date),
    );
  }
  return files;
}

export function vendorBFiles(plans: readonly ExportPlan[]): ExportFile[] {
  return isoxmlFiles(plans, 4, '', CNH_STYLE);
}

/** A folder name as Trimble displays show it: letters, digits, spaces, `-_.()`, at most 32 characters. */
export function trimbleFolderName(name: string): string {
  const s = asciiFold(name)
    .replace(/[^A-Za-z0-9 _.()-]+/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+|\.+$/g, '')
    .slice(0, 32)
    .trim();
  return s || 'Unnamed';
}

export const TRIMBLE_BOUNDARY_FIELDS: DbfField[] = [
  { name: 'Name', type: 'C', size: 32 },
  { name: 'Area', type: 'N', size: 12, decimals: 4 },
  { name: 'Perimeter', type: 'N', size: 12, decimals: 2 },
  { name: 'Date', type: 'D' },
];

export const TRIMBLE_SWATH_FIELDS: DbfField[] = [
  { name: 'ID', type: 'N', size: 6 },
  { name: 'Name', type: 'C', size: 32 },
  { name: 'Length', type: 'N', size: 12, decimals: 2 },
  { name: 'Date', type: 'D' },
  { name: 'Dist1', type: 'N', size: 10, decimals: 2 },
  { name: 'Dist2', type: 'N', size: 10, decimals: 2 },
];

export function vendorCFiles(plans: readonly ExportPlan[]): ExportFile[] {
  const files: ExportFile[] = [];
  const date = exportDate(plans);
  const unique = uniqueNamer();
  for (const p of plans) {
    const n = resolveNames(p);
    const folder = unique(
      `AgGPS/Data/${trimbleFolderName(n.customer)}/${trimbleFolderName(n.farm)}/${trimbleFolderName(n.field)}`,
    );
    const parts: [number, number][][] = [];
    const exterior: boolean[] = [];
    let perimeter = 0;
    for (const part of fieldPartsOf(p.plan)) {
      part.rings.forEach((r, i) => {
        parts.push(r);
        exterior.push(i === 0);
        perimeter += lineLength(r);
      });
    }
    files.push(
      ...shpLayerFiles(
        {
          name: 'Boundary',
          shapeType: 'POLYGON',
          fields: TRIMBLE_BOUNDARY_FIELDS,
          records: [
            {
              parts,
              exterior,
              attributes: { Name: n.field, Area: p.plan.area / 10000, Perimeter: perimeter, Date: date },
            },
          ],
        },
        folder,
        date,
      ),
    );
    const swaths: ShpRecord[] = [];
    for (const e of zoneEntries([p])) {
      const ab = e.group?.abLine.coordinates;
      if (!e.group || !ab || !hasLength(ab)) continue;
      const part = p.plan.zones.length > 1 ? ` ${e.zone.zoneIndex + 1}` : '';
      swaths.push({
        parts: [[ab[0], ab[ab.length - 1]]],
        attributes: {
          ID: swaths.length + 1,
          Name: `AB${part} ${headingText(e.group.trackBearing)}`,
          Length: lineLength(ab),
          Date: date,
          Dist1: 0,
          Dist2: 0,
        },
      });
    }
    files.push(
      ...shpLayerFiles(
        { name: 'Swath', shapeType: 'POLYLINE', fields: TRIMBLE_SWATH_FIELDS, records: swaths },
        `${folder}/ABLines`,
        date,
      ),
    );
  }
  return files;
}
