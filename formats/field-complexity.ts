/**
 * A cheap look at a field before planning, on the request thread: vertex
 * count, rough area and holes, so work that is clearly too large is refused
 * at once (413 / 422 PLAN_TOO_COMPLEX) instead of occupying a worker until
 * the time cap ends it.
 *
 * Planning effort grows with the number of swath-sized cells (area / w^2:
 * tracks x track length), with the vertices each headland pass offsets, and
 * with the obstacles the route must get around. Limits are generous
 * (measured: a 385 ha field at 6 m, 107k cells, plans in under 2 s); the
 * time cap catches the rest.
 */
import type { BoundaryInput } from './direct-request.ts';

export interface FieldMeasure {
  vertices: number;
  /** Exterior rings (field parts). */
  parts: number;
  holes: number;
  /** Approximate area less holes [m^2]; NaN when coordinates are not lon/lat (the planner then says why). */
  areaM2: number;
}

export interface ComplexityLimits {
  /** Most area / swathWidth^2 cells. */
  maxCells: number;
  /** Most vertices x (1 + headland passes) to offset. */
  maxOffsetWork: number;
  /** Most obstacles (holes). */
  maxHoles: number;
}

export const DEFAULT_COMPLEXITY_LIMITS: ComplexityLimits = {
  maxCells: 600_000,
  maxOffsetWork: 1_000_000,
  maxHoles: 2_000,
};

const R = 6_371_008.8; // mean Earth radius [m]

export function measureBoundary(b: BoundaryInput): FieldMeasure {
  const m: FieldMeasure = { vertices: 0, parts: 0, holes: 0, areaM2: 0 };
  const polygon = (rings: number[][][]) => {
    rings.forEach((ring, i) => {
      m.vertices += ring.length;
      const a = ringArea(ring);
      if (i === 0) {
        m.parts++;
        m.areaM2 += a;
      } else {
        m.holes++;
        m.areaM2 -= a;
      }
    });
  };
  const geometry = (g: { type: string; coordinates: unknown }) => {
    if (g.type === 'Polygon') polygon(g.coordinates as number[][][]);
    else for (const p of g.coordinates as number[][][][]) polygon(p);
  };
  if (b.type === 'FeatureCollection') for (const f of b.features) geometry(f.geometry);
  else if (b.type === 'Feature') geometry(b.geometry);
  else geometry(b);
  return m;
}

/** |area| of a lon/lat ring [m^2] on a local equirectangular projection; NaN if not lon/lat. */
function ringArea(ring: number[][]): number {
  const n = ring.length;
  if (n < 3) return 0;
  let lat0 = 0;
  for (const p of ring) {
    if (!(Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90)) return Number.NaN;
    lat0 += p[1];
  }
  lat0 = ((lat0 / n) * Math.PI) / 180;
  const kx = (Math.cos(lat0) * Math.PI * R) / 180;
  const ky = (Math.PI * R) / 180;
  const lon0 = ring[0][0];
  // Longitudes relative to the first vertex, unwrapped across the antimeridian.
  const x = (lon: number) => {
    let d = lon - lon0;
    if (d > 180) d -= 360;
    else if (d < -180) d += 360;
    return d * kx;
  };
  let s = 0;
  for (let i = 0; i < n; i++) {
    const p = ring[i];
    const q = ring[(i + 1) % n];
    s += x(p[0]) * (q[1] * ky) - x(q[0]) * (p[1] * ky);
  }
  return Math.abs(s / 2);
}

export interface Complexity {
  cells: number;
  offsetWork: number;
  holes: number;
}

export function estimateComplexity(
  m: FieldMeasure,
  opts: { swathWidth: number; exteriorHeadlandPasses: number; interiorHeadlandPasses: number },
): Complexity {
  const cells = Number.isFinite(m.areaM2) ? m.areaM2 / (opts.swathWidth * opts.swathWidth) : 0;
  const offsetWork =
    m.vertices * (1 + opts.exteriorHeadlandPasses + (m.holes > 0 ? opts.interiorHeadlandPasses : 0));
  return { cells: Math.round(cells), offsetWork, holes: m.holes };
}

/** Why the work is too large, or null. */
export function tooComplex(
  c: Complexity,
  limits: ComplexityLimits = DEFAULT_COMPLEXITY_LIMITS,
): string | null {
  if (c.cells > limits.maxCells) {
    return `The field holds about ${c.cells.toLocaleString('en')} swath-sized cells (area / swathWidth^2); the limit is ${limits.maxCells.toLocaleString('en')}. Use a wider swath or split the field.`;
  }
  if (c.offsetWork > limits.maxOffsetWork) {
    return `The field has too many vertices for this many headland passes (vertices x (1 + passes) = ${c.offsetWork.toLocaleString('en')}; the limit is ${limits.maxOffsetWork.toLocaleString('en')}). Simplify the boundary or use fewer passes.`;
  }
  if (c.holes > limits.maxHoles) {
    return `The field has ${c.holes} obstacles (holes); the limit is ${limits.maxHoles}.`;
  }
  return null;
}
