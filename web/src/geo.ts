/**
 * Small geometry and number helpers of the planning view (lon/lat in, local
 * metres out; good to a fraction of a percent over a field).
 */
import type { PlanFeature, PlanFeatureCollection } from '../../formats/plan-geojson.ts';

export type Position = [number, number];

const R = 6_371_008.8;
const RAD = Math.PI / 180;

/** Approximate ground distance [m] between two lon/lat positions. */
export function distance(a: Position, b: Position): number {
  const k = Math.cos(((a[1] + b[1]) / 2) * RAD);
  const dx = (b[0] - a[0]) * RAD * k * R;
  const dy = (b[1] - a[1]) * RAD * R;
  return Math.hypot(dx, dy);
}

/** Bearing [deg clockwise from north, 0..360) from a to b. */
export function bearing(a: Position, b: Position): number {
  const k = Math.cos(((a[1] + b[1]) / 2) * RAD);
  const dx = (b[0] - a[0]) * k;
  const dy = b[1] - a[1];
  return (Math.atan2(dx, dy) / RAD + 360) % 360;
}

/** A line bearing folded to 0..180 (a track runs both ways). */
export function lineBearing(deg: number): number {
  const b = ((deg % 180) + 180) % 180;
  return Math.round(b * 10) / 10;
}

/** The exterior rings of a boundary given as GeoJSON (geometry, Feature or FeatureCollection). */
export function polygonsOf(geojson: unknown): Position[][][] {
  const out: Position[][][] = [];
  const visit = (g: unknown): void => {
    if (!g || typeof g !== 'object') return;
    const o = g as { type?: string; coordinates?: unknown; geometry?: unknown; features?: unknown[] };
    if (o.type === 'FeatureCollection' && Array.isArray(o.features)) o.features.forEach(visit);
    else if (o.type === 'Feature') visit(o.geometry);
    else if (o.type === 'Polygon') out.push(o.coordinates as Position[][]);
    else if (o.type === 'MultiPolygon') for (const p of o.coordinates as Position[][][]) out.push(p);
  };
  visit(geojson);
  return out;
}

export interface Edge {
  from: Position;
  to: Position;
  length: number;
  /** Line bearing, 0..180. */
  bearingDeg: number;
}

/**
 * The longest straight stretches of the field's exterior boundaries: runs of
 * consecutive edges that turn less than 4 degrees from the run's start are
 * merged, then the `count` longest runs with distinct bearings are kept.
 */
export function bestEdges(boundary: unknown, count = 4): Edge[] {
  const runs: Edge[] = [];
  for (const poly of polygonsOf(boundary)) {
    const ring = poly[0];
    if (!ring || ring.length < 4) continue;
    let start = ring[0];
    let prev = ring[0];
    let runBearing: number | null = null;
    for (let i = 1; i < ring.length; i++) {
      const p = ring[i];
      const seg = distance(prev, p);
      if (seg < 0.5) continue;
      const b = bearing(prev, p);
      if (runBearing !== null) {
        const turn = Math.abs(((b - runBearing + 540) % 360) - 180);
        if (turn > 4) {
          runs.push(edgeOf(start, prev));
          start = prev;
          runBearing = b;
        }
      } else runBearing = b;
      prev = p;
    }
    runs.push(edgeOf(start, prev));
  }
  runs.sort((a, b) => b.length - a.length);
  const out: Edge[] = [];
  for (const e of runs) {
    if (out.length >= count) break;
    if (out.some((o) => Math.abs(((o.bearingDeg - e.bearingDeg + 270) % 180) - 90) < 3)) continue;
    out.push(e);
  }
  return out;
}

function edgeOf(a: Position, b: Position): Edge {
  return { from: a, to: b, length: distance(a, b), bearingDeg: lineBearing(bearing(a, b)) };
}

/** Obstacles: the interior rings of the zone boundaries, as polygons. */
export function obstaclesOf(plan: PlanFeatureCollection): PlanFeature[] {
  const out: PlanFeature[] = [];
  for (const f of plan.features) {
    if (f.properties.featureType !== 'zoneBoundary' || f.geometry?.type !== 'Polygon') continue;
    f.geometry.coordinates.slice(1).forEach((ring, i) => {
      out.push({
        type: 'Feature',
        id: `${f.id}-obstacle-${i}`,
        geometry: { type: 'Polygon', coordinates: [ring] },
        properties: {
          featureType: 'zoneBoundary',
          obstacle: true,
          obstacleIndex: i,
          zoneIndex: f.properties.zoneIndex,
        },
      });
    });
  }
  return out;
}

/** The driven route of a plan: its route parts in driving order, as one polyline with cumulative lengths. */
export function routeOf(plan: PlanFeatureCollection): {
  coords: Position[];
  cum: number[];
  parts: PlanFeature[];
} {
  const parts = plan.features
    .filter((f) => f.properties.featureType === 'geometryPart' && typeof f.properties.sequence === 'number')
    .sort((a, b) => (a.properties.sequence as number) - (b.properties.sequence as number));
  const coords: Position[] = [];
  for (const p of parts) {
    if (p.geometry?.type !== 'LineString') continue;
    for (const c of p.geometry.coordinates as Position[]) {
      const last = coords[coords.length - 1];
      if (!last || last[0] !== c[0] || last[1] !== c[1]) coords.push(c);
    }
  }
  const cum = [0];
  for (let i = 1; i < coords.length; i++) cum.push(cum[i - 1] + distance(coords[i - 1], coords[i]));
  return { coords, cum, parts };
}

/** The point at `along` metres on a polyline with cumulative lengths `cum`, and the index of its segment. */
export function pointAlong(coords: Position[], cum: number[], along: number): { p: Position; i: number } {
  if (coords.length === 0) return { p: [0, 0], i: 0 };
  if (along <= 0) return { p: coords[0], i: 0 };
  let lo = 0;
  let hi = cum.length - 1;
  if (along >= cum[hi]) return { p: coords[hi], i: hi };
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (cum[mid] <= along) lo = mid;
    else hi = mid;
  }
  const t = (along - cum[lo]) / Math.max(1e-9, cum[hi] - cum[lo]);
  const a = coords[lo];
  const b = coords[hi];
  return { p: [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t], i: lo };
}

/** Bounds [[w, s], [e, n]] of every coordinate of a GeoJSON value. */
export function boundsOf(geojson: unknown): [Position, Position] | null {
  let w = Infinity;
  let s = Infinity;
  let e = -Infinity;
  let n = -Infinity;
  for (const poly of polygonsOf(geojson))
    for (const ring of poly)
      for (const [x, y] of ring) {
        if (x < w) w = x;
        if (x > e) e = x;
        if (y < s) s = y;
        if (y > n) n = y;
      }
  return Number.isFinite(w)
    ? [
        [w, s],
        [e, n],
      ]
    : null;
}
