/**
 * Reading one file of public field boundaries (a provider of the external
 * boundaries catalog): a GeoJSON FeatureCollection (`.geojson`, `.json`)
 * or a fiboa GeoParquet file (`.parquet`, `.geoparquet`), read with
 * hyparquet, whose GeoParquet support decodes the WKB geometry column
 * named in the file's `geo` metadata to GeoJSON.
 *
 * A file is one provider, named after the file without its extension.
 * Licence and attribution come from a sidecar `<name>.json` beside it
 * ({ "licence": ..., "attribution": ..., "title": ... }), else from the
 * file's own metadata: the collection's `metadata`/`fiboa` member of a
 * GeoJSON file, the `fiboa` key-value metadata of a GeoParquet file, or a
 * licence all its features agree on.
 *
 * Files that are not boundary data (a README, an index, a list of ids, a
 * GeoJSON file without polygons) read as null and are skipped.
 */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export type BoundaryGeometry =
  | { type: 'Polygon'; coordinates: number[][][] }
  | { type: 'MultiPolygon'; coordinates: number[][][][] };

/** One boundary of a provider: its id in the provider, geometry, bbox and the properties it came with. */
export interface ProviderBoundary {
  id: string;
  geometry: BoundaryGeometry;
  bbox: [number, number, number, number];
  properties: Record<string, unknown>;
}

export interface ProviderFile {
  /** The file name without its extension. */
  name: string;
  format: 'geojson' | 'geoparquet';
  title: string;
  licence: string | null;
  attribution: string | null;
  boundaries: ProviderBoundary[];
}

export const BOUNDARY_FILE_EXTENSIONS = ['.geojson', '.json', '.parquet', '.geoparquet'];

interface Meta {
  title?: string;
  licence?: string;
  attribution?: string;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** Licence and attribution from a metadata object (sidecar, GeoJSON `metadata`, fiboa collection). */
function metaOf(o: unknown): Meta {
  if (!o || typeof o !== 'object') return {};
  const m = o as Record<string, unknown>;
  const providers = Array.isArray(m.providers)
    ? m.providers
        .map((p) => text((p as Record<string, unknown>)?.name))
        .filter((p): p is string => p !== undefined)
    : [];
  return {
    title: text(m.title) ?? text(m.name),
    licence: text(m.licence) ?? text(m.license),
    attribution: text(m.attribution) ?? (providers.length ? providers.join(', ') : text(m.origin)),
  };
}

function bboxOfGeometry(g: BoundaryGeometry): [number, number, number, number] {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  for (const p of polys)
    for (const ring of p)
      for (const [x, y] of ring) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
  return [minX, minY, maxX, maxY];
}

function asBoundary(
  id: unknown,
  geometry: unknown,
  properties: Record<string, unknown>,
  fallbackId: number,
): ProviderBoundary | null {
  const g = geometry as { type?: string; coordinates?: unknown } | null;
  if (!g || (g.type !== 'Polygon' && g.type !== 'MultiPolygon') || !Array.isArray(g.coordinates)) return null;
  const geom = g as BoundaryGeometry;
  const bbox = bboxOfGeometry(geom);
  if (!bbox.every(Number.isFinite)) return null;
  const localId = id ?? properties.id;
  return {
    id: typeof localId === 'string' || typeof localId === 'number' ? String(localId) : String(fallbackId),
    geometry: geom,
    bbox,
    properties,
  };
}

/** The one licence every feature names, if they agree. */
function sharedLicence(list: ProviderBoundary[]): string | undefined {
  let seen: string | undefined;
  for (const b of list) {
    const l = text(b.properties.licence) ?? text(b.properties.license);
    if (!l || (seen !== undefined && l !== seen)) return undefined;
    seen = l;
  }
  return seen;
}

async function readGeojson(path: string): Promise<{ boundaries: ProviderBoundary[]; meta: Meta } | null> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return null;
  }
  const fc = doc as { type?: string; features?: unknown[]; metadata?: unknown; fiboa?: unknown };
  if (fc?.type !== 'FeatureCollection' || !Array.isArray(fc.features)) return null;
  const boundaries: ProviderBoundary[] = [];
  fc.features.forEach((f, i) => {
    const feat = f as { id?: unknown; geometry?: unknown; properties?: Record<string, unknown> | null };
    const b = asBoundary(feat?.id, feat?.geometry, feat?.properties ?? {}, i);
    if (b) boundaries.push(b);
  });
  if (boundaries.length === 0) return null;
  const meta = { ...metaOf(fc.fiboa), ...stripUndefined(metaOf(fc.metadata)) };
  return { boundaries, meta };
}

const stripUndefined = (m: Meta): Meta =>
  Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as Meta;

async function readGeoparquet(path: string): Promise<{ boundaries: ProviderBoundary[]; meta: Meta } | null> {
  let file: Awaited<ReturnType<typeof asyncBufferFromFile>>;
  let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
  try {
    file = await asyncBufferFromFile(path);
    metadata = await parquetMetadataAsync(file);
  } catch {
    return null;
  }
  const kv = metadata.key_value_metadata ?? [];
  const geoText = kv.find((e) => e.key === 'geo')?.value;
  if (!geoText) return null;
  let geo: { primary_column?: string; columns?: Record<string, unknown> };
  try {
    geo = JSON.parse(geoText);
  } catch {
    return null;
  }
  const column = geo.primary_column ?? Object.keys(geo.columns ?? {})[0];
  if (!column) return null;
  const rows = (await parquetReadObjects({ file, metadata, compressors, geoparquet: true })) as Record<
    string,
    unknown
  >[];
  const boundaries: ProviderBoundary[] = [];
  rows.forEach((row, i) => {
    const { [column]: geometry, ...rest } = row;
    const properties: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(rest)) properties[k] = typeof v === 'bigint' ? Number(v) : v;
    const b = asBoundary(properties.id, geometry, properties, i);
    if (b) boundaries.push(b);
  });
  if (boundaries.length === 0) return null;
  let fiboa: unknown;
  try {
    fiboa = JSON.parse(kv.find((e) => e.key === 'fiboa')?.value ?? 'null');
  } catch {
    fiboa = null;
  }
  return { boundaries, meta: metaOf(fiboa) };
}

/**
 * Reads a provider file; null when it is not boundary data. `sidecar` is
 * the parsed `<name>.json` beside it, when there is one.
 */
export async function readProviderFile(path: string, sidecar?: unknown): Promise<ProviderFile | null> {
  const ext = extname(path).toLowerCase();
  if (!BOUNDARY_FILE_EXTENSIONS.includes(ext)) return null;
  const isParquet = ext === '.parquet' || ext === '.geoparquet';
  const read = isParquet ? await readGeoparquet(path) : await readGeojson(path);
  if (!read) return null;
  const name = basename(path, extname(path));
  const meta = { ...read.meta, ...stripUndefined(metaOf(sidecar)) };
  return {
    name,
    format: isParquet ? 'geoparquet' : 'geojson',
    title: meta.title ?? name,
    licence: meta.licence ?? sharedLicence(read.boundaries) ?? null,
    attribution: meta.attribution ?? null,
    boundaries: read.boundaries,
  };
}
