/**
 * Writing DEMs as GeoTIFF with the `geotiff` package's writer: one Float32
 * band, PixelIsArea, the CRS as an EPSG code in the GeoKeys (geographic
 * for EPSG:4326, projected otherwise), unknown cells as GDAL_NODATA. And
 * clipping a DEM to a field: the cells of its extent, those whose centre
 * lies outside the field set to no data.
 */
import { writeArrayBuffer } from 'geotiff';
import type { DemRaster } from './dem-geotiff.ts';

/** A grid of cells to write: `cells` row by row (NaN: unknown), centre of the first cell at (x0, y0), steps dx, dy (dy < 0 for north-up). */
export interface DemGrid {
  epsg: number;
  width: number;
  height: number;
  cells: Float32Array;
  x0: number;
  y0: number;
  dx: number;
  dy: number;
}

/** The GeoTIFF bytes of a grid; unknown cells are written as `nodata` (default -9999) and named in GDAL_NODATA. */
export function demGeoTiff(g: DemGrid, nodata = -9999): ArrayBuffer {
  return geoTiffBands(g, [g.cells], nodata);
}

/** A GeoTIFF of several Float32 bands over the grid of `g` (pixel-interleaved; NaN written as `nodata`). */
export function geoTiffBands(
  g: Omit<DemGrid, 'cells'>,
  bands: readonly Float32Array[],
  nodata = -9999,
): ArrayBuffer {
  const n = g.width * g.height;
  const values = new Float32Array(n * bands.length);
  for (let i = 0; i < n; i++) {
    for (let b = 0; b < bands.length; b++) {
      const v = bands[b][i];
      values[i * bands.length + b] = Number.isNaN(v) ? nodata : v;
    }
  }
  const geographic = g.epsg === 4326;
  return writeArrayBuffer(values, {
    width: g.width,
    height: g.height,
    BitsPerSample: bands.map(() => 32),
    SampleFormat: bands.map(() => 3),
    ...(bands.length > 1 ? { PhotometricInterpretation: 1, ExtraSamples: bands.slice(1).map(() => 0) } : {}),
    ModelPixelScale: [Math.abs(g.dx), Math.abs(g.dy), 0],
    // PixelIsArea: the tie point is the outer corner of the first cell.
    ModelTiepoint: [0, 0, 0, g.x0 - g.dx / 2, g.y0 - g.dy / 2, 0],
    GTModelTypeGeoKey: geographic ? 2 : 1,
    GTRasterTypeGeoKey: 1,
    ...(geographic ? { GeographicTypeGeoKey: g.epsg } : { ProjectedCSTypeGeoKey: g.epsg }),
    GDAL_NODATA: String(nodata),
  } as never);
}

/**
 * The cells of `dem` over the extent of `polygons` (each WGS84 rings,
 * exterior first, then holes) with `marginCells` more on each side. With
 * `mask`, cells whose centre lies outside every polygon are unknown (NaN).
 * Null when the DEM does not reach the extent.
 */
export function clipDem(
  dem: DemRaster,
  polygons: readonly (readonly number[][][])[],
  opts: { marginCells?: number; mask?: boolean } = {},
): DemGrid | null {
  const margin = opts.marginCells ?? 1;
  // The rings in cell positions (column, row) of the DEM.
  const cellRings = polygons.map((rings) =>
    rings.map((ring) =>
      ring.map(([lon, lat]) => {
        const [x, y] = dem.fromLonLat(lon, lat);
        return [(x - dem.x0) / dem.dx, (y - dem.y0) / dem.dy] as [number, number];
      }),
    ),
  );
  let cMin = Infinity;
  let cMax = -Infinity;
  let rMin = Infinity;
  let rMax = -Infinity;
  for (const rings of cellRings) {
    for (const [c, r] of rings[0] ?? []) {
      cMin = Math.min(cMin, c);
      cMax = Math.max(cMax, c);
      rMin = Math.min(rMin, r);
      rMax = Math.max(rMax, r);
    }
  }
  const c0 = Math.max(0, Math.floor(cMin) - margin);
  const r0 = Math.max(0, Math.floor(rMin) - margin);
  const c1 = Math.min(dem.width - 1, Math.ceil(cMax) + margin);
  const r1 = Math.min(dem.height - 1, Math.ceil(rMax) + margin);
  if (!(c1 >= c0 && r1 >= r0)) return null;
  const width = c1 - c0 + 1;
  const height = r1 - r0 + 1;
  const cells = new Float32Array(width * height);
  const inside = new Uint8Array(width);
  for (let r = 0; r < height; r++) {
    const row = r0 + r;
    inside.fill(opts.mask ? 0 : 1);
    if (opts.mask) {
      // Scan line through the cell centres of the row: each polygon fills between its crossings (even-odd, so holes stay out).
      for (const rings of cellRings) {
        const xs: number[] = [];
        for (const ring of rings) {
          for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
            const [ci, ri] = ring[i];
            const [cj, rj] = ring[j];
            if (ri > row !== rj > row) xs.push(ci + ((row - ri) * (cj - ci)) / (rj - ri));
          }
        }
        xs.sort((a, b) => a - b);
        for (let k = 0; k + 1 < xs.length; k += 2) {
          const from = Math.max(0, Math.ceil(xs[k]) - c0);
          const to = Math.min(width - 1, Math.floor(xs[k + 1]) - c0);
          for (let c = from; c <= to; c++) inside[c] = 1;
        }
      }
    }
    for (let c = 0; c < width; c++)
      cells[r * width + c] = inside[c] ? dem.cells[row * dem.width + c0 + c] : Number.NaN;
  }
  return {
    epsg: dem.epsg,
    width,
    height,
    cells,
    x0: dem.x0 + c0 * dem.dx,
    y0: dem.y0 + r0 * dem.dy,
    dx: dem.dx,
    dy: dem.dy,
  };
}
