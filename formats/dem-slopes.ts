/**
 * Slopes of a plan from DEM files: reads the cells around the plan's
 * extent from each file (finest first), builds a sampler in the plan's
 * metric frame and hands it to core/terrain. And the ground for planning
 * along the contour: the cells around the field, read before planning,
 * handed to the planner as a sampler in the frame it projects the field in.
 */
import { type ElevationSampler, type PlanSlopes, planSlopes } from '../core/terrain/slopes.ts';
import type { MetricFrame, PlanResult, Point } from '../core/types/index.ts';
import { type BBox, frameSampler, openDemWindow } from './dem-geotiff.ts';
import { geoJsonBBox } from './dem-index.ts';

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
