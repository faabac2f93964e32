/**
 * The external boundaries catalog: public field boundaries of the
 * providers in a directory (TRAMLINE_BOUNDARY_SOURCES), read once at start
 * (integrations/boundary-files.ts) and indexed by bounding box in one
 * static spatial index (flatbush), so a box query costs a tree walk and the
 * features it finds.
 *
 *   const catalog = await loadBoundaryCatalog('/srv/boundaries');
 *   catalog.providers();                                   what each file offers
 *   catalog.search([9.8, 56.4, 9.95, 56.5], { providers: ['fiboa-dk'], limit: 100 });
 *   catalog.coverage([9.8, 56.4, 9.95, 56.5]);             which providers have boundaries there
 *   catalog.get('fiboa-dk', 'fiboa-dk:1-0');               one boundary
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import Flatbush from 'flatbush';
import {
  BOUNDARY_FILE_EXTENSIONS,
  type ProviderBoundary,
  type ProviderFile,
  readProviderFile,
} from './boundary-files.ts';

export type Bbox = [number, number, number, number];

export interface BoundaryProviderInfo {
  /** The file name without its extension; what `providers=` names. */
  providerId: string;
  title: string;
  format: 'geojson' | 'geoparquet';
  licence: string | null;
  attribution: string | null;
  boundaryCount: number;
  /** [minLon, minLat, maxLon, maxLat] of all its boundaries. */
  bbox: Bbox;
}

export interface CatalogBoundary extends ProviderBoundary {
  provider: BoundaryProviderInfo;
}

export interface BoundarySearch {
  /** The page, in provider then file order. */
  boundaries: CatalogBoundary[];
  /** Boundaries in the box over all pages. */
  total: number;
}

export interface BoundaryCatalog {
  providers(): BoundaryProviderInfo[];
  provider(providerId: string): BoundaryProviderInfo | undefined;
  search(
    bbox: Bbox,
    opts?: { providers?: readonly string[]; offset?: number; limit?: number },
  ): BoundarySearch;
  coverage(bbox: Bbox): { provider: BoundaryProviderInfo; boundaryCount: number }[];
  get(providerId: string, boundaryId: string): CatalogBoundary | undefined;
}

/** A catalog of the providers given (tests, and the directory loader below). */
export function createBoundaryCatalog(files: readonly ProviderFile[]): BoundaryCatalog {
  const infos: BoundaryProviderInfo[] = [];
  const byName = new Map<string, { info: BoundaryProviderInfo; byId: Map<string, CatalogBoundary> }>();
  const all: CatalogBoundary[] = [];
  for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    if (byName.has(f.name)) continue;
    const bbox: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
    for (const b of f.boundaries) {
      bbox[0] = Math.min(bbox[0], b.bbox[0]);
      bbox[1] = Math.min(bbox[1], b.bbox[1]);
      bbox[2] = Math.max(bbox[2], b.bbox[2]);
      bbox[3] = Math.max(bbox[3], b.bbox[3]);
    }
    const info: BoundaryProviderInfo = {
      providerId: f.name,
      title: f.title,
      format: f.format,
      licence: f.licence,
      attribution: f.attribution,
      boundaryCount: f.boundaries.length,
      bbox,
    };
    const byId = new Map<string, CatalogBoundary>();
    for (const b of f.boundaries) {
      const cb = { ...b, provider: info };
      if (!byId.has(b.id)) byId.set(b.id, cb);
      all.push(cb);
    }
    infos.push(info);
    byName.set(f.name, { info, byId });
  }
  const index = new Flatbush(Math.max(all.length, 1));
  for (const b of all) index.add(b.bbox[0], b.bbox[1], b.bbox[2], b.bbox[3]);
  if (all.length === 0) index.add(0, 0, 0, 0);
  index.finish();

  const found = (bbox: Bbox): CatalogBoundary[] =>
    index
      .search(bbox[0], bbox[1], bbox[2], bbox[3])
      .filter((i) => i < all.length)
      .sort((a, b) => a - b)
      .map((i) => all[i]!);

  return {
    providers: () => infos,
    provider: (id) => byName.get(id)?.info,
    search(bbox, opts = {}) {
      const wanted = opts.providers?.length ? new Set(opts.providers) : undefined;
      const hits = found(bbox).filter((b) => !wanted || wanted.has(b.provider.providerId));
      const offset = opts.offset ?? 0;
      const limit = opts.limit ?? 100;
      return { boundaries: hits.slice(offset, offset + limit), total: hits.length };
    },
    coverage(bbox) {
      const counts = new Map<BoundaryProviderInfo, number>();
      for (const b of found(bbox)) counts.set(b.provider, (counts.get(b.provider) ?? 0) + 1);
      return infos.filter((p) => counts.has(p)).map((p) => ({ provider: p, boundaryCount: counts.get(p)! }));
    },
    get: (providerId, boundaryId) => byName.get(providerId)?.byId.get(boundaryId),
  };
}

/**
 * Reads every provider file of a directory (not its subdirectories). A
 * `<name>.json` beside a `<name>.<ext>` data file is that file's sidecar;
 * files that are not boundary data are skipped. A directory that does not
 * exist gives an empty catalog.
 */
export async function loadBoundaryCatalog(dir: string | undefined): Promise<BoundaryCatalog> {
  if (!dir) return createBoundaryCatalog([]);
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  } catch {
    return createBoundaryCatalog([]);
  }
  const stem = (n: string) => n.slice(0, n.length - extname(n).length);
  const dataStems = new Set(
    names
      .filter((n) => BOUNDARY_FILE_EXTENSIONS.includes(extname(n).toLowerCase()) && extname(n) !== '.json')
      .map(stem),
  );
  const files: ProviderFile[] = [];
  for (const n of names) {
    const ext = extname(n).toLowerCase();
    if (!BOUNDARY_FILE_EXTENSIONS.includes(ext)) continue;
    if (ext === '.json' && dataStems.has(stem(n))) continue; // a sidecar
    let sidecar: unknown;
    if (ext !== '.json' && names.includes(`${stem(n)}.json`)) {
      try {
        sidecar = JSON.parse(await readFile(join(dir, `${stem(n)}.json`), 'utf8'));
      } catch {
        sidecar = undefined;
      }
    }
    const f = await readProviderFile(join(dir, n), sidecar);
    if (f) files.push(f);
  }
  return createBoundaryCatalog(files);
}
