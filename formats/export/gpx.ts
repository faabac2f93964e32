/**
 * GPX 1.1 export of the driven route: one `<trk>` per route part, in driving
 * order, so that working and non-working parts can be told apart:
 *
 *   <trk><name>12 RouteTrack</name><desc>...</desc><number>12</number>
 *        <type>working</type> | <type>non-working</type>
 *        <trkseg><trkpt lat lon/>...</trkseg></trk>
 *
 * Waypoints `Start` and `End` (and `Start part 2`, ... for fields of several
 * parts) mark where each part's route starts and ends. Metadata: the plan's
 * name, createdAt as time, the bounds. One file per plan (`<field>.gpx`).
 */
import { create } from 'xmlbuilder2';
import type { PathPlanZoneModel } from '../plan-model.ts';
import {
  activeGroup,
  decimal9,
  fieldPartsOf,
  resolveNames,
  routeParts,
  safeFileName,
  uniqueNamer,
} from './common.ts';
import { EXPORT_SOFTWARE, EXPORT_SOFTWARE_VERSION } from './software.ts';
import { ExportError, type ExportFile, type ExportPlan } from './types.ts';

export const GPX_WORKING = 'working';
export const GPX_NON_WORKING = 'non-working';
/** The `<type>`s of the routing interface (GET /api/routes/gpx): working parts are lines, the others curves. */
export const GPX_LINE_STRING = 'LineString';
export const GPX_CURVE_STRING = 'CurveString';

export interface GpxPartTypes {
  working: string;
  nonWorking: string;
}

/** The route of one plan as a GPX 1.1 document (text); `types` names the `<type>` of working and other parts. */
export function planToGpx(
  p: ExportPlan,
  types: GpxPartTypes = { working: GPX_WORKING, nonWorking: GPX_NON_WORKING },
): string {
  const names = resolveNames(p);
  const route = routeParts(p.plan);
  const gpx = create({ version: '1.0', encoding: 'UTF-8' }).ele('gpx', {
    version: '1.1',
    creator: `${EXPORT_SOFTWARE} ${EXPORT_SOFTWARE_VERSION}`,
    xmlns: 'http://www.topografix.com/GPX/1/1',
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    'xsi:schemaLocation': 'http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd',
  });
  const md = gpx.ele('metadata');
  md.ele('name').txt(names.field).up();
  md.ele('desc')
    .txt(`${names.customer} / ${names.farm} / ${names.field}; path plan ${p.plan.pathPlanId}`)
    .up();
  const t = Date.parse(p.plan.createdAt);
  if (Number.isFinite(t)) md.ele('time').txt(new Date(t).toISOString()).up();
  let minLat = 90;
  let minLon = 180;
  let maxLat = -90;
  let maxLon = -180;
  for (const { part } of route) {
    for (const [lon, lat] of part.geometry.coordinates) {
      minLat = Math.min(minLat, lat);
      maxLat = Math.max(maxLat, lat);
      minLon = Math.min(minLon, lon);
      maxLon = Math.max(maxLon, lon);
    }
  }
  if (route.length) {
    md.ele('bounds', {
      minlat: decimal9(minLat),
      minlon: decimal9(minLon),
      maxlat: decimal9(maxLat),
      maxlon: decimal9(maxLon),
    }).up();
  }
  md.up();
  // A route per field part: it starts in the part's first zone and ends in its last (a
  // decomposed part drives its cells and headland as one route).
  const parts = fieldPartsOf(p.plan);
  const several = parts.length > 1;
  for (const part of parts) {
    const suffix = several ? ` part ${part.index + 1}` : '';
    const ordered = part.zones
      .map((zone) => ({ zone, seq: firstSequence(zone) }))
      .filter((e) => e.seq !== undefined)
      .sort((a, b) => (a.seq as number) - (b.seq as number))
      .map((e) => e.zone);
    const first = ordered[0] ?? part.zones[0];
    const last = ordered[ordered.length - 1] ?? part.zones[part.zones.length - 1];
    for (const [pt, label] of [
      [first.routeStartPoint, 'Start'],
      [last.routeEndPoint, 'End'],
    ] as const) {
      if (!pt) continue;
      gpx
        .ele('wpt', { lat: decimal9(pt.coordinates[1]), lon: decimal9(pt.coordinates[0]) })
        .ele('name')
        .txt(`${label}${suffix}`)
        .up()
        .ele('type')
        .txt(label === 'Start' ? 'route start' : 'route end')
        .up()
        .up();
    }
  }
  route.forEach(({ zone, part }, i) => {
    const trk = gpx.ele('trk');
    trk
      .ele('name')
      .txt(`${i + 1} ${part.geometryPartType}`)
      .up();
    const what = [
      part.working ? 'working' : 'not working',
      part.reverse ? 'driven in reverse' : undefined,
      several ? `part ${(zone.fieldPartIndex ?? zone.zoneIndex) + 1}` : undefined,
      `${part.length.toFixed(1)} m`,
    ].filter(Boolean);
    trk.ele('desc').txt(what.join(', ')).up();
    trk
      .ele('number')
      .txt(String(i + 1))
      .up();
    trk
      .ele('type')
      .txt(part.working ? types.working : types.nonWorking)
      .up();
    const seg = trk.ele('trkseg');
    for (const [lon, lat] of part.geometry.coordinates)
      seg.ele('trkpt', { lat: decimal9(lat), lon: decimal9(lon) }).up();
    seg.up();
    trk.up();
  });
  return gpx.end({ prettyPrint: true });
}

/** `<field>.gpx` per plan; a plan without a route is refused only when no plan has one. */
export function gpxFiles(plans: readonly ExportPlan[]): ExportFile[] {
  const withRoute = plans.filter((p) => routeParts(p.plan).length > 0);
  if (!withRoute.length) {
    throw new ExportError(
      'EXPORT_NOTHING_TO_EXPORT',
      'gpx exports the driven route, and none of the plans has one (plan with a route, or choose isoxml, shapefile or kml)',
      'plans',
    );
  }
  const unique = uniqueNamer();
  return withRoute.map((p) => ({
    path: `${unique(safeFileName(resolveNames(p).field, 48, 'field'))}.gpx`,
    data: planToGpx(p),
  }));
}

/** The lowest route sequence number of a zone's active group (undefined: nothing driven). */
function firstSequence(zone: PathPlanZoneModel): number | undefined {
  let min: number | undefined;
  for (const part of activeGroup(zone)?.geometryParts ?? []) {
    if (part.sequence !== undefined && (min === undefined || part.sequence < min)) min = part.sequence;
  }
  return min;
}
