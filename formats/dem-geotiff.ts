/**
 * Digital elevation models (DEM) from GeoTIFF and Cloud Optimized GeoTIFF
 * files, read with the `geotiff` package.
 *
 * - The coordinate reference system comes from the file's GeoKeys:
 *   ProjectedCSTypeGeoKey or GeographicTypeGeoKey, an EPSG code of
 *   WGS 84 (4326), Web Mercator (3857), WGS 84 / UTM (32601-32660 north,
 *   32701-32760 south) or ETRS89 / UTM (25828-25838). Other systems are
 *   refused with DemError naming the code.
 * - The grid: ModelPixelScale with ModelTiepoint, or ModelTransformation
 *   without rotation; PixelIsArea (cell corners) or PixelIsPoint (cell
 *   centres) as GTRasterTypeGeoKey says.
 * - The first band holds the elevation [m]; cells equal to the GDAL_NODATA
 *   value, and non-finite cells, are unknown.
 * - Sampling is bilinear between cell centres; a point with an unknown cell
 *   among its four neighbours, or outside the grid, is unknown (NaN).
 *
 * `readDemInfo` reads only the header (the extent, for the index of a DEM
 * directory); `openDemWindow` reads the cells of a window around a field
 * (a COG is read tile by tile, so only the tiles it needs).
 */
import { statSync } from 'node:fs';
import { fromArrayBuffer, fromFile, type GeoTIFFImage } from 'geotiff';
import proj4 from 'proj4';
import type { ElevationSampler } from '../core/terrain/slopes.ts';

export class DemError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemError';
  }
}

/** WGS84 extent [minLon, minLat, maxLon, maxLat] in degrees. */
export type BBox = [number, number, number, number];

export interface DemInfo {
  path: string;
  /** EPSG code of the grid's coordinate reference system. */
  epsg: number;
  width: number;
  height: number;
  /** Extent of the cells in WGS84. */
  bbox: BBox;
  /** Cell size [m on the ground, about]. */
  cellSize: number;
}

const SUPPORTED =
  'EPSG:4326, EPSG:3857, EPSG:32601-32660, EPSG:32701-32760 (WGS 84 / UTM) and EPSG:25828-25838 (ETRS89 / UTM)';

/** The proj4 definition of an EPSG code, or undefined when it is not one of the supported systems. */
export function proj4Definition(epsg: number): string | undefined {
  if (epsg === 4326) return '+proj=longlat +datum=WGS84 +no_defs';
  if (epsg === 3857)
    return '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs';
  if (epsg >= 32601 && epsg <= 32660) return `+proj=utm +zone=${epsg - 32600} +datum=WGS84 +units=m +no_defs`;
  if (epsg >= 32701 && epsg <= 32760)
    return `+proj=utm +zone=${epsg - 32700} +south +datum=WGS84 +units=m +no_defs`;
  if (epsg >= 25828 && epsg <= 25838)
    return `+proj=utm +zone=${epsg - 25800} +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs`;
  return undefined;
}

/** Grid geometry: CRS coordinates of a continuous cell position (col, row measured from the centre of cell 0,0). */
interface Grid {
  epsg: number;
  /** Model X of the centre of cell (0, 0), and the step per column and per row. */
  x0: number;
  y0: number;
  dx: number;
  dy: number;
  width: number;
  height: number;
  /** To CRS coordinates from WGS84 lon/lat. */
  fromLonLat: (lon: number, lat: number) => [number, number];
  toLonLat: (x: number, y: number) => [number, number];
  geographic: boolean;
}

function gridOf(image: GeoTIFFImage, path: string): Grid {
  const keys = image.getGeoKeys() ?? {};
  const code = Number(keys.ProjectedCSTypeGeoKey ?? keys.GeographicTypeGeoKey ?? Number.NaN);
  if (!Number.isInteger(code) || code === 32767) {
    throw new DemError(
      `${path}: the GeoTIFF names no EPSG code in ProjectedCSTypeGeoKey or GeographicTypeGeoKey; supported: ${SUPPORTED}.`,
    );
  }
  const def = proj4Definition(code);
  if (!def) throw new DemError(`${path}: EPSG:${code} is not supported for DEMs; supported: ${SUPPORTED}.`);
  const fd = image.getFileDirectory();
  const transform = fd.getValue('ModelTransformation') as number[] | undefined;
  let x0: number;
  let y0: number;
  let dx: number;
  let dy: number;
  if (transform && transform.length >= 8) {
    if (transform[1] !== 0 || transform[4] !== 0) {
      throw new DemError(`${path}: a rotated grid (ModelTransformation with rotation) is not supported.`);
    }
    [dx, , , x0, , dy, , y0] = transform;
  } else {
    const scale = fd.getValue('ModelPixelScale') as number[] | undefined;
    const tie = fd.getValue('ModelTiepoint') as number[] | undefined;
    if (!scale || !tie || tie.length < 6) {
      throw new DemError(`${path}: the GeoTIFF has no georeferencing (ModelPixelScale and ModelTiepoint).`);
    }
    dx = scale[0];
    dy = -scale[1];
    x0 = tie[3] - tie[0] * dx;
    y0 = tie[4] - tie[1] * dy;
  }
  if (!(Math.abs(dx) > 0) || !(Math.abs(dy) > 0))
    throw new DemError(`${path}: the GeoTIFF's cell size is zero.`);
  // PixelIsArea (1, the default): the model point is the cell's corner; the centre is half a cell on.
  if (Number(keys.GTRasterTypeGeoKey ?? 1) !== 2) {
    x0 += dx / 2;
    y0 += dy / 2;
  }
  const geographic = code === 4326;
  const converter = geographic ? undefined : proj4('WGS84', def);
  return {
    epsg: code,
    x0,
    y0,
    dx,
    dy,
    width: image.getWidth(),
    height: image.getHeight(),
    geographic,
    fromLonLat: converter
      ? (lon, lat) => converter.forward([lon, lat]) as [number, number]
      : (lon, lat) => [lon, lat],
    toLonLat: converter ? (x, y) => converter.inverse([x, y]) as [number, number] : (x, y) => [x, y],
  };
}

/** WGS84 extent of the cells (their outer edges), from points along the grid's border. */
function gridBBox(g: Grid): BBox {
  const b: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  const n = 16;
  for (let i = 0; i <= n; i++) {
    const t = -0.5 + (g.width * i) / n;
    const u = -0.5 + (g.height * i) / n;
    for (const [c, r] of [
      [t, -0.5],
      [t, g.height - 0.5],
      [-0.5, u],
      [g.width - 0.5, u],
    ]) {
      const [lon, lat] = g.toLonLat(g.x0 + c * g.dx, g.y0 + r * g.dy);
      if (lon < b[0]) b[0] = lon;
      if (lat < b[1]) b[1] = lat;
      if (lon > b[2]) b[2] = lon;
      if (lat > b[3]) b[3] = lat;
    }
  }
  return b;
}

function cellSizeMetres(g: Grid, bbox: BBox): number {
  const lat = ((bbox[1] + bbox[3]) / 2) * (Math.PI / 180);
  // Web Mercator metres are 1 / cos(lat) ground metres.
  if (g.epsg === 3857) return Math.min(Math.abs(g.dx), Math.abs(g.dy)) * Math.cos(lat);
  if (!g.geographic) return Math.min(Math.abs(g.dx), Math.abs(g.dy));
  const m = 111_195;
  return Math.min(Math.abs(g.dx) * m * Math.cos(lat), Math.abs(g.dy) * m);
}

/** The first image of a GeoTIFF file (a path), or of its bytes; `path` names it in errors. */
async function openImage(
  path: string,
  bytes?: ArrayBuffer,
): Promise<{ close(): Promise<void>; image: GeoTIFFImage }> {
  let tiff: Awaited<ReturnType<typeof fromFile>>;
  try {
    tiff = bytes ? await fromArrayBuffer(bytes) : await fromFile(path);
  } catch (e) {
    throw new DemError(`${path}: not a readable GeoTIFF (${(e as Error).message}).`);
  }
  try {
    return { image: await tiff.getImage(0), close: async () => void (await tiff.close()) };
  } catch (e) {
    await tiff.close();
    throw new DemError(`${path}: not a readable GeoTIFF (${(e as Error).message}).`);
  }
}

/** The header of a DEM file: its CRS, size and WGS84 extent. */
export async function readDemInfo(path: string): Promise<DemInfo> {
  const { image, close } = await openImage(path);
  try {
    const g = gridOf(image, path);
    const bbox = gridBBox(g);
    return { path, epsg: g.epsg, width: g.width, height: g.height, bbox, cellSize: cellSizeMetres(g, bbox) };
  } finally {
    await close();
  }
}

/**
 * A DEM from its bytes (an upload, a stored raster), read whole: its
 * header and its cells. `name` names it in errors. A file of more than
 * `maxCells` cells is refused (DemError).
 */
export async function readDemBytes(
  bytes: Uint8Array,
  name: string,
  maxCells = WHOLE_CELLS,
): Promise<{ info: DemInfo; raster: DemRaster }> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const { image, close } = await openImage(name, buffer);
  try {
    const g = gridOf(image, name);
    if (g.width * g.height > maxCells)
      throw new DemError(
        `${name}: ${g.width} x ${g.height} cells; at most ${maxCells} are accepted. Clip the DEM to the field first.`,
      );
    const bbox = gridBBox(g);
    const cellSize = cellSizeMetres(g, bbox);
    const cells = unknownToNaN(await readCells(image, name), image.getGDALNoData());
    return {
      info: { path: name, epsg: g.epsg, width: g.width, height: g.height, bbox, cellSize },
      raster: raster(g, cellSize, cells, 0, 0, g.width, g.height),
    };
  } finally {
    await close();
  }
}

/**
 * Bands of a georeferenced GeoTIFF from its bytes (a multi-band image),
 * each as a grid of cells with the file's georeferencing (`bands`:
 * 0-based sample indexes). Refused (DemError) as readDemBytes refuses, and
 * for a band the file does not have.
 */
export async function readGeoTiffBands(
  bytes: Uint8Array,
  name: string,
  bands: readonly number[],
  maxCells = WHOLE_CELLS,
): Promise<DemRaster[]> {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const { image, close } = await openImage(name, buffer);
  try {
    const g = gridOf(image, name);
    if (g.width * g.height > maxCells)
      throw new DemError(`${name}: ${g.width} x ${g.height} cells; at most ${maxCells} are accepted.`);
    const count = image.getSamplesPerPixel();
    const missing = bands.find((b) => !(Number.isInteger(b) && b >= 0 && b < count));
    if (missing !== undefined)
      throw new DemError(
        `${name}: has ${count} band(s) (1 to ${count}); band ${missing + 1} is not one of them.`,
      );
    const cellSize = cellSizeMetres(g, gridBBox(g));
    let read: ArrayLike<number>[];
    try {
      read = (await image.readRasters({ samples: [...bands] })) as unknown as ArrayLike<number>[];
    } catch (e) {
      throw new DemError(`${name}: the cells cannot be read (${(e as Error).message}).`);
    }
    return bands.map((_, i) =>
      raster(
        g,
        cellSize,
        unknownToNaN(Float32Array.from(read[i]), image.getGDALNoData()),
        0,
        0,
        g.width,
        g.height,
      ),
    );
  } finally {
    await close();
  }
}

/** Cells of a DEM read into memory, with a bilinear sampler. */
export interface DemRaster {
  epsg: number;
  /** Cell size [m on the ground, about]. */
  cellSize: number;
  /** Elevation [m] at WGS84 lon/lat; NaN outside the cells read or where a neighbouring cell is unknown. */
  sample(lon: number, lat: number): number;
  /** The same at CRS coordinates of the DEM. */
  sampleCrs(x: number, y: number): number;
  /** WGS84 to the DEM's CRS. */
  fromLonLat(lon: number, lat: number): [number, number];
  /** The DEM's CRS to WGS84 [lon, lat]. */
  toLonLat(x: number, y: number): [number, number];
  /** The cells read, row by row (NaN: unknown), `width` x `height`. */
  readonly cells: Float32Array;
  readonly width: number;
  readonly height: number;
  /** CRS coordinates of the centre of the first cell read, and the step per column and per row. */
  readonly x0: number;
  readonly y0: number;
  readonly dx: number;
  readonly dy: number;
}

/** The first band's cells (of a window). */
async function readCells(image: GeoTIFFImage, path: string, window?: number[]): Promise<ArrayLike<number>> {
  try {
    return (await image.readRasters({
      ...(window ? { window } : {}),
      samples: [0],
      interleave: true,
    })) as ArrayLike<number>;
  } catch (e) {
    throw new DemError(`${path}: the cells cannot be read (${(e as Error).message}).`);
  }
}

/** A DEM's cells with NaN for its no-data value. */
function unknownToNaN(read: ArrayLike<number>, nodata: number | null): Float32Array {
  const cells: Float32Array = read instanceof Float32Array ? read : Float32Array.from(read);
  // GDAL compares after casting to the band's type; a Float32 band holds the float32-rounded value.
  const nd = nodata === null || nodata === undefined ? Number.NaN : Math.fround(nodata);
  for (let i = 0; i < cells.length; i++) {
    const v = cells[i];
    if (v === nd || v === nodata || !Number.isFinite(v)) cells[i] = Number.NaN;
  }
  return cells;
}

interface Cached {
  mtimeMs: number;
  size: number;
  g: Grid;
  cellSize: number;
  cells: Float32Array;
}

/**
 * Whole DEM files (up to WHOLE_CELLS cells) read in this thread, most
 * recently used last, up to CACHE_BYTES of cells: the plans of a region
 * share their DEM tiles, and a cached tile costs no reading.
 */
const cache = new Map<string, Cached>();
const WHOLE_CELLS = 4 * 1024 * 1024;
const CACHE_BYTES = 64 * 1024 * 1024;

function remember(path: string, entry: Cached): void {
  cache.delete(path);
  cache.set(path, entry);
  let bytes = 0;
  for (const e of cache.values()) bytes += e.cells.byteLength;
  for (const [k, e] of cache) {
    if (bytes <= CACHE_BYTES || k === path) break;
    cache.delete(k);
    bytes -= e.cells.byteLength;
  }
}

function raster(
  g: Grid,
  cellSize: number,
  cells: Float32Array,
  c0: number,
  r0: number,
  w: number,
  h: number,
): DemRaster {
  const x0 = g.x0 + c0 * g.dx;
  const y0 = g.y0 + r0 * g.dy;
  const sampleCrs = (x: number, y: number): number => {
    const c = (x - x0) / g.dx;
    const r = (y - y0) / g.dy;
    if (!(c >= 0 && r >= 0 && c <= w - 1 && r <= h - 1)) return Number.NaN;
    if (w === 1 || h === 1) return cells[Math.round(r) * w + Math.round(c)];
    const ci = Math.min(Math.floor(c), w - 2);
    const ri = Math.min(Math.floor(r), h - 2);
    const fc = c - ci;
    const fr = r - ri;
    const k = ri * w + ci;
    return (
      (cells[k] * (1 - fc) + cells[k + 1] * fc) * (1 - fr) +
      (cells[k + w] * (1 - fc) + cells[k + w + 1] * fc) * fr
    );
  };
  return {
    epsg: g.epsg,
    cellSize,
    sampleCrs,
    fromLonLat: g.fromLonLat,
    toLonLat: g.toLonLat,
    sample: (lon, lat) => {
      const [x, y] = g.fromLonLat(lon, lat);
      return sampleCrs(x, y);
    },
    cells,
    width: w,
    height: h,
    x0,
    y0,
    dx: g.dx,
    dy: g.dy,
  };
}

/**
 * The cells of `path` covering `bbox` (WGS84; the whole grid when
 * omitted), with `marginCells` cells more on each side for the gradient.
 * A file of up to `wholeCells` (default 4 Mi) cells is read whole once per thread and kept
 * (64 MB of cells per thread at most, least recently used given up
 * first; a changed file is read again); of larger files (COGs of whole
 * regions) only the window is read, tile by tile.
 */
export async function openDemWindow(
  path: string,
  bbox?: BBox,
  opts: { marginCells?: number; wholeCells?: number } = {},
): Promise<DemRaster> {
  const marginCells = opts.marginCells ?? 3;
  const wholeCells = opts.wholeCells ?? WHOLE_CELLS;
  let s: ReturnType<typeof statSync>;
  try {
    // A stat is microseconds: done at once rather than through the I/O threads (it runs on a planning thread).
    s = statSync(path);
  } catch (e) {
    throw new DemError(`${path}: cannot be read (${(e as Error).message}).`);
  }
  const hit = cache.get(path);
  if (hit && hit.mtimeMs === s.mtimeMs && hit.size === s.size && hit.g.width * hit.g.height <= wholeCells) {
    remember(path, hit);
    return raster(hit.g, hit.cellSize, hit.cells, 0, 0, hit.g.width, hit.g.height);
  }
  const { image, close } = await openImage(path);
  try {
    const g = gridOf(image, path);
    const cellSize = cellSizeMetres(g, gridBBox(g));
    if (g.width * g.height <= wholeCells) {
      const read = await readCells(image, path);
      const cells = unknownToNaN(read, image.getGDALNoData());
      remember(path, { mtimeMs: s.mtimeMs, size: s.size, g, cellSize, cells });
      return raster(g, cellSize, cells, 0, 0, g.width, g.height);
    }
    let c0 = 0;
    let r0 = 0;
    let c1 = g.width;
    let r1 = g.height;
    if (bbox) {
      let cMin = Infinity;
      let cMax = -Infinity;
      let rMin = Infinity;
      let rMax = -Infinity;
      const n = 8;
      for (let i = 0; i <= n; i++) {
        for (let j = 0; j <= n; j++) {
          const lon = bbox[0] + ((bbox[2] - bbox[0]) * i) / n;
          const lat = bbox[1] + ((bbox[3] - bbox[1]) * j) / n;
          const [x, y] = g.fromLonLat(lon, lat);
          const c = (x - g.x0) / g.dx;
          const r = (y - g.y0) / g.dy;
          cMin = Math.min(cMin, c);
          cMax = Math.max(cMax, c);
          rMin = Math.min(rMin, r);
          rMax = Math.max(rMax, r);
        }
      }
      c0 = Math.max(0, Math.floor(cMin) - marginCells);
      r0 = Math.max(0, Math.floor(rMin) - marginCells);
      c1 = Math.min(g.width, Math.ceil(cMax) + 1 + marginCells);
      r1 = Math.min(g.height, Math.ceil(rMax) + 1 + marginCells);
    }
    const w = Math.max(0, c1 - c0);
    const h = Math.max(0, r1 - r0);
    let cells: Float32Array = new Float32Array(0);
    if (w > 0 && h > 0) {
      const read = await readCells(image, path, [c0, r0, c1, r1]);
      cells = unknownToNaN(read, image.getGDALNoData());
    }
    return raster(g, cellSize, cells, c0, r0, w, h);
  } finally {
    await close();
  }
}

/**
 * A sampler in a plan's metric frame over the DEMs (the first that knows a
 * point answers). Frame points map to each DEM's cells through a lattice
 * of exactly projected nodes `latticeStep` metres apart over `extent` (the
 * plan's metric bounding box), interpolated bilinearly between them: over
 * 100 m the projections are linear to a tenth of a millimetre (UTM 500 km off its meridian), and a sample
 * costs a few multiplications instead of two projections. Outside the
 * lattice, points are projected exactly.
 *
 * `gradientAt` gives the gradient of the DEM's bilinear surface in the
 * cell holding the point (the cell's own slope), turned into the frame by
 * the lattice's derivatives: one look-up of four cells per sample.
 */
export function frameSampler(
  dems: readonly DemRaster[],
  toLonLat: (x: number, y: number) => [number, number],
  extent: { minX: number; minY: number; maxX: number; maxY: number },
  latticeStep = 100,
): ElevationSampler {
  if (!dems.length) throw new DemError('No DEM to sample.');
  const L = latticeStep;
  // The gradient's differences reach a few cells beyond the parts.
  const margin = 1 + Math.max(...dems.map((d) => d.cellSize)) * 4;
  const minX = extent.minX - margin;
  const minY = extent.minY - margin;
  const nx = Math.max(1, Math.ceil((extent.maxX + margin - minX) / L));
  const ny = Math.max(1, Math.ceil((extent.maxY + margin - minY) / L));
  const m = nx + 1;
  // Per DEM: the continuous cell position (column, row) of every lattice node.
  const lattices = dems.map((dem) => {
    const cs = new Float64Array(m * (ny + 1));
    const rs = new Float64Array(m * (ny + 1));
    for (let j = 0; j <= ny; j++) {
      for (let i = 0; i <= nx; i++) {
        const [lon, lat] = toLonLat(minX + i * L, minY + j * L);
        const [x, y] = dem.fromLonLat(lon, lat);
        cs[j * m + i] = (x - dem.x0) / dem.dx;
        rs[j * m + i] = (y - dem.y0) / dem.dy;
      }
    }
    // Per lattice cell, the affine map of the frame to cell positions through its centre:
    // c = A0 + A1 (x - x_i) + A2 (y - y_j), r = B0 + ... (the bilinear map's twist is below 1e-5 cells).
    const affine = new Float64Array(nx * ny * 6);
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++) {
        const n = j * m + i;
        const o = (j * nx + i) * 6;
        affine[o] = (cs[n] + cs[n + 1] + cs[n + m] + cs[n + m + 1]) / 4;
        affine[o + 1] = (cs[n + 1] - cs[n] + cs[n + m + 1] - cs[n + m]) / (2 * L);
        affine[o + 2] = (cs[n + m] - cs[n] + cs[n + m + 1] - cs[n + 1]) / (2 * L);
        affine[o + 3] = (rs[n] + rs[n + 1] + rs[n + m] + rs[n + m + 1]) / 4;
        affine[o + 4] = (rs[n + 1] - rs[n] + rs[n + m + 1] - rs[n + m]) / (2 * L);
        affine[o + 5] = (rs[n + m] - rs[n] + rs[n + m + 1] - rs[n + 1]) / (2 * L);
      }
    }
    return { cs, rs, affine };
  });
  const cellSize = Math.min(...dems.map((d) => d.cellSize));

  const elevationOne = (k: number, x: number, y: number): number => {
    const dem = dems[k];
    const u = (x - minX) / L;
    const v = (y - minY) / L;
    if (!(u >= 0 && v >= 0 && u < nx && v < ny)) {
      const [lon, lat] = toLonLat(x, y);
      return dem.sample(lon, lat);
    }
    const i = Math.floor(u);
    const j = Math.floor(v);
    const fu = u - i;
    const fv = v - j;
    const n = j * m + i;
    const { cs, rs } = lattices[k];
    const c =
      (cs[n] * (1 - fu) + cs[n + 1] * fu) * (1 - fv) + (cs[n + m] * (1 - fu) + cs[n + m + 1] * fu) * fv;
    const r =
      (rs[n] * (1 - fu) + rs[n + 1] * fu) * (1 - fv) + (rs[n + m] * (1 - fu) + rs[n + m + 1] * fu) * fv;
    return dem.sampleCrs(dem.x0 + c * dem.dx, dem.y0 + r * dem.dy);
  };
  const elevationAt = (x: number, y: number): number => {
    for (let k = 0; k < dems.length; k++) {
      const z = elevationOne(k, x, y);
      if (Number.isFinite(z)) return z;
    }
    return Number.NaN;
  };

  // One closure per DEM over its own locals: the per-sample path reads no object members.
  const gradientFor = (k: number) => {
    const A = lattices[k].affine;
    const { cells, width: w, height: h } = dems[k];
    return (x: number, y: number, out: Float64Array): boolean => {
      const u = (x - minX) / L;
      const v = (y - minY) / L;
      if (!(u >= 0 && v >= 0 && u < nx && v < ny)) {
        // Off the lattice: central differences over exact projections.
        const d = cellSize;
        const z = (p: number, q: number) => elevationOne(k, p, q);
        out[0] = z(x, y);
        out[1] = (z(x + d, y) - z(x - d, y)) / (2 * d);
        out[2] = (z(x, y + d) - z(x, y - d)) / (2 * d);
        return Number.isFinite(out[0]) && Number.isFinite(out[1]) && Number.isFinite(out[2]);
      }
      const i = Math.floor(u);
      const j = Math.floor(v);
      const o = (j * nx + i) * 6;
      const ex = x - (minX + (i + 0.5) * L);
      const ey = y - (minY + (j + 0.5) * L);
      const cx = A[o + 1];
      const cy = A[o + 2];
      const rx = A[o + 4];
      const ry = A[o + 5];
      const c = A[o] + cx * ex + cy * ey;
      const r = A[o + 3] + rx * ex + ry * ey;
      if (!(c >= 0 && r >= 0 && c <= w - 1 && r <= h - 1) || w < 2 || h < 2) return false;
      const ci = Math.min(Math.floor(c), w - 2);
      const ri = Math.min(Math.floor(r), h - 2);
      const fc = c - ci;
      const fr = r - ri;
      const q = ri * w + ci;
      const a = cells[q];
      const b = cells[q + 1];
      const d = cells[q + w];
      const e = cells[q + w + 1];
      const z = (a * (1 - fc) + b * fc) * (1 - fr) + (d * (1 - fc) + e * fc) * fr;
      if (Number.isNaN(z)) return false;
      const zc = (b - a) * (1 - fr) + (e - d) * fr;
      const zr = (d - a) * (1 - fc) + (e - b) * fc;
      out[0] = z;
      out[1] = zc * cx + zr * rx;
      out[2] = zc * cy + zr * ry;
      return true;
    };
  };
  const gradients = dems.map((_, k) => gradientFor(k));

  return {
    cellSize,
    elevationAt,
    gradientAt:
      gradients.length === 1
        ? gradients[0]
        : (x, y, out) => {
            for (const g of gradients) if (g(x, y, out)) return true;
            return false;
          },
  };
}
