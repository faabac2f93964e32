/**
 * ISO 11783-10 task data (ISOXML) export.
 *
 * Layout: the zip holds `TASKDATA/TASKDATA.XML` (and, in version 4,
 * `TASKDATA/LINKLIST.XML`): terminals look for a folder named TASKDATA at the
 * root of the USB stick and read TASKDATA.XML in it.
 *
 * Version 4 (VersionMajor 4, VersionMinor 3), per plan:
 *
 *   CTR  customer (A CTRn, B name)                  one per distinct customer name
 *   FRM  farm (A FRMn, B name, I customer)          one per distinct customer + farm name
 *   PFD  partfield (A PFDn, B pathPlanId when it fits, C field name,
 *        D PartfieldArea = field area less holes [m^2], E customer, F farm)
 *     PLN A=1 PartfieldBoundary, one per zone (C area [m^2], E PLNn)
 *       LSG A=1 PolygonExterior, LSG A=2 PolygonInterior per hole; PNT A=2
 *     PLN A=6 Obstacle, one per hole of a zone (the non-passable obstacle)
 *     GGP guidance group per zone (its active geometry group), holding GPN:
 *       GPN C=1 AB    (E=1 both directions, F=1 extend both ends)  LSG A=5: PNT A=6 (A), A=7 (B)
 *       GPN C=2 A+    (G heading [deg], E=1, F=1)                   LSG A=5: PNT A=6
 *       GPN C=3 Curve per exterior headland pass (E=4 no propagation, F=4 no extension)
 *                     LSG A=5: PNT A=6 first, A=9 guidance points, A=7 last
 *     Guidance line strings carry C = LineStringWidth, the swath width [mm].
 *
 * Version 3 (VersionMajor 3, VersionMinor 3), for legacy terminals: the same
 * customers, farms and partfields without the version-4 ids (PLN E, LSG F);
 * one boundary polygon per partfield (version 3 allows no more), holding the
 * exterior of every zone and every hole as rings; no guidance groups, which
 * version 3 does not have: the AB line and the exterior headland passes are
 * LSG A=5 (guidance pattern) line strings of the partfield.
 *
 * Coordinates: PNT C = PointNorth (latitude), D = PointEast (longitude), WGS84,
 * 9 decimals. Rings are closed (the first point repeated at the end), as the
 * task data of terminals and farm software commonly is.
 * Designators are cut to 32 characters, the limit of ISO 11783-10.
 */
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { GeometryGroupModel, PathPlanZoneModel, Position } from '../plan-model.ts';
import {
  activeGroup,
  closeRing,
  exportDate,
  fieldPartsOf,
  hasLength,
  openRing,
  resolveNames,
  ringAreaM2,
} from './common.ts';
import { EXPORT_SOFTWARE, EXPORT_SOFTWARE_VERSION } from './software.ts';
import type { ExportFile, ExportPlan } from './types.ts';

export { ringAreaM2 };

export type IsoxmlVersion = 3 | 4;

/** ISO 11783-10 designators are at most 32 characters. */
export const DESIGNATOR_MAX = 32;

export function designator(s: string): string {
  return [...s].slice(0, DESIGNATOR_MAX).join('');
}

/** Latitude or longitude with 9 decimals, never in exponent notation. */
export function coord(v: number): string {
  const s = v.toFixed(9);
  return s === '-0.000000000' ? '0.000000000' : s;
}

class Ids {
  private readonly n = new Map<string, number>();
  next(prefix: string): string {
    const v = (this.n.get(prefix) ?? 0) + 1;
    this.n.set(prefix, v);
    return `${prefix}${v}`;
  }
}

interface Ctx {
  version: IsoxmlVersion;
  style: IsoxmlStyle;
  /** The export's date (ring and line names of some styles carry it). */
  date: Date;
  /** Patterns written so far, per type. */
  counts: Map<string, number>;
  ids: Ids;
  /** ISO id -> our id, for LINKLIST.XML. */
  links: { ref: string; value: string; name: string }[];
}

function points(lsg: XMLBuilder, coords: readonly Position[], type: (i: number, n: number) => number): void {
  coords.forEach((p, i) => {
    lsg.ele('PNT', { A: String(type(i, coords.length)), C: coord(p[1]), D: coord(p[0]) }).up();
  });
}

function ring(parent: XMLBuilder, ctx: Ctx, coords: readonly Position[], type: 1 | 2, name?: string): void {
  const attrs: Record<string, string> = { A: String(type) };
  if (name) attrs.B = designator(name);
  if (ctx.version === 4) attrs.F = ctx.ids.next('LSG');
  const lsg = parent.ele('LSG', attrs);
  points(lsg, closeRing(coords), () => 2);
  lsg.up();
}

/** A guidance line string (LSG type 5): A point, guidance points, B point. */
function guidanceLine(
  parent: XMLBuilder,
  ctx: Ctx,
  coords: readonly Position[],
  widthM: number,
  name?: string,
): void {
  const attrs: Record<string, string> = { A: '5' };
  if (name) attrs.B = designator(name);
  if (widthM > 0) attrs.C = String(Math.round(widthM * 1000));
  if (ctx.version === 4) attrs.F = ctx.ids.next('LSG');
  const lsg = parent.ele('LSG', attrs);
  points(lsg, coords, (i, n) => (i === 0 ? 6 : i === n - 1 ? 7 : 9));
  lsg.up();
}

function bearingText(b: number): string {
  return `${(Math.round(b * 10) / 10).toFixed(1)} deg`;
}

function zoneLabel(field: string, z: PathPlanZoneModel, zoneCount: number): string {
  return zoneCount > 1 ? `${field} ${z.zoneIndex + 1}` : field;
}

/** A guidance pattern to write: what it is and its line. */
interface Pattern {
  type: 'AB' | 'A+' | 'Curve';
  coords: readonly Position[];
  /** Headland pass number (curves). */
  pass?: number;
}

/**
 * How a display family names and groups guidance: the standard layout puts
 * all patterns of a zone in one guidance group; some families write one
 * group per pattern and name lines their own way.
 */
export interface IsoxmlStyle {
  /** One guidance group per zone (true) or one per pattern, named like it (false). */
  groupPerZone: boolean;
  /** Write the A+ pattern besides the AB pattern of the same line. */
  aPlus: boolean;
  /**
   * Name of a pattern; `n` counts patterns of its type in the export from 1,
   * `zone` is 1-based, `part` the 1-based field part the zone belongs to (a
   * decomposed part has several zones).
   */
  patternName(
    p: Pattern,
    info: { n: number; zone: number; part: number; partCount: number; bearing: number; date: Date },
  ): string;
  /** Names of boundary rings (undefined: unnamed). */
  ringName?(kind: 'outer' | 'inner', n: number, date: Date): string;
  /** Name of an obstacle polygon; `part` is the 1-based field part. */
  obstacleName(n: number, part: number, partCount: number): string;
}

export const STANDARD_STYLE: IsoxmlStyle = {
  groupPerZone: true,
  aPlus: true,
  patternName: (p, i) =>
    p.type === 'Curve' ? `Headland ${p.pass ?? 1}` : `${p.type} ${bearingText(i.bearing)}`,
  obstacleName: (n, zone, zoneCount) => `Obstacle ${zoneCount > 1 ? `${zone}.` : ''}${n}`,
};

function guidanceGroups(
  pfd: XMLBuilder,
  ctx: Ctx,
  label: string,
  g: GeometryGroupModel,
  swath: number,
  where: { zone: number; part: number; partCount: number },
): void {
  const ab = g.abLine.coordinates;
  const patterns: Pattern[] = [];
  if (hasLength(ab)) {
    patterns.push({ type: 'AB', coords: [ab[0], ab[ab.length - 1]] });
    if (ctx.style.aPlus) patterns.push({ type: 'A+', coords: [ab[0]] });
  }
  for (const h of g.geometryParts) {
    if (
      h.sequence === undefined &&
      h.geometryPartType === 'ExteriorHeadlandPass' &&
      hasLength(h.geometry.coordinates)
    ) {
      patterns.push({
        type: 'Curve',
        coords: h.geometry.coordinates,
        pass: h.headlandDetail?.passNumber ?? 1,
      });
    }
  }
  if (!patterns.length) return;
  const named = patterns.map((pt) => {
    const n = (ctx.counts.get(pt.type) ?? 0) + 1;
    ctx.counts.set(pt.type, n);
    return {
      pt,
      name: designator(ctx.style.patternName(pt, { n, ...where, bearing: g.trackBearing, date: ctx.date })),
    };
  });
  const groups = ctx.style.groupPerZone
    ? [{ name: designator(label), items: named }]
    : named.map((x) => ({ name: x.name, items: [x] }));
  for (const grp of groups) {
    const ggpId = ctx.ids.next('GGP');
    ctx.links.push({ ref: ggpId, value: g.geometryGroupId, name: 'geometry group' });
    const ggp = pfd.ele('GGP', { A: ggpId, B: grp.name });
    for (const { pt, name } of grp.items) {
      const attrs: Record<string, string> = {
        A: ctx.ids.next('GPN'),
        B: name,
        C: pt.type === 'AB' ? '1' : pt.type === 'A+' ? '2' : '3',
        // Straight lines propagate both ways and extend beyond A and B; a headland pass is driven as it is.
        E: pt.type === 'Curve' ? '4' : '1',
        F: pt.type === 'Curve' ? '4' : '1',
      };
      if (pt.type === 'A+') attrs.G = (Math.round(g.trackBearing * 1e4) / 1e4).toFixed(4);
      const gpn = ggp.ele('GPN', attrs);
      guidanceLine(gpn, ctx, pt.coords, swath);
      gpn.up();
    }
    ggp.up();
  }
}

function partfield(root: XMLBuilder, ctx: Ctx, p: ExportPlan, ctr: string, frm: string): void {
  const { plan } = p;
  const names = resolveNames(p);
  const pfdId = ctx.ids.next('PFD');
  ctx.links.push({ ref: pfdId, value: plan.pathPlanId, name: 'path plan' });
  const attrs: Record<string, string> = { A: pfdId };
  if (plan.pathPlanId.length <= DESIGNATOR_MAX) attrs.B = plan.pathPlanId;
  attrs.C = designator(names.field);
  attrs.D = String(Math.max(0, Math.round(plan.area)));
  attrs.E = ctr;
  attrs.F = frm;
  const pfd = root.ele('PFD', attrs);
  const swath = plan.equipment?.swathWidth ?? 0;
  const zoneCount = plan.zones.length;
  const parts = fieldPartsOf(plan);
  // Boundaries first (schema order: PLN, LSG, PNT, GGP).
  if (ctx.version === 3) {
    // Version 3 allows one polygon per partfield: every part's exterior and every hole as rings of it.
    const b = pfd.ele('PLN', { A: '1', B: designator(names.field), C: attrs.D });
    for (const part of parts) {
      const [outer, ...holes] = part.rings;
      ring(b, ctx, outer, 1);
      for (const h of holes) ring(b, ctx, h, 2);
    }
    b.up();
  }
  // Version 4: a boundary polygon per field part (a decomposed part once, not its cells).
  for (const part of ctx.version === 4 ? parts : []) {
    const label = parts.length > 1 ? `${names.field} ${part.index + 1}` : names.field;
    const pln: Record<string, string> = {
      A: '1',
      B: designator(label),
      C: String(Math.max(0, Math.round(part.area))),
      E: ctx.ids.next('PLN'),
    };
    if (part.zones.length === 1) ctx.links.push({ ref: pln.E, value: part.zones[0].zoneId, name: 'zone' });
    const b = pfd.ele('PLN', pln);
    const [outer, ...holes] = part.rings;
    ring(b, ctx, outer, 1, ctx.style.ringName?.('outer', 1, ctx.date));
    holes.forEach((h, k) => {
      ring(b, ctx, h, 2, ctx.style.ringName?.('inner', k + 1, ctx.date));
    });
    b.up();
  }
  for (const part of ctx.version === 4 ? parts : []) {
    part.rings.slice(1).forEach((h, i) => {
      const o = pfd.ele('PLN', {
        A: '6',
        B: designator(ctx.style.obstacleName(i + 1, part.index + 1, parts.length)),
        C: String(Math.round(ringAreaM2(openRing(h)))),
        E: ctx.ids.next('PLN'),
      });
      ring(o, ctx, h, 1);
      o.up();
    });
  }
  if (ctx.version === 3) {
    for (const z of plan.zones) {
      const g = activeGroup(z);
      if (!g) continue;
      // The partfield names the field; the line names say what the line is (and which part, if several).
      const part = parts.find((fp) => fp.zones.includes(z));
      const prefix =
        (parts.length > 1 ? `Part ${(part?.index ?? 0) + 1} ` : '') +
        ((part?.zones.length ?? 1) > 1 ? `Zone ${z.zoneIndex + 1} ` : '');
      const ab = g.abLine.coordinates;
      if (hasLength(ab)) {
        guidanceLine(
          pfd,
          ctx,
          [ab[0], ab[ab.length - 1]],
          swath,
          `${prefix}AB ${bearingText(g.trackBearing)}`,
        );
      }
      for (const h of g.geometryParts) {
        if (
          h.sequence === undefined &&
          h.geometryPartType === 'ExteriorHeadlandPass' &&
          hasLength(h.geometry.coordinates)
        ) {
          const n = h.headlandDetail?.passNumber ?? 1;
          guidanceLine(pfd, ctx, h.geometry.coordinates, swath, `${prefix}Headland ${n}`);
        }
      }
    }
  } else {
    for (const z of plan.zones) {
      const g = activeGroup(z);
      const part = parts.findIndex((fp) => fp.zones.includes(z));
      if (g)
        guidanceGroups(pfd, ctx, zoneLabel(names.field, z, zoneCount), g, swath, {
          zone: z.zoneIndex + 1,
          part: (parts[part]?.index ?? z.zoneIndex) + 1,
          partCount: parts.length,
        });
    }
  }
  pfd.up();
}

function header(version: IsoxmlVersion): Record<string, string> {
  return {
    VersionMajor: String(version),
    VersionMinor: '3',
    ManagementSoftwareManufacturer: EXPORT_SOFTWARE,
    ManagementSoftwareVersion: EXPORT_SOFTWARE_VERSION,
    DataTransferOrigin: '1',
  };
}

/** TASKDATA.XML (and LINKLIST.XML in version 4) for the plans, as text. */
export function isoxmlDocuments(
  plans: readonly ExportPlan[],
  version: IsoxmlVersion = 4,
  style: IsoxmlStyle = STANDARD_STYLE,
): { taskdata: string; linklist?: string } {
  const ctx: Ctx = { version, style, date: exportDate(plans), counts: new Map(), ids: new Ids(), links: [] };
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele('ISO11783_TaskData', header(version));
  if (version === 4) root.ele('AFE', { A: 'LINKLIST.XML', B: '1', C: '', D: '1' }).up();
  // Schema order of the root's children: AFE, CTR, FRM, PFD.
  const customers = new Map<string, string>();
  const farms = new Map<string, { id: string; name: string; ctr: string }>();
  const owners: { ctr: string; frm: string }[] = [];
  for (const p of plans) {
    const n = resolveNames(p);
    let ctr = customers.get(n.customer);
    if (!ctr) {
      ctr = ctx.ids.next('CTR');
      customers.set(n.customer, ctr);
    }
    const farmKey = `${ctr}\u0000${n.farm}`;
    let frm = farms.get(farmKey);
    if (!frm) {
      frm = { id: ctx.ids.next('FRM'), name: n.farm, ctr };
      farms.set(farmKey, frm);
    }
    owners.push({ ctr, frm: frm.id });
  }
  for (const [name, id] of customers) root.ele('CTR', { A: id, B: designator(name) }).up();
  for (const f of farms.values()) root.ele('FRM', { A: f.id, B: designator(f.name), I: f.ctr }).up();
  plans.forEach((p, i) => {
    partfield(root, ctx, p, owners[i].ctr, owners[i].frm);
  });
  const taskdata = doc.end({ prettyPrint: true });
  if (version === 3) return { taskdata };
  const ll = create({ version: '1.0', encoding: 'UTF-8' }).ele('ISO11783LinkList', header(4));
  const lgp = ll.ele('LGP', { A: 'LGP1', B: '2', D: 'tramline', E: designator(`${EXPORT_SOFTWARE} ids`) });
  for (const l of ctx.links) lgp.ele('LNK', { A: l.ref, B: l.value, C: designator(l.name) }).up();
  return { taskdata, linklist: ll.end({ prettyPrint: true }) };
}

/** The export files: TASKDATA/TASKDATA.XML (+ TASKDATA/LINKLIST.XML in version 4), under `folder` when given. */
export function isoxmlFiles(
  plans: readonly ExportPlan[],
  version: IsoxmlVersion = 4,
  folder = '',
  style: IsoxmlStyle = STANDARD_STYLE,
): ExportFile[] {
  const { taskdata, linklist } = isoxmlDocuments(plans, version, style);
  const base = `${folder ? `${folder}/` : ''}TASKDATA`;
  const files: ExportFile[] = [{ path: `${base}/TASKDATA.XML`, data: taskdata }];
  if (linklist) files.push({ path: `${base}/LINKLIST.XML`, data: linklist });
  return files;
}
