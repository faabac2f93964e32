/**
 * Corpus fields by id, and the same field turned or mirrored, for tests that
 * must hold in any orientation. Transforms work in a local equirectangular
 * frame round the field's centre (metres east and north, scaled by cos(lat)),
 * so a field keeps its shape and area within a few parts per million.
 */
import { readdirSync } from 'node:fs';
import { type Feature, hasCorpus, loadFeatures, sharedFieldsDir } from './corpus.ts';

type Ring = number[][];

/**
 * The corpus field whose id is `id`; an id written with "..." (ids of some
 * providers are long hashes: `fiboa-jp:0cfab1b4-...`, `fiboa-be_wal:...2B131C88...`)
 * matches the first field whose id holds each piece between the dots, in
 * order. The file is `prefix.geojson` for an id `prefix:rest`. Undefined
 * without the corpus.
 */
export function findCorpusField(id: string): Feature | undefined {
  if (!hasCorpus()) return undefined;
  const prefix = id.slice(0, id.indexOf(':'));
  const files = readdirSync(sharedFieldsDir).filter((f) => f === `${prefix}.geojson`);
  const pieces = id.includes('...') ? id.split('...') : undefined;
  const matches = (candidate: string): boolean => {
    if (!pieces) return candidate === id;
    let at = 0;
    for (const [i, piece] of pieces.entries()) {
      const found = i === 0 ? (candidate.startsWith(piece) ? 0 : -1) : candidate.indexOf(piece, at);
      if (found < 0) return false;
      at = found + piece.length;
    }
    return true;
  };
  for (const file of files) {
    const found = loadFeatures(file).find((f) => matches(String(f.properties.id)));
    if (found) return found;
  }
  return undefined;
}

function mapRings(geometry: unknown, fn: (ring: Ring) => Ring): unknown {
  const g = geometry as { type: string; coordinates: unknown };
  if (g.type === 'Polygon') return { ...g, coordinates: (g.coordinates as Ring[]).map(fn) };
  if (g.type === 'MultiPolygon')
    return { ...g, coordinates: (g.coordinates as Ring[][]).map((p) => p.map(fn)) };
  throw new Error(`field geometry ${g.type} is not a Polygon or MultiPolygon`);
}

function centre(geometry: unknown): [number, number] {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  mapRings(geometry, (ring) => {
    for (const [x, y] of ring) {
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
    return ring;
  });
  return [(minX + maxX) / 2, (minY + maxY) / 2];
}

/** Applies a linear map of local metres (a b; c d) round the field's centre. */
function transform(f: Feature, a: number, b: number, c: number, d: number, tag: string): Feature {
  const [lon0, lat0] = centre(f.geometry);
  const k = Math.cos((lat0 * Math.PI) / 180);
  const ring = (r: Ring): Ring => {
    const out = r.map(([lon, lat]) => {
      const x = (lon - lon0) * k;
      const y = lat - lat0;
      return [lon0 + (a * x + b * y) / k, lat0 + c * x + d * y];
    });
    // A mirror turns rings round; GeoJSON wants exteriors counter-clockwise.
    return a * d - b * c < 0 ? out.reverse() : out;
  };
  return {
    ...f,
    properties: { ...f.properties, id: `${f.properties.id}${tag}` },
    geometry: mapRings(f.geometry, ring),
  };
}

/** The field turned `deg` degrees counter-clockwise round its centre. */
export function rotateField(f: Feature, deg: number): Feature {
  const t = (deg * Math.PI) / 180;
  return transform(f, Math.cos(t), -Math.sin(t), Math.sin(t), Math.cos(t), `@rot${deg}`);
}

/** The field mirrored east-west through its centre. */
export function mirrorField(f: Feature): Feature {
  return transform(f, -1, 0, 0, 1, '@mirror');
}

/** The field as it is, turned by each of `degrees`, and mirrored. */
export function orientations(f: Feature, degrees: readonly number[] = [37, 90, 211]): Feature[] {
  return [f, ...degrees.map((d) => rotateField(f, d)), mirrorField(f)];
}

/**
 * A field drawn in metres (x east, y north, one outer ring) as a GeoJSON
 * feature in lon/lat, its origin at (lon0, lat0), named `id`.
 */
export function metresField(
  outer: readonly { x: number; y: number }[],
  id: string,
  lon0 = 10,
  lat0 = 55,
): Feature {
  const mLat = 111_320;
  const mLon = mLat * Math.cos((lat0 * Math.PI) / 180);
  const ring = outer.map((q) => [lon0 + q.x / mLon, lat0 + q.y / mLat]);
  return {
    type: 'Feature',
    properties: { id },
    geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]]] },
  } as Feature;
}
