/**
 * Stateless geometry conversions: GeoJSON to WKT (polygons), and WGS84
 * GeoJSON to the UTM zone of its centre (proj4). Errors are PlanningError
 * FIELD_PARSE_ERROR / FIELD_NOT_LONLAT with a JSON path to the offending
 * member.
 */
import proj4 from 'proj4';
import { PlanningError } from '../core/types/index.ts';
import { toWkt, type WktGeometry } from './boundary-wkt.ts';

type Json = unknown;

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(message: string, path: string): never {
  throw new PlanningError('FIELD_PARSE_ERROR', message, { path });
}

/** The polygons of a Polygon, MultiPolygon, Feature or FeatureCollection, as one WKT geometry. */
export function geojsonToWkt(input: Json, path = ''): string {
  const polys: number[][][][] = [];
  const walk = (g: Json, p: string) => {
    if (!isObj(g)) fail(`${p || 'the GeoJSON'} must be a GeoJSON object.`, p);
    const t = g.type;
    if (t === 'FeatureCollection') {
      if (!Array.isArray(g.features)) fail(`${p}/features must be an array.`, `${p}/features`);
      (g.features as Json[]).forEach((f, i) => {
        walk(f, `${p}/features/${i}`);
      });
    } else if (t === 'Feature') {
      if (g.geometry === null) return;
      walk(g.geometry, `${p}/geometry`);
    } else if (t === 'Polygon') polys.push(rings(g.coordinates, `${p}/coordinates`));
    else if (t === 'MultiPolygon') {
      if (!Array.isArray(g.coordinates))
        fail(`${p}/coordinates must be an array of polygons.`, `${p}/coordinates`);
      (g.coordinates as Json[]).forEach((c, i) => {
        polys.push(rings(c, `${p}/coordinates/${i}`));
      });
    } else if (t === 'GeometryCollection' && Array.isArray(g.geometries)) {
      (g.geometries as Json[]).forEach((x, i) => {
        walk(x, `${p}/geometries/${i}`);
      });
    } else
      fail(
        `${p}/type is ${JSON.stringify(t)}; expected Polygon, MultiPolygon, Feature or FeatureCollection of polygons.`,
        `${p}/type`,
      );
  };
  walk(input, path);
  if (polys.length === 0) fail('The GeoJSON holds no polygon.', path);
  const g: WktGeometry =
    polys.length === 1
      ? { type: 'Polygon', coordinates: polys[0] }
      : { type: 'MultiPolygon', coordinates: polys };
  return toWkt(g);
}

function rings(c: Json, p: string): number[][][] {
  if (!Array.isArray(c) || c.length === 0) fail(`${p} must be a non-empty array of rings.`, p);
  return (c as Json[]).map((r, i) => {
    if (!Array.isArray(r) || r.length < 4)
      fail(`${p}/${i} must be a ring of at least 4 positions (closed).`, `${p}/${i}`);
    return (r as Json[]).map((q, k) => position(q, `${p}/${i}/${k}`));
  });
}

function position(q: Json, p: string): number[] {
  if (!Array.isArray(q) || q.length < 2 || !q.every((x) => typeof x === 'number' && Number.isFinite(x)))
    fail(`${p} must be a position [x, y] of finite numbers.`, p);
  return [q[0] as number, q[1] as number];
}

export interface UtmZone {
  zone: number;
  hemisphere: 'N' | 'S';
  epsg: number;
  proj: string;
}

/** The UTM zone (standard 6° zones, no Norway or Svalbard exceptions) of a WGS84 point. */
export function utmZoneOf(lon: number, lat: number): { zone: number; hemisphere: 'N' | 'S' } {
  const zone = Math.min(60, Math.max(1, Math.floor(((((lon + 180) % 360) + 360) % 360) / 6) + 1));
  return { zone, hemisphere: lat < 0 ? 'S' : 'N' };
}

export function utmZone(zone: number, hemisphere: 'N' | 'S'): UtmZone {
  return {
    zone,
    hemisphere,
    epsg: (hemisphere === 'N' ? 32600 : 32700) + zone,
    proj: `+proj=utm +zone=${zone}${hemisphere === 'S' ? ' +south' : ''} +datum=WGS84 +units=m +no_defs`,
  };
}

/** Every position of a GeoJSON object (any geometry type), with its JSON pointer. */
function forEachPosition(g: Json, p: string, f: (pos: number[], path: string) => number[]): Json {
  if (!isObj(g)) fail(`${p || 'the GeoJSON'} must be a GeoJSON object.`, p);
  const t = g.type;
  const coords = (c: Json, path: string, depth: number): Json => {
    if (!Array.isArray(c)) fail(`${path} must be an array.`, path);
    if (depth === 0) {
      const q = position(c, path);
      return [...f(q, path), ...(c as number[]).slice(2)];
    }
    return (c as Json[]).map((x, i) => coords(x, `${path}/${i}`, depth - 1));
  };
  const depthOf: Record<string, number> = {
    Point: 0,
    MultiPoint: 1,
    LineString: 1,
    MultiLineString: 2,
    Polygon: 2,
    MultiPolygon: 3,
  };
  if (t === 'FeatureCollection') {
    if (!Array.isArray(g.features)) fail(`${p}/features must be an array.`, `${p}/features`);
    return {
      ...g,
      features: (g.features as Json[]).map((x, i) => forEachPosition(x, `${p}/features/${i}`, f)),
    };
  }
  if (t === 'Feature')
    return { ...g, geometry: g.geometry === null ? null : forEachPosition(g.geometry, `${p}/geometry`, f) };
  if (t === 'GeometryCollection') {
    if (!Array.isArray(g.geometries)) fail(`${p}/geometries must be an array.`, `${p}/geometries`);
    return {
      ...g,
      geometries: (g.geometries as Json[]).map((x, i) => forEachPosition(x, `${p}/geometries/${i}`, f)),
    };
  }
  if (typeof t === 'string' && t in depthOf)
    return { ...g, coordinates: coords(g.coordinates, `${p}/coordinates`, depthOf[t]) };
  return fail(
    `${p}/type is ${JSON.stringify(t)}; expected a GeoJSON geometry, Feature or FeatureCollection.`,
    `${p}/type`,
  );
}

/**
 * A WGS84 GeoJSON object with every position in UTM metres [easting,
 * northing] of the zone given, or else of the zone of the centre of its
 * bounding box. Extra ordinates (height) are kept.
 */
export function geojsonToUtm(
  input: Json,
  opts: { zone?: number; hemisphere?: 'N' | 'S' } = {},
  path = '',
): { utm: UtmZone; geojson: Json } {
  let minLon = Infinity;
  let maxLon = -Infinity;
  let minLat = Infinity;
  let maxLat = -Infinity;
  forEachPosition(input, path, (q, p) => {
    if (Math.abs(q[0]) > 180 || Math.abs(q[1]) > 90) {
      throw new PlanningError(
        'FIELD_NOT_LONLAT',
        `${p} is (${q[0]}, ${q[1]}), not a WGS84 longitude/latitude; the input must be in EPSG:4326.`,
        { path: p, coordinate: [q[0], q[1]] },
      );
    }
    minLon = Math.min(minLon, q[0]);
    maxLon = Math.max(maxLon, q[0]);
    minLat = Math.min(minLat, q[1]);
    maxLat = Math.max(maxLat, q[1]);
    return q;
  });
  if (!Number.isFinite(minLon)) fail('The GeoJSON holds no position.', path);
  const centre = utmZoneOf((minLon + maxLon) / 2, (minLat + maxLat) / 2);
  const utm = utmZone(opts.zone ?? centre.zone, opts.hemisphere ?? centre.hemisphere);
  const conv = proj4('EPSG:4326', utm.proj);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const geojson = forEachPosition(input, path, (q) => conv.forward([q[0], q[1]]).map(round));
  return { utm, geojson };
}
