/**
 * KML export: one KML 2.2 document in the zip (`<field>.kml` for one plan,
 * `plans.kml` for several), readable by Google Earth, QGIS and farm
 * software that imports KML boundaries:
 *
 *   Document
 *     Folder per plan, named "customer / farm / field" (ExtendedData: customer, farm, field, pathPlanId, areaM2)
 *       Folder "Boundary"   Placemark per zone: Polygon with innerBoundaryIs per hole (obstacles)
 *       Folder "Guidance"   Placemarks: AB line, guidance tracks, headland passes (LineString),
 *                           named as on a display (`AB 12.3 deg`, `Track 4`, `Headland 1`)
 *       Folder "Route"      Placemark per route part in driving order, `sequence`, `working`
 *                           and `geometryPartType` in ExtendedData, styled working / non-working
 *
 * Every Placemark carries ExtendedData (zoneIndex, kind, ...). Coordinates are
 * lon,lat with up to 9 decimals; rings are closed; exteriors run
 * counter-clockwise as KML asks.
 */
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { Position } from '../plan-model.ts';
import {
  activeGroup,
  decimal9,
  fieldPartsOf,
  orientRing,
  resolveNames,
  routeParts,
  safeFileName,
} from './common.ts';
import { guidanceLines } from './shapefile.ts';
import { EXPORT_SOFTWARE, EXPORT_SOFTWARE_VERSION } from './software.ts';
import type { ExportFile, ExportPlan } from './types.ts';

const coords = (c: readonly Position[]) => c.map((p) => `${decimal9(p[0])},${decimal9(p[1])}`).join(' ');

function extended(pm: XMLBuilder, data: Record<string, string | number | boolean | undefined>): void {
  const ed = pm.ele('ExtendedData');
  for (const [k, v] of Object.entries(data)) {
    if (v !== undefined) ed.ele('Data', { name: k }).ele('value').txt(String(v)).up().up();
  }
  ed.up();
}

function lineStyle(doc: XMLBuilder, id: string, color: string, width: number): void {
  doc
    .ele('Style', { id })
    .ele('LineStyle')
    .ele('color')
    .txt(color)
    .up()
    .ele('width')
    .txt(String(width))
    .up()
    .up()
    .up();
}

function line(
  folder: XMLBuilder,
  name: string,
  style: string,
  c: readonly Position[],
  data: Record<string, string | number | boolean | undefined>,
): void {
  const pm = folder.ele('Placemark');
  pm.ele('name').txt(name).up();
  pm.ele('styleUrl').txt(`#${style}`).up();
  extended(pm, data);
  pm.ele('LineString').ele('tessellate').txt('1').up().ele('coordinates').txt(coords(c)).up().up();
  pm.up();
}

/** The KML document of the plans, as text. */
export function kmlDocument(plans: readonly ExportPlan[], title: string): string {
  const doc = create({ version: '1.0', encoding: 'UTF-8' })
    .ele('kml', { xmlns: 'http://www.opengis.net/kml/2.2' })
    .ele('Document');
  doc.ele('name').txt(title).up();
  doc.ele('description').txt(`Exported by ${EXPORT_SOFTWARE} ${EXPORT_SOFTWARE_VERSION}`).up();
  // KML colours are aabbggrr.
  doc
    .ele('Style', { id: 'boundary' })
    .ele('LineStyle')
    .ele('color')
    .txt('ff00ffff')
    .up()
    .ele('width')
    .txt('2')
    .up()
    .up()
    .ele('PolyStyle')
    .ele('fill')
    .txt('0')
    .up()
    .up()
    .up();
  lineStyle(doc, 'ab', 'ff0000ff', 3);
  lineStyle(doc, 'track', 'ffffaa00', 1);
  lineStyle(doc, 'headland', 'ff00aa00', 2);
  lineStyle(doc, 'working', 'ff00cc00', 2);
  lineStyle(doc, 'nonworking', 'ff0080ff', 2);
  for (const p of plans) {
    const names = resolveNames(p);
    const f = doc.ele('Folder');
    f.ele('name').txt(`${names.customer} / ${names.farm} / ${names.field}`).up();
    extended(f, {
      customer: names.customer,
      farm: names.farm,
      field: names.field,
      pathPlanId: p.plan.pathPlanId,
      areaM2: p.plan.area,
    });
    const swath = p.plan.equipment?.swathWidth ?? 0;
    const b = f.ele('Folder');
    b.ele('name').txt('Boundary').up();
    const parts = fieldPartsOf(p.plan);
    for (const part of parts) {
      const pm = b.ele('Placemark');
      pm.ele('name')
        .txt(parts.length > 1 ? `${names.field} (part ${part.index + 1})` : names.field)
        .up();
      pm.ele('styleUrl').txt('#boundary').up();
      extended(pm, {
        kind: 'boundary',
        partIndex: part.index,
        areaM2: part.area,
        holes: part.rings.length - 1,
      });
      const poly = pm.ele('Polygon');
      const [outer, ...holes] = part.rings;
      poly
        .ele('outerBoundaryIs')
        .ele('LinearRing')
        .ele('coordinates')
        .txt(coords(orientRing(outer, false)))
        .up()
        .up()
        .up();
      for (const h of holes) {
        poly
          .ele('innerBoundaryIs')
          .ele('LinearRing')
          .ele('coordinates')
          .txt(coords(orientRing(h, true)))
          .up()
          .up()
          .up();
      }
      poly.up();
      pm.up();
    }
    b.up();
    const g = f.ele('Folder');
    g.ele('name').txt('Guidance').up();
    for (const z of p.plan.zones) {
      const group = activeGroup(z);
      if (!group) continue;
      for (const l of guidanceLines(group, swath)) {
        const style = l.kind === 'AB' ? 'ab' : l.kind === 'TRACK' ? 'track' : 'headland';
        line(g, l.name, style, l.coordinates, {
          kind: l.kind,
          zoneIndex: z.zoneIndex,
          heading: l.heading,
          widthM: l.width,
          lengthM: Math.round(l.length * 100) / 100,
        });
      }
    }
    g.up();
    const route = routeParts(p.plan);
    if (route.length) {
      const r = f.ele('Folder');
      r.ele('name').txt('Route').up();
      for (const { zone, part } of route) {
        line(
          r,
          `${(part.sequence ?? 0) + 1} ${part.geometryPartType}`,
          part.working ? 'working' : 'nonworking',
          part.geometry.coordinates,
          {
            kind: 'route',
            zoneIndex: zone.zoneIndex,
            sequence: part.sequence,
            geometryPartType: part.geometryPartType,
            working: part.working,
            reverse: part.reverse ? true : undefined,
            lengthM: part.length,
          },
        );
      }
      r.up();
    }
    f.up();
  }
  return doc.end({ prettyPrint: true });
}

export function kmlFiles(plans: readonly ExportPlan[]): ExportFile[] {
  const single = plans.length === 1 ? resolveNames(plans[0]).field : undefined;
  const name = single ? safeFileName(single, 48, 'field') : 'plans';
  return [{ path: `${name}.kml`, data: kmlDocument(plans, single ?? `${plans.length} plans`) }];
}
