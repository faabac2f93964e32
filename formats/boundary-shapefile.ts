/**
 * Boundary import from a zipped ESRI shapefile in any coordinate reference
 * system its `.prj` names (ESRI or OGC WKT, read by proj4): every polygon
 * record of every `.shp` in the zip becomes a WGS84 polygon. Without a
 * `.prj`, coordinates are taken as WGS84 longitude/latitude only when they
 * all are in range. Attribute text is decoded as the `.cpg` says, else as
 * UTF-8 when it is valid UTF-8, else as windows-1252.
 *
 * Errors name the file in the zip, the record (1-based, as GIS software
 * counts) and the coordinate.
 */
import proj4 from 'proj4';
import { open } from 'shapefile';
import { isNoiseEntry, listZip, unzipEntries } from './archive.ts';
import {
  type BoundaryImport,
  checkLonLat,
  closeRing,
  type ImportedPolygon,
  importError,
} from './boundary-import.ts';
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS } from './file-limits.ts';

/** Names that mark a record's own name among .dbf attributes (case-insensitive, first match wins). */
const NAME_ATTRIBUTES = [
  'name',
  'field',
  'field_name',
  'fieldname',
  'navn',
  'marknr',
  'kodkd',
  'phbident',
  'id',
];

/** The parts of a shapefile (what a shapefile zip is unpacked for; other entries are left packed). */
const SHAPEFILE_PARTS = /\.(shp|shx|dbf|prj|cpg)$/i;

/**
 * Files of a zip, keyed by their path, unpacked within `limits`
 * (archive.ts); throws a parse error when the bytes are not a zip and a
 * FileRefusal when the zip passes a limit.
 */
export function unzipFiles(
  zip: Uint8Array,
  what = 'The file',
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
  want?: (name: string) => boolean,
): Map<string, Uint8Array> {
  return unzipEntries(zip, limits, { what, want });
}

const noShp = (found: string[]) =>
  importError(
    `The zip holds no .shp file (found: ${found.slice(0, 10).join(', ') || 'nothing'}); a shapefile upload needs the .shp with its .shx, .dbf and .prj.`,
    'zip',
  );

function sibling(files: Map<string, Uint8Array>, shpPath: string, ext: string): [string, Uint8Array] | null {
  const stem = shpPath.slice(0, -4).toLowerCase();
  for (const [name, data] of files) if (name.toLowerCase() === `${stem}.${ext}`) return [name, data];
  return null;
}

function dbfEncoding(files: Map<string, Uint8Array>, shpPath: string, dbf: Uint8Array | undefined): string {
  const cpg = sibling(files, shpPath, 'cpg');
  if (cpg) {
    const label = new TextDecoder().decode(cpg[1]).trim().toLowerCase();
    const named = /^\d+$/.test(label) ? (label === '65001' ? 'utf-8' : `windows-${label}`) : label;
    try {
      new TextDecoder(named);
      return named;
    } catch {
      // An unknown label: fall through to sniffing.
    }
  }
  if (dbf) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(dbf);
      return 'utf-8';
    } catch {
      // not UTF-8
    }
  }
  return 'windows-1252';
}

function toArrayBuffer(u: Uint8Array): ArrayBuffer {
  return u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;
}

/** Reads every polygon of every shapefile in a zip, reprojected to WGS84. */
export async function readShapefileZip(
  zip: Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Promise<BoundaryImport> {
  return readShapefileFiles(shapefileZipFiles(zip, limits));
}

/** The shapefile parts of a zip (.shp, .shx, .dbf, .prj, .cpg), unpacked within `limits`; other entries stay packed. */
export function shapefileZipFiles(
  zip: Uint8Array,
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): Map<string, Uint8Array> {
  const what = 'The shapefile upload';
  const names = listZip(zip, limits, what)
    .map((e) => e.name)
    .filter((n) => !isNoiseEntry(n));
  if (!names.some((n) => n.toLowerCase().endsWith('.shp'))) throw noShp(names);
  return unzipFiles(zip, what, limits, (n) => SHAPEFILE_PARTS.test(n));
}

/** A record of a shapefile in a zip, with the means to bring its coordinates to WGS84. */
export interface ShapefileRecord {
  shpPath: string;
  /** 1-based, as GIS software counts. */
  record: number;
  /** `file.shp record N`. */
  where: string;
  geometry: { type: string; coordinates: unknown };
  properties: Record<string, unknown>;
  /** A record's name among its attributes (name, field, id, ...), when it has one. */
  name: string | null;
  /** A coordinate in WGS84 [lon, lat]; throws naming `at` when it is out of range or there is no .prj for it. */
  toLonLat(p: number[], at: string): [number, number];
}

/**
 * Every non-empty record of every `.shp` in unpacked files (path → bytes),
 * with the coordinate reference systems the `.prj` files name.
 */
export async function shapefileRecords(
  files: Map<string, Uint8Array>,
): Promise<{ shps: string[]; crs: string; records: ShapefileRecord[] }> {
  const shps = [...files.keys()].filter((n) => n.toLowerCase().endsWith('.shp')).sort();
  if (shps.length === 0) throw noShp([...files.keys()]);
  const records: ShapefileRecord[] = [];
  const crsNames: string[] = [];
  for (const shpPath of shps) {
    const shp = files.get(shpPath)!;
    const dbfEntry = sibling(files, shpPath, 'dbf');
    const prjEntry = sibling(files, shpPath, 'prj');
    let toWgs84: ((p: number[]) => number[]) | null = null;
    let crs = 'WGS 84 (no .prj)';
    if (prjEntry) {
      const wkt = new TextDecoder().decode(prjEntry[1]).trim();
      try {
        const conv = proj4(wkt, 'EPSG:4326');
        toWgs84 = (p) => conv.forward([p[0], p[1]]);
        crs = /^[A-Z_]+\["([^"]*)"/.exec(wkt)?.[1] ?? wkt.slice(0, 60);
      } catch (e) {
        throw importError(
          `${prjEntry[0]}: the coordinate reference system is not one this service can read (${(e as Error).message}); give the .prj as ESRI or OGC WKT.`,
          prjEntry[0],
        );
      }
    }
    crsNames.push(crs);
    const dbf = dbfEntry?.[1];
    let source: Awaited<ReturnType<typeof open>>;
    try {
      source = await open(toArrayBuffer(shp), dbf ? toArrayBuffer(dbf) : undefined, {
        encoding: dbfEncoding(files, shpPath, dbf),
      });
    } catch (e) {
      throw importError(`${shpPath}: not a readable shapefile (${(e as Error).message}).`, shpPath);
    }
    const stem = shpPath.replace(/^.*\//, '').slice(0, -4);
    for (let record = 1; ; record++) {
      let r: {
        done: boolean;
        value?: {
          geometry: { type: string; coordinates: unknown } | null;
          properties: Record<string, unknown>;
        };
      };
      try {
        r = await source.read();
      } catch (e) {
        throw importError(
          `${shpPath} record ${record}: cannot be read (${(e as Error).message}); the file may be cut short or damaged.`,
          `${shpPath}#${record}`,
          { record },
        );
      }
      if (r.done || !r.value) break;
      const { geometry, properties } = r.value;
      if (!geometry) continue; // a null shape: nothing to import
      const path = `${shpPath}#${record}`;
      records.push({
        shpPath,
        record,
        where: `${shpPath} record ${record}`,
        geometry,
        properties,
        name: recordName(properties),
        toLonLat: (p, at) => {
          if (!toWgs84 && !(Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90)) {
            throw importError(
              `${at}: (${p[0]}, ${p[1]}) is not a longitude/latitude and there is no ${stem}.prj naming the coordinate system; add the .prj.`,
              path,
              { record, coordinate: [p[0], p[1]] },
            );
          }
          return checkLonLat(toWgs84 ? toWgs84(p) : p, `${at} (${p[0]}, ${p[1]} in ${crs})`, path);
        },
      });
    }
  }
  return { shps, crs: [...new Set(crsNames)].join('; '), records };
}

/** The same from files already unpacked (path → bytes). */
export async function readShapefileFiles(files: Map<string, Uint8Array>): Promise<BoundaryImport> {
  const { shps, crs, records } = await shapefileRecords(files);
  const polygons: ImportedPolygon[] = [];
  for (const { geometry, where, shpPath, record, properties, name, toLonLat } of records) {
    if (geometry.type !== 'Polygon' && geometry.type !== 'MultiPolygon') {
      throw importError(
        `${where} is a ${geometry.type}; field boundaries need polygon shapefiles (shape type Polygon).`,
        `${shpPath}#${record}`,
        { record },
      );
    }
    const polys = (
      geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
    ) as number[][][][];
    const out = polys.map((poly, pi) =>
      poly.map((ring, ri) =>
        closeRing(
          ring.map((p, ci) =>
            toLonLat(
              p,
              `${where}, ring ${ri + 1}${polys.length > 1 ? ` of part ${pi + 1}` : ''}, point ${ci + 1}`,
            ),
          ),
        ),
      ),
    );
    polygons.push({
      name,
      source: where,
      geometry:
        out.length === 1
          ? { type: 'Polygon', coordinates: out[0] }
          : { type: 'MultiPolygon', coordinates: out },
      properties,
    });
  }
  if (polygons.length === 0) {
    throw importError(`${shps.join(', ')}: no polygon records (every shape is empty).`, shps[0]);
  }
  return { format: 'shapefile', crs, polygons };
}

function recordName(props: Record<string, unknown>): string | null {
  const keys = Object.keys(props);
  for (const want of NAME_ATTRIBUTES) {
    const k = keys.find((x) => x.toLowerCase() === want);
    const v = k === undefined ? undefined : props[k];
    if ((typeof v === 'string' && v.trim()) || typeof v === 'number') return String(v).trim();
  }
  return null;
}
