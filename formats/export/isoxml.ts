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
 * customers, farms, partfields and polygons without the version-4 ids
 * (PLN E, LSG F) and without guidance groups, which version 3 does not have;
 * the AB line and the exterior headland passes are LSG A=5 (guidance pattern)
 * line strings of the partfield.
 *
 * Coordinates: PNT C = PointNorth (latitude), D = PointEast (longitude), WGS84,
 * 9 decimals. Rings are written without the repeated closing point.
 * Designators are cut to 32 characters, the limit of ISO 11783-10.
 */
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { GeometryGroupModel, PathPlanZoneModel, Position } from '../plan-model.ts';
import { activeGroup, hasLength, openRing, resolveNames } from './common.ts';
import { EXPORT_SOFTWARE, EXPORT_SOFTWARE_VERSION } from './software.ts';
import type { ExportFile, ExportPlan } from './types.ts';

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

/** Area of a [lon, lat] ring [m^2] on a local equirectangular frame (exact enough for obstacles and partfields). */
export function ringAreaM2(ring: readonly Position[]): number {
  if (ring.length < 3) return 0;
  const R = 6_371_008.8;
  const k = Math.PI / 180;
  let lat0 = 0;
  for (const p of ring) lat0 += p[1];
  lat0 /= ring.length;
  const c = Math.cos(lat0 * k);
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    s += (ring[j][0] - ring[i][0]) * c * k * R * ((ring[j][1] + ring[i][1]) * k * R);
  }
  return Math.abs(s / 2);
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
  points(lsg, openRing(coords), () => 2);
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

function guidanceGroup(pfd: XMLBuilder, ctx: Ctx, label: string, g: GeometryGroupModel, swath: number): void {
  const ab = g.abLine.coordinates;
  const headlands = g.geometryParts.filter(
    (p) =>
      p.sequence === undefined &&
      p.geometryPartType === 'ExteriorHeadlandPass' &&
      hasLength(p.geometry.coordinates),
  );
  if (!hasLength(ab) && headlands.length === 0) return;
  const ggpId = ctx.ids.next('GGP');
  ctx.links.push({ ref: ggpId, value: g.geometryGroupId, name: 'geometry group' });
  const ggp = pfd.ele('GGP', { A: ggpId, B: designator(label) });
  if (hasLength(ab)) {
    const gab = ggp.ele('GPN', {
      A: ctx.ids.next('GPN'),
      B: designator(`AB ${bearingText(g.trackBearing)}`),
      C: '1',
      E: '1',
      F: '1',
    });
    guidanceLine(gab, ctx, [ab[0], ab[ab.length - 1]], swath);
    gab.up();
    const gap = ggp.ele('GPN', {
      A: ctx.ids.next('GPN'),
      B: designator(`A+ ${bearingText(g.trackBearing)}`),
      C: '2',
      E: '1',
      F: '1',
      G: (Math.round(g.trackBearing * 1e4) / 1e4).toFixed(4),
    });
    guidanceLine(gap, ctx, [ab[0]], swath);
    gap.up();
  }
  for (const h of headlands) {
    const n = h.headlandDetail?.passNumber ?? 1;
    const gc = ggp.ele('GPN', {
      A: ctx.ids.next('GPN'),
      B: designator(`Headland ${n}`),
      C: '3',
      E: '4',
      F: '4',
    });
    guidanceLine(gc, ctx, h.geometry.coordinates, swath);
    gc.up();
  }
  ggp.up();
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
  // Boundaries first (schema order: PLN, LSG, PNT, GGP).
  for (const z of plan.zones) {
    const label = zoneLabel(names.field, z, zoneCount);
    const pln: Record<string, string> = {
      A: '1',
      B: designator(label),
      C: String(Math.max(0, Math.round(z.stats.fieldArea))),
    };
    if (ctx.version === 4) {
      pln.E = ctx.ids.next('PLN');
      ctx.links.push({ ref: pln.E, value: z.zoneId, name: 'zone' });
    }
    const b = pfd.ele('PLN', pln);
    const [outer, ...holes] = z.zoneBoundary.coordinates;
    ring(b, ctx, outer, 1);
    for (const h of holes) ring(b, ctx, h, 2);
    b.up();
  }
  for (const z of plan.zones) {
    z.zoneBoundary.coordinates.slice(1).forEach((h, i) => {
      const pln: Record<string, string> = {
        A: '6',
        B: designator(`Obstacle ${zoneCount > 1 ? `${z.zoneIndex + 1}.` : ''}${i + 1}`),
        C: String(Math.round(ringAreaM2(openRing(h)))),
      };
      if (ctx.version === 4) pln.E = ctx.ids.next('PLN');
      const o = pfd.ele('PLN', pln);
      ring(o, ctx, h, 1);
      o.up();
    });
  }
  if (ctx.version === 3) {
    for (const z of plan.zones) {
      const g = activeGroup(z);
      if (!g) continue;
      // The partfield names the field; the line names say what the line is (and which part, if several).
      const prefix = zoneCount > 1 ? `Part ${z.zoneIndex + 1} ` : '';
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
      if (g) guidanceGroup(pfd, ctx, zoneLabel(names.field, z, zoneCount), g, swath);
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
): { taskdata: string; linklist?: string } {
  const ctx: Ctx = { version, ids: new Ids(), links: [] };
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
): ExportFile[] {
  const { taskdata, linklist } = isoxmlDocuments(plans, version);
  const base = `${folder ? `${folder}/` : ''}TASKDATA`;
  const files: ExportFile[] = [{ path: `${base}/TASKDATA.XML`, data: taskdata }];
  if (linklist) files.push({ path: `${base}/LINKLIST.XML`, data: linklist });
  return files;
}
