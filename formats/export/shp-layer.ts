/**
 * One ESRI shapefile layer: `.shp` and `.shx` (geometry, written by
 * @mapbox/shp-write), `.dbf` (attributes, written by dbf with the field
 * definitions given here), `.prj` (WGS84 geographic) and `.cpg` (the text
 * encoding of the `.dbf`).
 *
 * Geometry is 2D only (shape types 3 PolyLine, 5 Polygon, 1 Point; no Z or M
 * values). Polygon rings follow the shapefile rule: exterior rings
 * clockwise, holes counter-clockwise. Text attributes are Windows-1252
 * (Latin-1 letters kept, others transliterated where Unicode allows, else
 * `?`), which the `.cpg` declares; field names are at most 10 characters.
 */
import { write as writeShp } from '@mapbox/shp-write';
import { structure as dbfStructure } from 'dbf';
import type { Position } from '../plan-model.ts';
import { asciiFold, orientRing } from './common.ts';
import type { ExportFile } from './types.ts';

/** The .prj of WGS84 longitude/latitude in degrees, as ESRI software writes it. */
export const WGS84_PRJ =
  'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]';

export type DbfValue = string | number | boolean | Date | null | undefined;

export interface DbfField {
  /** At most 10 characters (dBASE). */
  name: string;
  /** C text, N number, D date (YYYYMMDD), L logical. */
  type: 'C' | 'N' | 'D' | 'L';
  /** Width in characters (C, N). */
  size?: number;
  /** Decimal places of an N field (default 0). */
  decimals?: number;
}

export interface ShpRecord {
  /** Polygon: rings (exterior first, then holes). PolyLine: parts. Point: one position in one part. */
  parts: Position[][];
  /** Polygon: which rings are exteriors (default: the first only). */
  exterior?: boolean[];
  attributes: Record<string, DbfValue>;
}

export interface ShpLayer {
  /** File name without extension, e.g. `Boundary` or `ABLines/Swath`. */
  name: string;
  shapeType: 'POLYGON' | 'POLYLINE' | 'POINT';
  fields: DbfField[];
  records: ShpRecord[];
}

/** Text as Windows-1252 bytes allow it: Latin-1 letters kept, accents of others dropped, the rest `?`. */
export function cp1252Text(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 63;
    if ((c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c <= 0xff)) {
      out += ch;
      continue;
    }
    const base = asciiFold(ch);
    out +=
      [...base].every((b) => (b.codePointAt(0) ?? 0) >= 0x20 && (b.codePointAt(0) ?? 0) < 0x7f) && base
        ? base
        : '?';
  }
  return out;
}

function dbfValue(f: DbfField, v: DbfValue): string | boolean | null {
  if (v === null || v === undefined) return null;
  switch (f.type) {
    case 'C':
      return cp1252Text(String(v)).slice(0, f.size ?? 254);
    case 'N': {
      const n = Number(v);
      if (!Number.isFinite(n)) return null;
      const d = f.decimals ?? 0;
      return n.toFixed(d).slice(0, f.size ?? 18);
    }
    case 'D': {
      const d = v instanceof Date ? v : new Date(String(v));
      if (Number.isNaN(d.getTime())) return null;
      return d.toISOString().slice(0, 10).replace(/-/g, '');
    }
    case 'L':
      return Boolean(v);
  }
}

function toBytes(view: DataView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice();
}

/**
 * The files of one layer; `folder` is prefixed to the paths. An empty layer
 * is still written (a valid empty shapefile). `date` goes into the `.dbf`
 * header as the date of last update.
 */
export function shpLayerFiles(layer: ShpLayer, folder = '', date = new Date(0)): ExportFile[] {
  for (const f of layer.fields) {
    if (f.name.length > 10) throw new Error(`dBASE field name "${f.name}" is longer than 10 characters`);
  }
  const geometries = layer.records.map((r) => {
    if (layer.shapeType === 'POLYGON')
      return r.parts.map((ring, i) => orientRing(ring, r.exterior?.[i] ?? i === 0));
    if (layer.shapeType === 'POINT') return r.parts[0][0];
    return r.parts;
  });
  let shp: Uint8Array | undefined;
  let shx: Uint8Array | undefined;
  if (geometries.length) {
    writeShp([], layer.shapeType, geometries, (err, files) => {
      if (err) throw err;
      shp = toBytes(files.shp as DataView);
      shx = toBytes(files.shx as DataView);
    });
  } else {
    shp = emptyShapefile(layer.shapeType);
    shx = emptyShapefile(layer.shapeType);
  }
  const meta = layer.fields.map((f) => ({
    name: f.name,
    type: f.type,
    size: f.type === 'D' ? 8 : f.type === 'L' ? 1 : (f.size ?? (f.type === 'N' ? 18 : 254)),
  }));
  const rows = layer.records.map((r) => {
    const row: Record<string, string | boolean | null> = {};
    for (const f of layer.fields) row[f.name] = dbfValue(f, r.attributes[f.name]);
    return row;
  });
  const dbf = toBytes(dbfStructure(rows, meta));
  dbf[1] = date.getUTCFullYear() - 1900;
  dbf[2] = date.getUTCMonth() + 1;
  dbf[3] = date.getUTCDate();
  // The dbf writer declares 3 decimals on every N field; declare what is written (0 for whole numbers),
  // so readers type ID-like fields as integers.
  layer.fields.forEach((f, i) => {
    if (f.type === 'N') dbf[32 + i * 32 + 17] = f.decimals ?? 0;
  });
  const base = `${folder ? `${folder}/` : ''}${layer.name}`;
  return [
    { path: `${base}.shp`, data: shp! },
    { path: `${base}.shx`, data: shx! },
    { path: `${base}.dbf`, data: dbf },
    { path: `${base}.prj`, data: WGS84_PRJ },
    { path: `${base}.cpg`, data: '1252' },
  ];
}

/** A 100-byte shapefile header with no records (the bounding box all zeros). */
function emptyShapefile(shapeType: ShpLayer['shapeType']): Uint8Array {
  const b = new Uint8Array(100);
  const v = new DataView(b.buffer);
  v.setInt32(0, 9994);
  v.setInt32(24, 50);
  v.setInt32(28, 1000, true);
  v.setInt32(32, shapeType === 'POLYGON' ? 5 : shapeType === 'POLYLINE' ? 3 : 1, true);
  return b;
}
