/**
 * NDVI statistics of a field from a multi-band image (a GeoTIFF with red
 * and near-infrared bands, as Sentinel-2 or drone images give them):
 *
 *   NDVI = (NIR - red) / (NIR + red)        per cell, in -1..1
 *
 * over the cells whose centre lies inside the field (holes left out); a
 * cell where either band is no data, or NIR + red is not positive, is
 * counted apart. Statistics: count, mean, standard deviation, minimum,
 * maximum and the 10th, 25th, 50th, 75th and 90th percentiles (nearest
 * rank: the smallest value with at least p % of the cells at or below it).
 *
 * Zones for variable-rate work: the cells in `zoneCount` (3 to 5) classes
 * of equal count (quantile breaks; a class that equal values leave empty
 * is dropped), each class's cells merged into a GeoJSON MultiPolygon in
 * WGS84 with its NDVI range, mean, cell count and area.
 */
import { type DemRaster, readGeoTiffBands } from './dem-geotiff.ts';
import { clipDem } from './dem-write.ts';
import { classZones } from './raster-zones.ts';

export interface NdviStatistics {
  /** Cells inside the field with an NDVI, and without (no data in a band, or no light). */
  cells: number;
  noDataCells: number;
  /** Cell size [m on the ground, about]. */
  cellSize: number;
  /** The following are present when cells > 0. */
  mean?: number;
  stdDev?: number;
  min?: number;
  max?: number;
  p10?: number;
  p25?: number;
  p50?: number;
  p75?: number;
  p90?: number;
}

export interface NdviZoneProperties {
  /** 1 = lowest NDVI. */
  zone: number;
  ndviMin: number;
  ndviMax: number;
  ndviMean: number;
  cells: number;
  /** [ha] */
  areaHa: number;
}

export interface NdviZones {
  type: 'FeatureCollection';
  features: {
    type: 'Feature';
    properties: NdviZoneProperties;
    geometry: { type: 'MultiPolygon'; coordinates: number[][][][] };
  }[];
}

export interface NdviResult {
  statistics: NdviStatistics;
  zones: NdviZones;
}

const r4 = (v: number) => Math.round(v * 10000) / 10000;

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/**
 * NDVI statistics and zones of a field (WGS84 rings, exterior first) from
 * a GeoTIFF's bytes; `redBand` and `nirBand` are 1-based band numbers.
 * DemError for a file that is no usable georeferenced GeoTIFF or lacks a band.
 */
export async function ndviOfField(
  bytes: Uint8Array,
  name: string,
  rings: readonly number[][][],
  opts: { redBand: number; nirBand: number; zoneCount?: number; maxCells?: number },
): Promise<NdviResult | null> {
  const [red, nir] = await readGeoTiffBands(bytes, name, [opts.redBand - 1, opts.nirBand - 1], opts.maxCells);
  return ndviOfBands(red, nir, rings, opts.zoneCount ?? 5);
}

/** As ndviOfField, from the bands read; null when the image does not reach the field. */
export function ndviOfBands(
  red: DemRaster,
  nir: DemRaster,
  rings: readonly number[][][],
  zoneCount: number,
): NdviResult | null {
  const r = clipDem(red, [rings], { marginCells: 0, mask: true });
  const n = clipDem(nir, [rings], { marginCells: 0, mask: true });
  if (!r || !n) return null;
  const inside = clipDem({ ...red, cells: new Float32Array(red.cells.length).fill(1) }, [rings], {
    marginCells: 0,
    mask: true,
  });
  const ndvi = new Float32Array(r.cells.length).fill(Number.NaN);
  const values: number[] = [];
  let noData = 0;
  for (let i = 0; i < ndvi.length; i++) {
    if (!inside || Number.isNaN(inside.cells[i])) continue;
    const a = r.cells[i];
    const b = n.cells[i];
    const sum = a + b;
    if (!(sum > 0) || Number.isNaN(a) || Number.isNaN(b)) {
      noData++;
      continue;
    }
    ndvi[i] = (b - a) / sum;
    values.push(ndvi[i]);
  }
  const statistics: NdviStatistics = {
    cells: values.length,
    noDataCells: noData,
    cellSize: r4(red.cellSize),
  };
  const zones: NdviZones = { type: 'FeatureCollection', features: [] };
  if (values.length === 0) return { statistics, zones };
  const sorted = Float64Array.from(values).sort();
  const mean = values.reduce((t, v) => t + v, 0) / values.length;
  const variance = values.reduce((t, v) => t + (v - mean) ** 2, 0) / values.length;
  Object.assign(statistics, {
    mean: r4(mean),
    stdDev: r4(Math.sqrt(variance)),
    min: r4(sorted[0]),
    max: r4(sorted[sorted.length - 1]),
    p10: r4(percentile(sorted, 10)),
    p25: r4(percentile(sorted, 25)),
    p50: r4(percentile(sorted, 50)),
    p75: r4(percentile(sorted, 75)),
    p90: r4(percentile(sorted, 90)),
  });
  // Quantile breaks: class k holds the values from breaks[k - 1] up to below breaks[k].
  const k = Math.min(5, Math.max(3, Math.round(zoneCount)));
  const breaks: number[] = [];
  for (let j = 1; j < k; j++) breaks.push(sorted[Math.floor((j * sorted.length) / k)]);
  const classOf = (v: number) => {
    let c = 0;
    while (c < breaks.length && v >= breaks[c]) c++;
    return c;
  };
  zones.features = classZones(r, red.toLonLat, ndvi, k, classOf, rings).map((z, i) => ({
    type: 'Feature',
    properties: {
      zone: i + 1,
      ndviMin: z.properties.min,
      ndviMax: z.properties.max,
      ndviMean: z.properties.mean,
      cells: z.properties.cells,
      areaHa: z.properties.areaHa,
    },
    geometry: z.geometry,
  }));
  return { statistics, zones };
}
