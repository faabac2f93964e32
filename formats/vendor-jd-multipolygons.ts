/**
 * John Deere's boundary shape (`multipolygons` of the Operations Center
 * API) to GeoJSON:
 *
 *   { "multipolygons": [ { "rings": [
 *       { "type": "exterior", "passable": false, "points": [ { "lat": 41.6, "lon": -93.7 }, ... ] },
 *       { "type": "interior", "passable": true,  "points": [ ... ] } ] } ] }
 *
 * Each exterior ring becomes a Polygon Feature holding the non-passable
 * interior rings that lie inside it as holes; passable interior rings become
 * Polygon Features of their own with `properties.passable: true` (how the
 * planner reads passable obstacles). Rings are closed; JSON pointers name
 * what is wrong. Also the check of how a GeoJSON input is wrapped and read
 * (geojson-wrappers-testing).
 */
import { prepareField } from '../core/field/prepare-field.ts';
import { multiPolygonArea, pointInRing } from '../core/geometry/polygon.ts';
import { PlanningError } from '../core/types/index.ts';

type Position = [number, number];

interface Feature {
  type: 'Feature';
  geometry: { type: 'Polygon'; coordinates: Position[][] };
  properties: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function bad(path: string, message: string): never {
  throw new PlanningError('FIELD_INVALID', `${path} ${message}.`, { path });
}

function ringOf(points: unknown, path: string): Position[] {
  if (!Array.isArray(points)) bad(path, 'must be an array of { lat, lon } points');
  const ring = points.map((p, i): Position => {
    const at = `${path}/${i}`;
    if (!isObject(p)) bad(at, 'must be a { lat, lon } point');
    const { lat, lon } = p;
    if (typeof lon !== 'number' || !(Math.abs(lon) <= 180))
      bad(`${at}/lon`, 'must be a longitude from -180 to 180');
    if (typeof lat !== 'number' || !(Math.abs(lat) <= 90))
      bad(`${at}/lat`, 'must be a latitude from -90 to 90');
    return [lon, lat];
  });
  const n = ring.length;
  if (n > 0 && (ring[0][0] !== ring[n - 1][0] || ring[0][1] !== ring[n - 1][1])) ring.push(ring[0]);
  if (ring.length < 4) bad(path, 'must have at least 3 distinct points');
  return ring;
}

export function jdMultipolygonsToGeoJson(input: unknown): { type: 'FeatureCollection'; features: Feature[] } {
  const list = Array.isArray(input) ? input : isObject(input) ? input.multipolygons : undefined;
  const base = Array.isArray(input) ? '' : '/multipolygons';
  if (!Array.isArray(list) || list.length === 0)
    bad(base || '/', 'must be a non-empty array of multipolygons');
  const features: Feature[] = [];
  list.forEach((mp, m) => {
    const mpath = `${base}/${m}`;
    if (!isObject(mp) || !Array.isArray(mp.rings)) bad(`${mpath}/rings`, 'must be an array of rings');
    const exteriors: { ring: Position[]; holes: Position[][]; index: number }[] = [];
    const interiors: { ring: Position[]; passable: boolean; index: number }[] = [];
    mp.rings.forEach((r, i) => {
      const rpath = `${mpath}/rings/${i}`;
      if (!isObject(r)) bad(rpath, 'must be a ring { type, points }');
      const type = String(r.type ?? 'exterior').toLowerCase();
      if (type !== 'exterior' && type !== 'interior')
        bad(`${rpath}/type`, "must be 'exterior' or 'interior'");
      const ring = ringOf(r.points, `${rpath}/points`);
      if (type === 'exterior') exteriors.push({ ring, holes: [], index: i });
      else interiors.push({ ring, passable: r.passable === true, index: i });
    });
    if (exteriors.length === 0) bad(`${mpath}/rings`, 'must hold an exterior ring');
    for (const hole of interiors) {
      if (hole.passable) {
        features.push({
          type: 'Feature',
          geometry: { type: 'Polygon', coordinates: [hole.ring] },
          properties: { passable: true, source: `${mpath}/rings/${hole.index}` },
        });
        continue;
      }
      const [x, y] = hole.ring[0];
      const home =
        exteriors.find((e) =>
          pointInRing(
            { x, y },
            e.ring.map(([px, py]) => ({ x: px, y: py })),
          ),
        ) ?? exteriors[0];
      home.holes.push(hole.ring);
    }
    for (const e of exteriors) {
      features.push({
        type: 'Feature',
        geometry: { type: 'Polygon', coordinates: [e.ring, ...e.holes] },
        properties: { source: `${mpath}/rings/${e.index}` },
      });
    }
  });
  return { type: 'FeatureCollection', features };
}

/** How the service reads a GeoJSON input: its wrapper, what it holds and whether it makes a field. */
export interface GeoJsonWrapperReport {
  wrapper: 'Geometry' | 'Feature' | 'FeatureCollection' | 'GeometryCollection' | 'unknown';
  type: string | null;
  featureCount: number;
  geometryTypes: string[];
  /** The input makes a field the planner accepts. */
  valid: boolean;
  /** Field parts and passable obstacles read from it (when valid). */
  fieldParts: number;
  passableObstacles: number;
  /** Area of the field parts [m^2] (when valid). */
  area: number;
  repairs: string[];
  problems: { path: string; errorCode: string; message: string }[];
}

const GEOMETRIES = new Set([
  'Point',
  'MultiPoint',
  'LineString',
  'MultiLineString',
  'Polygon',
  'MultiPolygon',
]);

export function checkGeoJsonWrappers(input: unknown): GeoJsonWrapperReport {
  const type = isObject(input) && typeof input.type === 'string' ? input.type : null;
  const wrapper: GeoJsonWrapperReport['wrapper'] =
    type === 'Feature' || type === 'FeatureCollection' || type === 'GeometryCollection'
      ? type
      : type && GEOMETRIES.has(type)
        ? 'Geometry'
        : 'unknown';
  const types = new Set<string>();
  let featureCount = 0;
  const walk = (g: unknown) => {
    if (!isObject(g)) return;
    if (g.type === 'Feature') {
      featureCount++;
      walk(g.geometry);
    } else if (g.type === 'FeatureCollection' && Array.isArray(g.features)) g.features.forEach(walk);
    else if (g.type === 'GeometryCollection' && Array.isArray(g.geometries)) g.geometries.forEach(walk);
    else if (typeof g.type === 'string') types.add(g.type);
  };
  walk(input);
  const report: GeoJsonWrapperReport = {
    wrapper,
    type,
    featureCount,
    geometryTypes: [...types].sort(),
    valid: false,
    fieldParts: 0,
    passableObstacles: 0,
    area: 0,
    repairs: [],
    problems: [],
  };
  try {
    const { field, repairs } = prepareField(input);
    return {
      ...report,
      valid: true,
      fieldParts: field.parts.length,
      passableObstacles: field.passable.length,
      area: multiPolygonArea(field.parts),
      repairs,
    };
  } catch (e) {
    if (!(e instanceof PlanningError)) throw e;
    const p = typeof e.details.path === 'string' ? e.details.path : '';
    return { ...report, problems: [{ path: p, errorCode: e.code, message: e.message }] };
  }
}
