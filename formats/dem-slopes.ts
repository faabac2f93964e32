/**
 * Slopes of a plan from DEM files: reads the cells around the plan's
 * extent from each file (finest first), builds a sampler in the plan's
 * metric frame and hands it to core/terrain. And the ground for planning
 * along the contour: the cells around the field, read before planning,
 * handed to the planner as a sampler in the frame it projects the field in.
 */
import { createMetricFrame } from '../core/geometry/projection.ts';
import { type AreaSlopes, areaSlopes } from '../core/terrain/area-slopes.ts';
import {
  CROSS_SLOPE_WARNING_MARK,
  type ElevationSampler,
  gradientReader,
  type PlanSlopes,
  planSlopes,
} from '../core/terrain/slopes.ts';
import type { MetricFrame, PathPart, PlanResult, Point, Polygon } from '../core/types/index.ts';
import { type BBox, type DemRaster, frameSampler, openDemWindow } from './dem-geotiff.ts';
import { geoJsonBBox } from './dem-index.ts';
import { clipDem, type DemGrid } from './dem-write.ts';
import type { PathPlanNormalizedModel } from './plan-model.ts';
import { type ClassZone, classZones } from './raster-zones.ts';

/** Metric bounding box of everything the plan holds (zone boundaries and geometry parts). */
export function planExtent(result: PlanResult): { minX: number; minY: number; maxX: number; maxY: number } {
  const e = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  const add = (p: Point) => {
    if (p.x < e.minX) e.minX = p.x;
    if (p.y < e.minY) e.minY = p.y;
    if (p.x > e.maxX) e.maxX = p.x;
    if (p.y > e.maxY) e.maxY = p.y;
  };
  for (const z of result.plan.zones) {
    for (const p of z.boundary.outer) add(p);
    for (const g of z.groups) for (const part of g.parts) for (const p of part.points) add(p);
  }
  if (!Number.isFinite(e.minX)) return { minX: 0, minY: 0, maxX: 0, maxY: 0 };
  return e;
}

/** WGS84 bounding box of a metric extent (from points along its border). */
export function lonLatBBoxOf(
  toLonLat: (x: number, y: number) => [number, number],
  e: { minX: number; minY: number; maxX: number; maxY: number },
): BBox {
  const b: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  const n = 4;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= n; j++) {
      if (i > 0 && i < n && j > 0 && j < n) continue;
      const [lon, lat] = toLonLat(e.minX + ((e.maxX - e.minX) * i) / n, e.minY + ((e.maxY - e.minY) * j) / n);
      b[0] = Math.min(b[0], lon);
      b[1] = Math.min(b[1], lat);
      b[2] = Math.max(b[2], lon);
      b[3] = Math.max(b[3], lat);
    }
  }
  return b;
}

/** Slopes of every geometry part of the plan over the DEM files (sampled in this order). */
export async function planSlopesFromDems(
  result: PlanResult,
  demPaths: readonly string[],
): Promise<PlanSlopes> {
  const extent = planExtent(result);
  const toLonLat = (x: number, y: number) => result.frame.toLonLat({ x, y });
  const bbox = lonLatBBoxOf(toLonLat, extent);
  const dems = await Promise.all(demPaths.map((p) => openDemWindow(p, bbox)));
  return planSlopes(result.plan, frameSampler(dems, toLonLat, extent));
}

/**
 * The ground of a field for the planner (PlanHooks.ground): reads the DEM
 * cells around the field's WGS84 extent now; the sampler is made in the
 * plan's metric frame once the planner has projected the field.
 */
export async function groundForField(
  boundary: unknown,
  demPaths: readonly string[],
): Promise<(frame: MetricFrame) => ElevationSampler> {
  const bbox = geoJsonBBox(boundary);
  const dems = await Promise.all(demPaths.map((p) => openDemWindow(p, bbox)));
  return (frame) => {
    const e = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
    const n = 4;
    for (let i = 0; i <= n; i++) {
      for (let j = 0; j <= n; j++) {
        const p = frame.toMetric(
          bbox[0] + ((bbox[2] - bbox[0]) * i) / n,
          bbox[1] + ((bbox[3] - bbox[1]) * j) / n,
        );
        e.minX = Math.min(e.minX, p.x);
        e.minY = Math.min(e.minY, p.y);
        e.maxX = Math.max(e.maxX, p.x);
        e.maxY = Math.max(e.maxY, p.y);
      }
    }
    return frameSampler(dems, (x, y) => frame.toLonLat({ x, y }), e);
  };
}

/** A metric frame centred on the WGS84 positions of `rings` (each ring a list of [lon, lat]). */
function frameAround(rings: readonly (readonly number[][])[]): MetricFrame {
  let minLon = Infinity;
  let minLat = Infinity;
  let maxLon = -Infinity;
  let maxLat = -Infinity;
  for (const ring of rings) {
    for (const [lon, lat] of ring) {
      minLon = Math.min(minLon, lon);
      minLat = Math.min(minLat, lat);
      maxLon = Math.max(maxLon, lon);
      maxLat = Math.max(maxLat, lat);
    }
  }
  return createMetricFrame((minLon + maxLon) / 2, (minLat + maxLat) / 2);
}

/** Metric bounding box of points. */
function extentOf(points: Iterable<Point>): { minX: number; minY: number; maxX: number; maxY: number } {
  const e = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (const p of points) {
    e.minX = Math.min(e.minX, p.x);
    e.minY = Math.min(e.minY, p.y);
    e.maxX = Math.max(e.maxX, p.x);
    e.maxY = Math.max(e.maxY, p.y);
  }
  return e;
}

/** The slope analysis of a boundary (WGS84 rings, exterior first) over DEMs read into memory (sampled in this order). */
export function boundarySlopes(rings: readonly number[][][], dems: readonly DemRaster[]): AreaSlopes {
  const frame = frameAround(rings);
  const toMetric = (ring: readonly number[][]) => ring.map(([lon, lat]) => frame.toMetric(lon, lat));
  const polygon: Polygon = { outer: toMetric(rings[0] ?? []), holes: rings.slice(1).map(toMetric) };
  const sampler = frameSampler(dems, (x, y) => frame.toLonLat({ x, y }), extentOf(polygon.outer));
  return areaSlopes([polygon], sampler);
}

/**
 * A stored plan's model with slopes added over DEMs read into memory:
 * slopeDetails on every geometry part, slopeSummary on every zone and on
 * the plan, and with a limit of sideways slope, the zone warnings naming
 * the driven parts over it (warnings of an earlier analysis replaced).
 * The model's geometry is taken in a metric frame centred on the plan.
 */
export function modelWithSlopes(
  model: PathPlanNormalizedModel,
  dems: readonly DemRaster[],
  opts: { maxCrossSlopePercent?: number } = {},
): PathPlanNormalizedModel {
  const lines = model.zones.flatMap((z) =>
    z.geometryGroups.flatMap((g) => g.geometryParts.map((p) => p.geometry.coordinates)),
  );
  const frame = frameAround([...lines, ...model.zones.map((z) => z.zoneBoundary.coordinates[0] ?? [])]);
  const toMetric = (ring: readonly number[][]) => ring.map(([lon, lat]) => frame.toMetric(lon, lat));
  const zones = model.zones.map((z) => ({
    boundary: {
      outer: toMetric(z.zoneBoundary.coordinates[0] ?? []),
      holes: z.zoneBoundary.coordinates.slice(1).map(toMetric),
    },
    activeGroup: Math.max(
      0,
      z.geometryGroups.findIndex((g) => g.isActive),
    ),
    groups: z.geometryGroups.map((g) => ({
      parts: g.geometryParts.map(
        (p): PathPart => ({
          type: p.geometryPartType,
          points: toMetric(p.geometry.coordinates),
          working: p.working,
          ...(p.sequence !== undefined ? { sequence: p.sequence } : {}),
          ...(p.trackDetail ? { trackIndex: p.trackDetail.trackIndex } : {}),
        }),
      ),
    })),
  }));
  const all = zones.flatMap((z) => [
    ...z.boundary.outer,
    ...z.groups.flatMap((g) => g.parts.flatMap((p) => p.points)),
  ]);
  const sampler = frameSampler(dems, (x, y) => frame.toLonLat({ x, y }), extentOf(all));
  const slopes = planSlopes({ zones }, sampler, {
    ...(opts.maxCrossSlopePercent !== undefined ? { maxCrossSlopePercent: opts.maxCrossSlopePercent } : {}),
  });
  return {
    ...model,
    slopeSummary: slopes.summary,
    zones: model.zones.map((z, zi) => {
      const s = slopes.zones[zi];
      const kept = (z.warnings ?? []).filter((w) => !w.includes(CROSS_SLOPE_WARNING_MARK));
      const warnings = [...kept, ...(s.warnings ?? [])];
      const { warnings: _old, ...rest } = z;
      return {
        ...rest,
        slopeSummary: s.summary,
        ...(warnings.length ? { warnings } : {}),
        geometryGroups: z.geometryGroups.map((g, gi) => ({
          ...g,
          geometryParts: g.geometryParts.map((p, pi) => ({ ...p, slopeDetails: s.groups[gi].parts[pi] })),
        })),
      };
    }),
  };
}

/** Upper limits of the slope classes of boundarySlopeClasses [%] (the last class is open). */
export const SLOPE_CLASS_LIMITS = [2, 5, 10] as const;
/** Cells of the slope grid at most: finer DEMs are read every k-th cell each way. */
const SLOPE_GRID_CELLS = 40_000;

/**
 * The boundary's ground in slope classes (0-2, 2-5, 5-10, over 10 %) as
 * GeoJSON MultiPolygons, from DEMs read into memory (the first gives the
 * grid): the steepest slope at the centres of its cells inside the
 * boundary (every k-th cell each way when there would be more than
 * SLOPE_GRID_CELLS). Null when the first DEM does not reach the boundary.
 */
export function boundarySlopeClasses(
  rings: readonly number[][][],
  dems: readonly DemRaster[],
): { type: 'FeatureCollection'; features: (ClassZone & { properties: { slopeClass: string } })[] } | null {
  const fine = clipDem(dems[0], [rings], { marginCells: 0, mask: true });
  if (!fine) return null;
  const k = Math.max(1, Math.ceil(Math.sqrt((fine.width * fine.height) / SLOPE_GRID_CELLS)));
  const width = Math.ceil(fine.width / k);
  const height = Math.ceil(fine.height / k);
  const grid: DemGrid = {
    epsg: fine.epsg,
    width,
    height,
    cells: new Float32Array(width * height).fill(Number.NaN),
    x0: fine.x0 + ((k - 1) / 2) * fine.dx,
    y0: fine.y0 + ((k - 1) / 2) * fine.dy,
    dx: fine.dx * k,
    dy: fine.dy * k,
  };
  const frame = frameAround(rings);
  const corners: Point[] = [];
  for (const [c, r] of [
    [-1, -1],
    [width, -1],
    [-1, height],
    [width, height],
  ]) {
    const [lon, lat] = dems[0].toLonLat(grid.x0 + c * grid.dx, grid.y0 + r * grid.dy);
    corners.push(frame.toMetric(lon, lat));
  }
  const sampler = frameSampler(dems, (x, y) => frame.toLonLat({ x, y }), extentOf(corners));
  const read = gradientReader(sampler);
  const out = new Float64Array(3);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      // The fine cell at the centre of the coarse one says whether it is inside the boundary.
      const fr = Math.min(fine.height - 1, Math.round(r * k + (k - 1) / 2));
      const fc = Math.min(fine.width - 1, Math.round(c * k + (k - 1) / 2));
      if (Number.isNaN(fine.cells[fr * fine.width + fc])) continue;
      const [lon, lat] = dems[0].toLonLat(grid.x0 + c * grid.dx, grid.y0 + r * grid.dy);
      const p = frame.toMetric(lon, lat);
      if (read(p.x, p.y, out)) grid.cells[r * width + c] = 100 * Math.hypot(out[1], out[2]);
    }
  }
  const classOf = (v: number) => {
    let i = 0;
    while (i < SLOPE_CLASS_LIMITS.length && v > SLOPE_CLASS_LIMITS[i]) i++;
    return i;
  };
  const names = ['0-2 %', '2-5 %', '5-10 %', 'over 10 %'];
  const features = classZones(grid, dems[0].toLonLat, grid.cells, names.length, classOf, rings).map((z) => ({
    ...z,
    properties: { ...z.properties, slopeClass: names[z.properties.classIndex] },
  }));
  return { type: 'FeatureCollection', features };
}
