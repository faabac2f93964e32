/**
 * Mapbox Vector Tiles (MVT 2.1) of a company's fields and path plans.
 *
 * A tile index (geojson-vt) is made once from all the features of a layer
 * and kept in a `TileIndexCache` under a fingerprint of the data it was made
 * from; a tile is cut from the index (geojson-vt keeps cut tiles), filtered
 * by feature properties and encoded with vt-pbf. Filters apply to the cut
 * tile, so one index serves every filter.
 */
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import GeoJSONVT, { type LegacyFeature } from 'geojson-vt';
import vtpbf from 'vt-pbf';

export const MVT_MEDIA_TYPE = 'application/vnd.mapbox-vector-tile';
/** Deepest zoom tiles are cut at; clients overzoom beyond it. */
export const MAX_TILE_ZOOM = 22;
export const TILE_EXTENT = 4096;

export type TileProperties = Record<string, string | number | boolean | null>;

export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

export interface TileLayerIndex {
  /** Number of features the index holds. */
  readonly size: number;
  /** The features of a tile whose properties pass `keep` (null: no feature there). */
  features(address: TileAddress, keep?: (p: TileProperties) => boolean): LegacyFeature[];
}

/** A tile index over `features` (WGS84 GeoJSON). */
export function tileLayerIndex(features: Feature<Geometry, TileProperties>[]): TileLayerIndex {
  const collection: FeatureCollection = { type: 'FeatureCollection', features };
  const index = new GeoJSONVT(collection, {
    maxZoom: MAX_TILE_ZOOM,
    indexMaxZoom: 5,
    indexMaxPoints: 100_000,
    tolerance: 3,
    extent: TILE_EXTENT,
    buffer: 64,
  });
  return {
    size: features.length,
    features({ z, x, y }, keep) {
      const tile = index.getTile(z, x, y);
      if (!tile) return [];
      return keep ? tile.features.filter((f) => keep((f.tags ?? {}) as TileProperties)) : tile.features;
    },
  };
}

/** The MVT bytes of named layers (a layer without features is left out; no layers: an empty tile). */
export function encodeTile(layers: Record<string, LegacyFeature[]>): Uint8Array {
  const present = Object.fromEntries(
    Object.entries(layers)
      .filter(([, fs]) => fs.length > 0)
      .map(([name, fs]) => [name, { features: fs }]),
  );
  return vtpbf.fromGeojsonVt(present, { version: 2, extent: TILE_EXTENT });
}

/** Whether x and y exist at zoom z (0 <= x, y < 2^z). */
export function tileExists({ z, x, y }: TileAddress): boolean {
  const n = 2 ** z;
  return x < n && y < n;
}

const lonToX = (lon: number, n: number) => ((lon + 180) / 360) * n;
const latToY = (lat: number, n: number) => {
  const r = (Math.max(-85.05112878, Math.min(85.05112878, lat)) * Math.PI) / 180;
  return ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n;
};

/** The tile at the deepest zoom (<= maxZoom) that holds the whole bounding box [west, south, east, north]. */
export function tileCovering(bbox: [number, number, number, number], maxZoom = 18): TileAddress {
  const [w, s, e, nth] = bbox;
  for (let z = maxZoom; z > 0; z--) {
    const n = 2 ** z;
    const x0 = Math.floor(lonToX(w, n));
    const x1 = Math.floor(lonToX(e, n));
    const y0 = Math.floor(latToY(nth, n));
    const y1 = Math.floor(latToY(s, n));
    if (x0 === x1 && y0 === y1) return { z, x: Math.min(x0, n - 1), y: Math.min(y0, n - 1) };
  }
  return { z: 0, x: 0, y: 0 };
}

/** [west, south, east, north] of coordinate rings. */
export function ringsBbox(
  rings: readonly (readonly (readonly number[])[])[],
): [number, number, number, number] {
  let w = Infinity;
  let s = Infinity;
  let e = -Infinity;
  let n = -Infinity;
  for (const ring of rings) {
    for (const [lon, lat] of ring) {
      if (lon < w) w = lon;
      if (lon > e) e = lon;
      if (lat < s) s = lat;
      if (lat > n) n = lat;
    }
  }
  return [w, s, e, n];
}

/**
 * Tile indexes by key (a company and layer), each valid for one fingerprint
 * of the data it was made from: a lookup with another fingerprint makes the
 * index again. At most `capacity` indexes are kept (least recently used
 * go first). Concurrent lookups for one key and fingerprint share one build.
 */
export class TileIndexCache {
  private readonly entries = new Map<string, { fingerprint: string; index: Promise<TileLayerIndex> }>();
  private readonly capacity: number;
  /** Indexes made so far (a measure of cache misses). */
  builds = 0;

  constructor(capacity = 64) {
    this.capacity = capacity;
  }

  async get(key: string, fingerprint: string, build: () => Promise<TileLayerIndex>): Promise<TileLayerIndex> {
    const hit = this.entries.get(key);
    this.entries.delete(key);
    if (hit && hit.fingerprint === fingerprint) {
      this.entries.set(key, hit);
      return hit.index;
    }
    this.builds++;
    const index = build();
    const entry = { fingerprint, index };
    this.entries.set(key, entry);
    // A failed build is not kept.
    index.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return index;
  }

  /** Forgets the index of `key` (or every key starting with `prefix` when it ends with ':'). */
  forget(keyOrPrefix: string): void {
    for (const k of [...this.entries.keys()]) {
      if (k === keyOrPrefix || (keyOrPrefix.endsWith(':') && k.startsWith(keyOrPrefix)))
        this.entries.delete(k);
    }
  }
}

/** Encoded tiles by key, least recently used dropped first once over `maxBytes` in all. */
export class TileBytesCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;
  private readonly maxBytes: number;

  constructor(maxBytes = 64 * 1024 * 1024) {
    this.maxBytes = maxBytes;
  }

  get(key: string, make: () => Uint8Array): Uint8Array {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const made = make();
    if (made.byteLength > this.maxBytes) return made;
    this.entries.set(key, made);
    this.bytes += made.byteLength;
    while (this.bytes > this.maxBytes) {
      const [k, v] = this.entries.entries().next().value as [string, Uint8Array];
      this.entries.delete(k);
      this.bytes -= v.byteLength;
    }
    return made;
  }
}
