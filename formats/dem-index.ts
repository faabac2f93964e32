/**
 * The DEM files of a directory (`*.tif`, `*.tiff`, also in subdirectories),
 * indexed by their WGS84 extent. The index is built at the first lookup
 * (or by `refresh`) and kept up to date: every lookup lists the directory
 * and re-reads the header of a file whose size or modification time
 * changed; removed files leave the index. A file that is not a usable DEM
 * (no GeoTIFF, unsupported CRS) is left out and named in `problems`.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type BBox, DemError, type DemInfo, readDemInfo } from './dem-geotiff.ts';

interface Entry {
  mtimeMs: number;
  size: number;
  info?: DemInfo;
  problem?: string;
}

export interface DemIndex {
  readonly dir: string;
  /** Re-reads what changed; the usable DEMs. */
  refresh(): Promise<DemInfo[]>;
  /**
   * The DEMs for a field's extent: the finest one containing it whole;
   * else all that overlap it, finest first (they are sampled in that
   * order); empty when none does.
   */
  find(bbox: BBox): Promise<DemInfo[]>;
  /** Files left out, with the reason. */
  problems(): { path: string; problem: string }[];
}

const DEM_FILE = /\.tiff?$/i;

async function listFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { recursive: true })) as string[];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new DemError(`The DEM directory ${dir} cannot be read (${(e as Error).message}).`);
  }
  return names.filter((n) => DEM_FILE.test(n)).map((n) => join(dir, n));
}

const contains = (outer: BBox, inner: BBox) =>
  outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] >= inner[2] && outer[3] >= inner[3];
const overlaps = (a: BBox, b: BBox) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];

export function createDemIndex(dir: string): DemIndex {
  const entries = new Map<string, Entry>();
  let pending: Promise<DemInfo[]> | undefined;

  async function scan(): Promise<DemInfo[]> {
    const files = await listFiles(dir);
    const seen = new Set(files);
    for (const path of entries.keys()) if (!seen.has(path)) entries.delete(path);
    await Promise.all(
      files.map(async (path) => {
        let s: Awaited<ReturnType<typeof stat>>;
        try {
          s = await stat(path);
        } catch {
          entries.delete(path);
          return;
        }
        if (!s.isFile()) return;
        const old = entries.get(path);
        if (old && old.mtimeMs === s.mtimeMs && old.size === s.size) return;
        const entry: Entry = { mtimeMs: s.mtimeMs, size: s.size };
        try {
          entry.info = await readDemInfo(path);
        } catch (e) {
          entry.problem = (e as Error).message;
        }
        entries.set(path, entry);
      }),
    );
    return [...entries.values()].flatMap((e) => (e.info ? [e.info] : []));
  }

  const refresh = (): Promise<DemInfo[]> => {
    // Concurrent lookups share one scan.
    pending ??= scan().finally(() => {
      pending = undefined;
    });
    return pending;
  };

  return {
    dir,
    refresh,
    async find(bbox) {
      const dems = (await refresh()).sort((a, b) => a.cellSize - b.cellSize || a.path.localeCompare(b.path));
      const whole = dems.find((d) => contains(d.bbox, bbox));
      if (whole) return [whole];
      return dems.filter((d) => overlaps(d.bbox, bbox));
    },
    problems: () =>
      [...entries.entries()].flatMap(([path, e]) => (e.problem ? [{ path, problem: e.problem }] : [])),
  };
}

/** WGS84 extent of a GeoJSON geometry, Feature or FeatureCollection (every [lon, lat] in its coordinates). */
export function geoJsonBBox(geojson: unknown): BBox {
  const b: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  const walk = (v: unknown): void => {
    if (!Array.isArray(v)) return;
    if (v.length >= 2 && typeof v[0] === 'number' && typeof v[1] === 'number') {
      if (v[0] < b[0]) b[0] = v[0];
      if (v[1] < b[1]) b[1] = v[1];
      if (v[0] > b[2]) b[2] = v[0];
      if (v[1] > b[3]) b[3] = v[1];
      return;
    }
    for (const x of v) walk(x);
  };
  const visit = (o: unknown): void => {
    if (!o || typeof o !== 'object') return;
    const g = o as { type?: string; coordinates?: unknown; geometry?: unknown; features?: unknown[] };
    if (g.type === 'FeatureCollection') for (const f of g.features ?? []) visit(f);
    else if (g.type === 'Feature') visit(g.geometry);
    else walk(g.coordinates);
  };
  visit(geojson);
  return b;
}
