/**
 * Imported guidance lines: the lines a file made by farm software holds, in
 * WGS84 [lon, lat], with where each came from.
 *   - ISOXML task data (zip or TASKDATA.XML): every guidance pattern (GPN)
 *     of every guidance group (GGP) of every partfield, its line string of
 *     type 5 (guidance pattern) with its points (PNT C = latitude, D =
 *     longitude); partfields in external files (XFR) are followed. A pattern
 *     with fewer than two points (a pivot given by its centre alone) is left
 *     out and counted.
 *   - KML and KMZ: Placemarks with a LineString (or several in a MultiGeometry).
 *   - GeoJSON: LineString and MultiLineString geometries, features and collections.
 *   - Zipped shapefiles of shape type PolyLine (any CRS with a .prj): each
 *     part of each record is a line, named by its attributes (name, id, ...).
 * Errors are PlanningError FIELD_PARSE_ERROR naming the file, element and point.
 */
import { PlanningError } from '../core/types/index.ts';
import { kmzDocument } from './boundary-file.ts';
import { checkLonLat, importError, pointInRing } from './boundary-import.ts';
import { attr, isoxmlPartfields, kids, readIsoxmlZipFiles } from './boundary-isoxml.ts';
import { kmlFeatures } from './boundary-kml.ts';
import { shapefileRecords, shapefileZipFiles } from './boundary-shapefile.ts';
import type { ArchiveLimits } from './file-limits.ts';

/** ISO 11783-10 GPN attribute C: the kind of guidance pattern. */
const PATTERN_TYPES: Record<string, string> = {
  '1': 'ab',
  '2': 'aPlus',
  '3': 'curve',
  '4': 'pivot',
  '5': 'spiral',
};

export interface ImportedLine {
  /** The line's name in the file (GPN designator, Placemark or feature name), when it has one. */
  name: string | null;
  /** Where it came from, e.g. `TASKDATA.XML PFD PFD-1 GGP GGP-1 GPN GPN-1`. */
  source: string;
  /** ISOXML pattern type (ab, aPlus, curve, pivot, spiral), else null. */
  patternType: string | null;
  /** The guidance group (GGP designator) of an ISOXML pattern, else null. */
  groupName: string | null;
  coordinates: [number, number][];
}

export interface LineImport {
  format: 'isoxml' | 'kml' | 'geojson' | 'shapefile';
  lines: ImportedLine[];
  /** Patterns left out because they have fewer than two points. */
  skipped: number;
}

/** The kinds of stored files (file-kind.ts) that can hold guidance lines. */
export const LINE_FILE_KINDS = new Set(['shapefile-zip', 'isoxml-zip', 'isoxml', 'kml', 'kmz', 'geojson']);

export const MAX_IMPORTED_LINES = 10_000;
export const MAX_LINE_POINTS = 100_000;

const none = (what: string, path: string): PlanningError =>
  importError(`${what} holds no guidance line (LineString).`, path);

export function limitLines(lines: ImportedLine[], path: string): void {
  if (lines.length > MAX_IMPORTED_LINES)
    throw importError(
      `The file holds ${lines.length} lines; at most ${MAX_IMPORTED_LINES} are imported at once.`,
      path,
    );
  for (const l of lines)
    if (l.coordinates.length > MAX_LINE_POINTS)
      throw importError(
        `${l.source}: ${l.coordinates.length} points; a line has at most ${MAX_LINE_POINTS}.`,
        path,
      );
}

/** Guidance patterns of unpacked ISOXML task data (path → bytes). */
export function readIsoxmlLines(files: Map<string, Uint8Array>): LineImport {
  const { main, partfields } = isoxmlPartfields(files);
  const lines: ImportedLine[] = [];
  let skipped = 0;
  for (const { node: pfd, file } of partfields) {
    const pfdId = attr(pfd, 'A') ?? '?';
    for (const ggp of kids(pfd, 'GGP')) {
      const ggpLabel = `${file} PFD ${pfdId} GGP ${attr(ggp, 'A') ?? '?'}`;
      for (const gpn of kids(ggp, 'GPN')) {
        const label = `${ggpLabel} GPN ${attr(gpn, 'A') ?? '?'}`;
        for (const lsg of kids(gpn, 'LSG').filter((l) => attr(l, 'A') === '5')) {
          const coordinates = kids(lsg, 'PNT').map((pnt, k) =>
            checkLonLat(
              [Number(attr(pnt, 'D')), Number(attr(pnt, 'C'))],
              `${label} PNT ${k + 1} (C="${attr(pnt, 'C')}", D="${attr(pnt, 'D')}")`,
              `${file}#${pfdId}`,
            ),
          );
          if (coordinates.length < 2) {
            skipped++;
            continue;
          }
          lines.push({
            name: attr(gpn, 'B') || null,
            source: label,
            patternType: PATTERN_TYPES[attr(gpn, 'C') ?? ''] ?? null,
            groupName: attr(ggp, 'B') || null,
            coordinates,
          });
        }
      }
    }
  }
  if (lines.length === 0)
    throw importError(
      `${main}: ${partfields.length} partfield(s) and no guidance pattern with a line (GGP/GPN with an LSG of type 5 of at least two PNT)${skipped ? `; ${skipped} pattern(s) with a single point` : ''}.`,
      main,
    );
  return { format: 'isoxml', lines, skipped };
}

/** Lines of parsed GeoJSON (geometry, Feature or FeatureCollection) or of KML features. */
function geojsonLines(g: unknown, label: string): ImportedLine[] {
  const out: ImportedLine[] = [];
  const line = (coords: unknown, where: string, name: string | null) => {
    if (!Array.isArray(coords))
      throw importError(`${where}: coordinates must be an array of positions.`, where);
    const coordinates = coords.map((p, k) => {
      if (!Array.isArray(p)) throw importError(`${where} point ${k + 1}: not a position [lon, lat].`, where);
      return checkLonLat(p.map(Number), `${where} point ${k + 1}`, where);
    });
    if (coordinates.length < 2)
      throw importError(
        `${where}: a line needs at least two positions; it has ${coordinates.length}.`,
        where,
      );
    out.push({ name, source: where, patternType: null, groupName: null, coordinates });
  };
  const walk = (x: unknown, where: string, name: string | null, depth: number) => {
    const o = x as {
      type?: string;
      features?: unknown[];
      geometries?: unknown[];
      geometry?: unknown;
      properties?: { name?: unknown } | null;
      coordinates?: unknown;
    };
    if (!o || typeof o !== 'object' || depth > 3) return;
    if (o.type === 'FeatureCollection' && Array.isArray(o.features))
      o.features.forEach((f, i) => {
        walk(f, `${label} feature ${i + 1}`, null, depth + 1);
      });
    else if (o.type === 'Feature')
      walk(o.geometry, where, typeof o.properties?.name === 'string' ? o.properties.name : null, depth + 1);
    else if (o.type === 'GeometryCollection' && Array.isArray(o.geometries))
      o.geometries.forEach((g2, i) => {
        walk(g2, `${where} geometry ${i + 1}`, name, depth + 1);
      });
    else if (o.type === 'LineString') line(o.coordinates, where, name);
    else if (o.type === 'MultiLineString' && Array.isArray(o.coordinates))
      o.coordinates.forEach((c, i) => {
        line(c, `${where} line ${i + 1}`, name);
      });
  };
  walk(g, `${label} geometry`, null, 0);
  return out;
}

/** The lines of unpacked polyline shapefiles (path → bytes), reprojected to WGS84. */
export async function readShapefileLines(files: Map<string, Uint8Array>): Promise<LineImport> {
  const { shps, records } = await shapefileRecords(files);
  const lines: ImportedLine[] = [];
  for (const { geometry, where, shpPath, record, name, toLonLat } of records) {
    if (geometry.type !== 'LineString' && geometry.type !== 'MultiLineString')
      throw importError(
        `${where} is a ${geometry.type}; guidance lines need polyline shapefiles (shape type PolyLine).`,
        `${shpPath}#${record}`,
        { record },
      );
    const parts = (
      geometry.type === 'LineString' ? [geometry.coordinates] : geometry.coordinates
    ) as number[][][];
    parts.forEach((part, pi) => {
      const label = parts.length > 1 ? `${where} part ${pi + 1}` : where;
      const coordinates = part.map((p, ci) => toLonLat(p, `${label}, point ${ci + 1}`));
      if (coordinates.length >= 2)
        lines.push({ name, source: label, patternType: null, groupName: null, coordinates });
    });
  }
  if (lines.length === 0) throw none(shps.join(', '), shps[0]);
  return { format: 'shapefile', lines, skipped: 0 };
}

/** Lines of a KML document. */
export function readKmlLines(text: string, file = 'KML'): LineImport {
  const lines = geojsonLines({ type: 'FeatureCollection', features: kmlFeatures(text) }, file);
  if (lines.length === 0) throw none(`${file}: the document`, 'kml');
  return { format: 'kml', lines, skipped: 0 };
}

/** Lines of GeoJSON text or of an already parsed GeoJSON object. */
export function readGeojsonLines(input: string | unknown, file = 'GeoJSON'): LineImport {
  let g = input;
  if (typeof input === 'string') {
    try {
      g = JSON.parse(input.replace(/^\uFEFF/, ''));
    } catch (e) {
      throw importError(`${file}: the text is not valid JSON (${(e as Error).message}).`, 'geojson');
    }
  }
  const lines = geojsonLines(g, file);
  if (lines.length === 0) throw none(`${file}: the GeoJSON`, 'geojson');
  return { format: 'geojson', lines, skipped: 0 };
}

/** The guidance lines of a stored upload by its kind; runs on a file reader thread (boundary-file-pool.ts). */
export async function readLineFile(
  kind: string,
  content: Uint8Array,
  limits: ArchiveLimits,
): Promise<LineImport> {
  const text = () => new TextDecoder().decode(content).replace(/^\uFEFF/, '');
  let found: LineImport;
  switch (kind) {
    case 'shapefile-zip':
      found = await readShapefileLines(shapefileZipFiles(content, limits));
      break;
    case 'isoxml-zip':
      found = readIsoxmlLines(readIsoxmlZipFiles(content, limits));
      break;
    case 'isoxml':
      found = readIsoxmlLines(new Map([['TASKDATA.XML', content]]));
      break;
    case 'kmz': {
      const doc = kmzDocument(content, limits);
      found = readKmlLines(doc.text, doc.name);
      break;
    }
    case 'kml':
      found = readKmlLines(text());
      break;
    case 'geojson':
      found = readGeojsonLines(text());
      break;
    default:
      throw new PlanningError('FIELD_PARSE_ERROR', `Files of kind '${kind}' hold no guidance lines.`, {
        path: '',
      });
  }
  limitLines(found.lines, kind);
  return found;
}

// ---- Whether a line meets a boundary (WGS84, planar in degrees: fine at field scale) ----

function segmentsCross(a: number[], b: number[], c: number[], d: number[]): boolean {
  const orient = (p: number[], q: number[], r: number[]) =>
    Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  const onSegment = (p: number[], q: number[], r: number[]) =>
    Math.min(p[0], r[0]) <= q[0] &&
    q[0] <= Math.max(p[0], r[0]) &&
    Math.min(p[1], r[1]) <= q[1] &&
    q[1] <= Math.max(p[1], r[1]);
  const o1 = orient(a, b, c);
  const o2 = orient(a, b, d);
  const o3 = orient(c, d, a);
  const o4 = orient(c, d, b);
  if (o1 !== o2 && o3 !== o4) return true;
  return (
    (o1 === 0 && onSegment(a, c, b)) ||
    (o2 === 0 && onSegment(a, d, b)) ||
    (o3 === 0 && onSegment(c, a, d)) ||
    (o4 === 0 && onSegment(c, b, d))
  );
}

/** Whether a line touches a polygon (outer ring first, then holes): a point inside it or a crossing of a ring. */
export function lineMeetsPolygon(line: readonly number[][], rings: readonly number[][][]): boolean {
  if (rings.length === 0 || line.length === 0) return false;
  const inside = (p: number[]) => pointInRing(p, rings[0]) && !rings.slice(1).some((h) => pointInRing(p, h));
  if (line.some(inside)) return true;
  for (let i = 0; i + 1 < line.length; i++)
    for (const ring of rings)
      for (let k = 0; k < ring.length; k++) {
        const next = ring[(k + 1) % ring.length];
        if (segmentsCross(line[i], line[i + 1], ring[k], next)) return true;
      }
  return false;
}

/** [minLon, minLat, maxLon, maxLat] of points. */
export function bboxOf(points: readonly number[][]): [number, number, number, number] {
  let b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of points)
    b = [Math.min(b[0], x), Math.min(b[1], y), Math.max(b[2], x), Math.max(b[3], y)];
  return b;
}
