/**
 * Zones of a raster: its cells in classes (by value), each class's cells
 * merged into a GeoJSON MultiPolygon in WGS84 with the figures of their
 * values. Runs of one class along a row become one quadrilateral, the
 * quadrilaterals of a class are merged (their shared corners are the same
 * points, so neighbours join).
 */
import { union } from '../core/geometry/clip.ts';
import { multiPolygonArea, orientRing } from '../core/geometry/polygon.ts';
import { createMetricFrame } from '../core/geometry/projection.ts';
import type { Point, Polygon } from '../core/types/index.ts';
import { geoJsonBBox } from './dem-index.ts';
import type { DemGrid } from './dem-write.ts';

export interface ClassZone {
  type: 'Feature';
  properties: {
    /** The class (0-based) the cells hold. */
    classIndex: number;
    min: number;
    max: number;
    mean: number;
    cells: number;
    /** [ha] */
    areaHa: number;
  };
  geometry: { type: 'MultiPolygon'; coordinates: number[][][][] };
}

const r4 = (v: number) => Math.round(v * 10000) / 10000;

/**
 * Per class, the cells of a grid holding it merged into polygons, in
 * WGS84, with the figures of their values (classes without cells left
 * out; NaN cells belong to none). `toLonLat` maps the grid's CRS to WGS84;
 * the polygons are merged in a metric frame centred on the field `rings`.
 */
export function classZones(
  grid: DemGrid,
  toLonLat: (x: number, y: number) => [number, number],
  values: Float32Array,
  k: number,
  classOf: (v: number) => number,
  rings: readonly number[][][],
): ClassZone[] {
  const bbox = geoJsonBBox({ type: 'Polygon', coordinates: rings });
  const frame = createMetricFrame((bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2);
  // Cell corners in the metric frame, shared by neighbouring cells (so their union merges them).
  const corner = new Map<number, Point>();
  const cornerAt = (c: number, r: number): Point => {
    const key = r * (grid.width + 1) + c;
    let p = corner.get(key);
    if (!p) {
      const [lon, lat] = toLonLat(grid.x0 + (c - 0.5) * grid.dx, grid.y0 + (r - 0.5) * grid.dy);
      p = frame.toMetric(lon, lat);
      corner.set(key, p);
    }
    return p;
  };
  const runs: Polygon[][] = Array.from({ length: k }, () => []);
  const stats = Array.from({ length: k }, () => ({ cells: 0, sum: 0, min: Infinity, max: -Infinity }));
  for (let r = 0; r < grid.height; r++) {
    let c = 0;
    while (c < grid.width) {
      const v = values[r * grid.width + c];
      if (Number.isNaN(v)) {
        c++;
        continue;
      }
      const cls = classOf(v);
      const start = c;
      // A run of cells of one class along the row is one quadrilateral (corners along its edges kept).
      while (c < grid.width) {
        const w = values[r * grid.width + c];
        if (Number.isNaN(w) || classOf(w) !== cls) break;
        const s = stats[cls];
        s.cells++;
        s.sum += w;
        if (w < s.min) s.min = w;
        if (w > s.max) s.max = w;
        c++;
      }
      const top: Point[] = [];
      const bottom: Point[] = [];
      for (let q = start; q <= c; q++) {
        top.push(cornerAt(q, r));
        bottom.push(cornerAt(q, r + 1));
      }
      runs[cls].push({ outer: orientRing([...top, ...bottom.reverse()], true), holes: [] });
    }
  }
  const features: ClassZone[] = [];
  for (let cls = 0; cls < k; cls++) {
    const s = stats[cls];
    if (s.cells === 0) continue;
    const merged = union(runs[cls]);
    const ring = (pts: readonly Point[]) => {
      const out = pts.map((p) => {
        const [lon, lat] = frame.toLonLat(p);
        return [Math.round(lon * 1e9) / 1e9, Math.round(lat * 1e9) / 1e9];
      });
      out.push(out[0]);
      return out;
    };
    features.push({
      type: 'Feature',
      properties: {
        classIndex: cls,
        min: r4(s.min),
        max: r4(s.max),
        mean: r4(s.sum / s.cells),
        cells: s.cells,
        areaHa: r4(multiPolygonArea(merged) / 10_000),
      },
      geometry: {
        type: 'MultiPolygon',
        coordinates: merged.map((p) => [ring(p.outer), ...p.holes.map(ring)]),
      },
    });
  }
  return features;
}
