/**
 * What every export format shares: names with their fallbacks, the active
 * geometry group of each zone, safe file names, ring orientation and a check
 * that a plan is a well-formed normalized model.
 */
import type {
  GeometryGroupModel,
  GeometryPartModel,
  PathPlanNormalizedModel,
  PathPlanZoneModel,
  Position,
} from '../plan-model.ts';
import { ExportError, type ExportPlan } from './types.ts';

export const DEFAULT_CUSTOMER_NAME = 'Tramline';

/** The names a plan is exported under, fallbacks applied, trimmed. */
export interface ResolvedNames {
  customer: string;
  farm: string;
  field: string;
}

export function resolveNames(p: ExportPlan): ResolvedNames {
  // Control characters (line breaks, tabs) become spaces; other spacing is kept as given.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
  const clean = (s: string | undefined) => (s ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  const customer = clean(p.customerName) || DEFAULT_CUSTOMER_NAME;
  const farm = clean(p.farmName) || customer;
  const field = clean(p.fieldName) || clean(p.plan.pathPlanName) || clean(p.plan.pathPlanId) || 'Field';
  return { customer, farm, field };
}

/** The active geometry group of a zone (the first one when none is marked). */
/** A part of the field as exports write its boundary: its rings and the zones it was planned in. */
export interface FieldPartOut {
  /** 0-based, as zones' fieldPartIndex. */
  index: number;
  /** Exterior first, then holes (obstacles), closed rings of [lon, lat]. */
  rings: Position[][];
  /** Field area of the part [m^2]: the sum of its zones' field areas. */
  area: number;
  zones: PathPlanZoneModel[];
}

/**
 * The field's parts: a zone each, or several zones (the cells and the
 * headland of a decomposed part) sharing one part boundary, which is the
 * plan's boundary polygon of that index. Exports write the part as the
 * field boundary, never the cells.
 */
export function fieldPartsOf(plan: PathPlanNormalizedModel): FieldPartOut[] {
  const byPart = new Map<number, PathPlanZoneModel[]>();
  for (const z of plan.zones) {
    const k = z.fieldPartIndex ?? z.zoneIndex;
    const list = byPart.get(k);
    if (list) list.push(z);
    else byPart.set(k, [z]);
  }
  const keys = [...byPart.keys()].sort((a, b) => a - b);
  const polygons = plan.boundary?.type === 'MultiPolygon' ? plan.boundary.coordinates : [];
  const fromBoundary = polygons.length === keys.length && keys.every((k, i) => k === i);
  return keys.map((k) => {
    const zones = byPart.get(k) as PathPlanZoneModel[];
    const rings = fromBoundary ? polygons[k] : zones[0].zoneBoundary.coordinates;
    return { index: k, rings, area: zones.reduce((a, z) => a + z.stats.fieldArea, 0), zones };
  });
}

export function activeGroup(z: PathPlanZoneModel): GeometryGroupModel | undefined {
  return (
    z.geometryGroups.find((g) => g.geometryGroupId === z.activeGeometryGroupId) ??
    z.geometryGroups.find((g) => g.isActive) ??
    z.geometryGroups[0]
  );
}

/** Route parts of the active groups of all zones, in driving order. */
export function routeParts(
  plan: PathPlanNormalizedModel,
): { zone: PathPlanZoneModel; part: GeometryPartModel }[] {
  const out: { zone: PathPlanZoneModel; part: GeometryPartModel }[] = [];
  for (const zone of plan.zones) {
    const g = activeGroup(zone);
    if (!g) continue;
    for (const part of g.geometryParts) if (part.sequence !== undefined) out.push({ zone, part });
  }
  return out.sort((a, b) => (a.part.sequence ?? 0) - (b.part.sequence ?? 0));
}

export const isGuidanceTrack = (p: GeometryPartModel) => p.geometryPartType === 'GuidanceTrack';
export const isHeadlandPass = (p: GeometryPartModel) =>
  p.geometryPartType === 'ExteriorHeadlandPass' || p.geometryPartType === 'InteriorHeadlandPass';

/** True when the line has at least two distinct positions. */
export function hasLength(coords: readonly Position[]): boolean {
  for (let i = 1; i < coords.length; i++) {
    if (coords[i][0] !== coords[0][0] || coords[i][1] !== coords[0][1]) return true;
  }
  return false;
}

/** Twice the signed area of a ring in degrees (shoelace; > 0 counter-clockwise on a north-up map). */
function signedArea2(ring: readonly Position[]): number {
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    s += (ring[j][0] - ring[i][0]) * (ring[j][1] + ring[i][1]);
  }
  return s;
}

/** The ring closed and running clockwise (`cw`) or counter-clockwise. */
export function orientRing(ring: readonly Position[], cw: boolean): Position[] {
  const r = ring.map((p) => [p[0], p[1]] as Position);
  if (r.length && (r[0][0] !== r[r.length - 1][0] || r[0][1] !== r[r.length - 1][1]))
    r.push([r[0][0], r[0][1]]);
  const isCw = signedArea2(r) < 0;
  return isCw === cw ? r : r.reverse();
}

/** The ring with its first position repeated at the end (unchanged when it already is). */
export function closeRing(ring: readonly Position[]): Position[] {
  const n = ring.length;
  if (n > 0 && (ring[0][0] !== ring[n - 1][0] || ring[0][1] !== ring[n - 1][1])) return [...ring, ring[0]];
  return [...ring];
}

/** The ring without its closing position (ISO 11783 and KML readers close rings themselves or not at all). */
export function openRing(ring: readonly Position[]): Position[] {
  const n = ring.length;
  if (n > 1 && ring[0][0] === ring[n - 1][0] && ring[0][1] === ring[n - 1][1]) return ring.slice(0, n - 1);
  return [...ring];
}

const FOLD: Record<string, string> = {
  ø: 'o',
  Ø: 'O',
  æ: 'ae',
  Æ: 'AE',
  ß: 'ss',
  đ: 'd',
  Đ: 'D',
  ł: 'l',
  Ł: 'L',
  þ: 'th',
  Þ: 'Th',
  ð: 'd',
  Ð: 'D',
  œ: 'oe',
  Œ: 'OE',
  ı: 'i',
};

/** Text in ASCII letters where Latin letters allow: accents dropped (é -> e), ø -> o, æ -> ae, ß -> ss. */
export function asciiFold(s: string): string {
  return s
    .replace(/[øØæÆßđĐłŁþÞðÐœŒı]/g, (c) => FOLD[c])
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '');
}

/**
 * A file or folder name from a display name: letters, digits, `-` and `_`
 * (accents dropped, other characters to `_`), at most `max` characters,
 * never empty.
 */
export function safeFileName(name: string, max = 48, fallback = 'export'): string {
  const s = asciiFold(name)
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, max);
  return s || fallback;
}

/** Makes names unique by adding `_2`, `_3`, ... to repeats (case-insensitive, as file systems of terminals are). */
export function uniqueNamer(): (name: string) => string {
  const seen = new Set<string>();
  return (name) => {
    let n = name;
    for (let k = 2; seen.has(n.toLowerCase()); k++) n = `${name}_${k}`;
    seen.add(n.toLowerCase());
    return n;
  };
}

/** Latest createdAt of the plans as a Date (the export's own date; the Unix epoch when none parses). */
export function exportDate(plans: readonly ExportPlan[]): Date {
  let t = Number.NEGATIVE_INFINITY;
  for (const p of plans) {
    const v = Date.parse(p.plan.createdAt);
    if (Number.isFinite(v) && v > t) t = v;
  }
  return new Date(Number.isFinite(t) ? t : 0);
}

const isPos = (p: unknown): p is Position =>
  Array.isArray(p) &&
  p.length >= 2 &&
  typeof p[0] === 'number' &&
  typeof p[1] === 'number' &&
  Number.isFinite(p[0]) &&
  Number.isFinite(p[1]) &&
  Math.abs(p[0]) <= 180 &&
  Math.abs(p[1]) <= 90;

function checkLine(coords: unknown, path: string): void {
  if (!Array.isArray(coords) || !coords.every(isPos)) {
    throw new ExportError(
      'EXPORT_PLAN_INVALID',
      `${path} must be an array of [lon, lat] positions (lon -180..180, lat -90..90)`,
      path,
    );
  }
}

/** Checks the members the exports read; throws ExportError naming the first bad one. */
export function checkPlans(plans: readonly ExportPlan[]): void {
  if (!Array.isArray(plans) || plans.length === 0) {
    throw new ExportError('EXPORT_NO_PLANS', 'plans must hold at least one plan to export', 'plans');
  }
  plans.forEach((p, i) => {
    const at = `plans[${i}].plan`;
    const plan = p?.plan as PathPlanNormalizedModel | undefined;
    if (!plan || typeof plan !== 'object') {
      throw new ExportError('EXPORT_PLAN_INVALID', `${at} must be a normalized path plan model`, at);
    }
    if (typeof plan.pathPlanId !== 'string' || !plan.pathPlanId) {
      throw new ExportError(
        'EXPORT_PLAN_INVALID',
        `${at}.pathPlanId must be a non-empty string`,
        `${at}.pathPlanId`,
      );
    }
    if (!Array.isArray(plan.zones)) {
      throw new ExportError('EXPORT_PLAN_INVALID', `${at}.zones must be an array of zones`, `${at}.zones`);
    }
    plan.zones.forEach((z, zi) => {
      const zat = `${at}.zones[${zi}]`;
      const poly = z?.zoneBoundary;
      if (poly?.type !== 'Polygon' || !Array.isArray(poly.coordinates) || poly.coordinates.length === 0) {
        throw new ExportError(
          'EXPORT_PLAN_INVALID',
          `${zat}.zoneBoundary must be a GeoJSON Polygon`,
          `${zat}.zoneBoundary`,
        );
      }
      poly.coordinates.forEach((r, ri) => {
        checkLine(r, `${zat}.zoneBoundary.coordinates[${ri}]`);
        if (r.length < 4) {
          throw new ExportError(
            'EXPORT_PLAN_INVALID',
            `${zat}.zoneBoundary.coordinates[${ri}] must be a closed ring of at least 4 positions`,
            `${zat}.zoneBoundary.coordinates[${ri}]`,
          );
        }
      });
      if (!Array.isArray(z.geometryGroups)) {
        throw new ExportError(
          'EXPORT_PLAN_INVALID',
          `${zat}.geometryGroups must be an array`,
          `${zat}.geometryGroups`,
        );
      }
      z.geometryGroups.forEach((g, gi) => {
        const gat = `${zat}.geometryGroups[${gi}]`;
        checkLine(g?.abLine?.coordinates, `${gat}.abLine.coordinates`);
        if (!Array.isArray(g.geometryParts)) {
          throw new ExportError(
            'EXPORT_PLAN_INVALID',
            `${gat}.geometryParts must be an array`,
            `${gat}.geometryParts`,
          );
        }
        g.geometryParts.forEach((part, pi) => {
          checkLine(part?.geometry?.coordinates, `${gat}.geometryParts[${pi}].geometry.coordinates`);
        });
      });
    });
  });
}

/** A coordinate with at most 9 decimals (under 1 mm), never in exponent notation, trailing zeros dropped. */
export function decimal9(v: number): string {
  const s = v.toFixed(9).replace(/\.?0+$/, '');
  return s === '-0' ? '0' : s;
}

/**
 * Metres per degree of longitude and of latitude at a latitude on the WGS84
 * ellipsoid (prime-vertical and meridional radii of curvature): a local
 * frame as exact as the planner's over a field.
 */
export function metresPerDegree(latDeg: number): { lon: number; lat: number } {
  const a = 6_378_137;
  const e2 = 0.00669437999014;
  const phi = (latDeg * Math.PI) / 180;
  const w = 1 - e2 * Math.sin(phi) ** 2;
  const n = a / Math.sqrt(w);
  const m = (a * (1 - e2)) / w ** 1.5;
  const k = Math.PI / 180;
  return { lon: n * Math.cos(phi) * k, lat: m * k };
}

/** Length of a [lon, lat] line [m] (each segment in the local frame at its middle). */
export function lineLength(c: readonly Position[]): number {
  let s = 0;
  for (let i = 1; i < c.length; i++) {
    const d = metresPerDegree((c[i][1] + c[i - 1][1]) / 2);
    s += Math.hypot((c[i][0] - c[i - 1][0]) * d.lon, (c[i][1] - c[i - 1][1]) * d.lat);
  }
  return s;
}

/** Area of a [lon, lat] ring [m^2] in the local frame at its mean latitude. */
export function ringAreaM2(ring: readonly Position[]): number {
  if (ring.length < 3) return 0;
  let lat0 = 0;
  for (const p of ring) lat0 += p[1];
  lat0 /= ring.length;
  const d = metresPerDegree(lat0);
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    s += (ring[j][0] - ring[i][0]) * d.lon * ((ring[j][1] + ring[i][1] - 2 * lat0) * d.lat);
  }
  return Math.abs(s / 2);
}
