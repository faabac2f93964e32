/**
 * What the boundary file readers (zipped shapefile, ISOXML TASKDATA) answer:
 * the polygons found, each in WGS84 [lon, lat] with where it came from, so a
 * user can tell which record became which boundary. Errors are
 * PlanningError FIELD_PARSE_ERROR with `details.path` naming the file, the
 * record and the coordinate.
 */
import { PlanningError } from '../core/types/index.ts';

export interface ImportedPolygon {
  /** A name for the boundary from the file (a designator or a name attribute), when it has one. */
  name: string | null;
  /** Where it came from, e.g. `Marker_2026.shp record 3` or `TASKDATA.XML PFD1`. */
  source: string;
  geometry:
    | { type: 'Polygon'; coordinates: number[][][] }
    | { type: 'MultiPolygon'; coordinates: number[][][][] };
  /** Attributes of the record (shapefile .dbf) or of the partfield (ISOXML). */
  properties: Record<string, unknown>;
}

export interface BoundaryImport {
  format: 'shapefile' | 'isoxml' | 'kml' | 'geojson' | 'wkt';
  /** The source coordinate reference system as the file names it. */
  crs: string;
  polygons: ImportedPolygon[];
}

export function importError(
  message: string,
  path: string,
  extra: Record<string, unknown> = {},
): PlanningError {
  return new PlanningError('FIELD_PARSE_ERROR', message, { path, ...extra });
}

/** Checks a WGS84 coordinate; throws naming where it is. */
export function checkLonLat(p: number[], where: string, path: string): [number, number] {
  const [lon, lat] = p;
  if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lon) > 180 || Math.abs(lat) > 90) {
    throw importError(`${where}: (${p[0]}, ${p[1]}) is not a longitude/latitude in WGS84.`, path, {
      coordinate: [p[0], p[1]],
    });
  }
  return [lon, lat];
}

/** Ring points with the ring closed. */
export function closeRing(r: number[][]): number[][] {
  if (r.length === 0) return r;
  const a = r[0];
  const b = r[r.length - 1];
  return a[0] === b[0] && a[1] === b[1] ? r : [...r, [a[0], a[1]]];
}

/** Whether point p lies inside ring r (even-odd). */
export function pointInRing(p: number[], r: number[][]): boolean {
  let inside = false;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
    const [xi, yi] = r[i];
    const [xj, yj] = r[j];
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
