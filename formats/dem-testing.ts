/**
 * Test support: GeoTIFF DEMs with known ground, written with the geotiff
 * package's writer, and ground models in metres around a WGS84 point.
 */
import { writeFile } from 'node:fs/promises';
import proj4 from 'proj4';
import { proj4Definition } from './dem-geotiff.ts';
import { demGeoTiff, geoTiffBands } from './dem-write.ts';

export interface TestDem {
  /** EPSG:4326, a WGS 84 / UTM code, or any code (to test refusals). */
  epsg: number;
  /** Centre of the grid, WGS84. */
  centre: [number, number];
  /** Cells each way. */
  width: number;
  height: number;
  /** Cell size in CRS units (metres; degrees for EPSG:4326). */
  cell: number;
  /** Ground elevation [m] at WGS84 lon/lat; NaN: a no-data cell. */
  ground: (lon: number, lat: number) => number;
  /** Value written for no-data cells (default -9999). */
  nodata?: number;
}

/** The GeoTIFF bytes of a DEM (Float32, PixelIsArea, GDAL_NODATA). */
export function demBytes(d: TestDem): ArrayBuffer {
  const def = proj4Definition(d.epsg) ?? '+proj=longlat +datum=WGS84 +no_defs';
  const conv = proj4('WGS84', def);
  const [cx, cy] = d.epsg === 4326 ? d.centre : (conv.forward(d.centre) as [number, number]);
  const x0 = cx - (d.width / 2) * d.cell;
  const y0 = cy + (d.height / 2) * d.cell;
  const values = new Float32Array(d.width * d.height);
  for (let r = 0; r < d.height; r++) {
    for (let c = 0; c < d.width; c++) {
      const x = x0 + (c + 0.5) * d.cell;
      const y = y0 - (r + 0.5) * d.cell;
      const [lon, lat] = d.epsg === 4326 ? [x, y] : (conv.inverse([x, y]) as [number, number]);
      const z = d.ground(lon, lat);
      values[r * d.width + c] = Number.isFinite(z) ? z : Number.NaN;
    }
  }
  return demGeoTiff(
    {
      epsg: d.epsg,
      width: d.width,
      height: d.height,
      cells: values,
      x0: x0 + d.cell / 2,
      y0: y0 - d.cell / 2,
      dx: d.cell,
      dy: -d.cell,
    },
    d.nodata ?? -9999,
  );
}

export async function writeDem(path: string, d: TestDem): Promise<void> {
  await writeFile(path, new Uint8Array(demBytes(d)));
}

/**
 * Local east and north [m] of lon/lat from (lon0, lat0) on the WGS84
 * ellipsoid (exact to the first order; over a few hundred metres to far
 * below a millimetre per metre).
 */
export function localMetres(lon0: number, lat0: number): (lon: number, lat: number) => [number, number] {
  const a = 6378137;
  const f = 1 / 298.257223563;
  const e2 = f * (2 - f);
  const phi = (lat0 * Math.PI) / 180;
  const w = 1 - e2 * Math.sin(phi) ** 2;
  const n = a / Math.sqrt(w);
  const m = (a * (1 - e2)) / w ** 1.5;
  const k = Math.PI / 180;
  return (lon, lat) => [(lon - lon0) * k * n * Math.cos(phi), (lat - lat0) * k * m];
}

/** Ground rising `percent` towards `bearingDeg` (clockwise from north) through `base` m at (lon0, lat0). */
export function planeGround(lon0: number, lat0: number, percent: number, bearingDeg: number, base = 100) {
  const local = localMetres(lon0, lat0);
  const b = (bearingDeg * Math.PI) / 180;
  return (lon: number, lat: number) => {
    const [e, nn] = local(lon, lat);
    return base + (percent / 100) * (e * Math.sin(b) + nn * Math.cos(b));
  };
}

/** A cone with its top `top` m high at (lon0, lat0), falling `percent` outwards. */
export function coneGround(lon0: number, lat0: number, percent: number, top = 200) {
  const local = localMetres(lon0, lat0);
  return (lon: number, lat: number) => top - (percent / 100) * Math.hypot(...local(lon, lat));
}

/**
 * A valley along `bearingDeg` (clockwise from north) through (lon0, lat0):
 * its floor falls `floorPercent` along the bearing, its sides rise
 * `sidePercent` away from the floor line.
 */
export function valleyGround(
  lon0: number,
  lat0: number,
  bearingDeg: number,
  sidePercent: number,
  floorPercent: number,
  base = 100,
) {
  const local = localMetres(lon0, lat0);
  const b = (bearingDeg * Math.PI) / 180;
  return (lon: number, lat: number) => {
    const [e, n] = local(lon, lat);
    const along = e * Math.sin(b) + n * Math.cos(b);
    const across = e * Math.cos(b) - n * Math.sin(b);
    return base - (floorPercent / 100) * along + (sidePercent / 100) * Math.abs(across);
  };
}

/** A rectangle of w x h metres with its south-west corner at (lon, lat), as a GeoJSON Polygon. */
export function rectangleAt(lon: number, lat: number, w = 300, h = 200) {
  const dLon = w / (111_320 * Math.cos((lat * Math.PI) / 180));
  const dLat = h / 111_200;
  return {
    type: 'Polygon',
    coordinates: [
      [
        [lon, lat],
        [lon + dLon, lat],
        [lon + dLon, lat + dLat],
        [lon, lat + dLat],
        [lon, lat],
      ],
    ],
  };
}

/** The angle between two line bearings [deg, 0..90]. */
export function lineAngle(a: number, b: number): number {
  const d = (((a - b) % 180) + 180) % 180;
  return Math.min(d, 180 - d);
}

/**
 * A 4-band image (blue, green, red, near-infrared; Float32) in EPSG:4326
 * whose NDVI at lon/lat is `ndvi(lon, lat)` (red 0.1, NIR to match; NaN:
 * no data in the NIR band), cells of `cell` degrees from the corner
 * (lon0, lat0) northwards and eastwards.
 */
export function ndviImageBytes(d: {
  lon0: number;
  lat0: number;
  width: number;
  height: number;
  cell: number;
  ndvi: (lon: number, lat: number) => number;
}): ArrayBuffer {
  const n = d.width * d.height;
  const bands = [0, 1, 2, 3].map(() => new Float32Array(n));
  for (let r = 0; r < d.height; r++) {
    for (let c = 0; c < d.width; c++) {
      const i = r * d.width + c;
      const v = d.ndvi(d.lon0 + (c + 0.5) * d.cell, d.lat0 + (d.height - r - 0.5) * d.cell);
      bands[0][i] = 0.05;
      bands[1][i] = 0.08;
      bands[2][i] = 0.1;
      bands[3][i] = Number.isNaN(v) ? Number.NaN : (0.1 * (1 + v)) / (1 - v);
    }
  }
  return geoTiffBands(
    {
      epsg: 4326,
      width: d.width,
      height: d.height,
      x0: d.lon0 + d.cell / 2,
      y0: d.lat0 + (d.height - 0.5) * d.cell,
      dx: d.cell,
      dy: -d.cell,
    },
    bands,
  );
}
