/**
 * Extended tracks (`extendTracks`): each track runs on into the headland
 * until its whole swath has reached the edge of the workable area, so the
 * wedge between a track's flat swath end and a slanted headland is worked:
 *
 *        headland edge  /               the swath of width w ends square;
 *                      /  <- wedge       where the edge slants, one corner
 *   ==================/=                 stops short of it. Run on until
 *                    / |                 both corners (and points between)
 *   ----------------+--                  are past the edge.
 *   ==============/=====
 *
 * A track never comes closer than half a swath to the field boundary or an
 * obstacle (its swath stays in the field), and never reaches into the next
 * track on its scan line.
 *
 * Beyond that a track runs on, as far as the half-swath limit allows, for
 * what nothing else works: what the swaths of the tracks leave of the
 * workable area (a wedge beside the outermost track where the edge slants
 * away from it, worked by the next line running on past its end) and, given
 * the swaths of the headland passes, what they leave unworked (the ring
 * between an obstacle and a pass that goes round it at the turning radius,
 * the strip a rounded corner leaves between two passes). Slivers thinner
 * than a few centimetres are not run for.
 */
import { bufferLines, difference, offset } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { polygonArea } from '../geometry/polygon.ts';
import type { Point, Polygon } from '../types/index.ts';
import type { Track, TrackSet } from './generate-tracks.ts';

/** Offsets across the swath at which the swath end is tested [fractions of w]. */
const ACROSS = [-0.5, -0.375, -0.25, -0.125, 0, 0.125, 0.25, 0.375, 0.5];
/** Keep this much [m] short of the half-swath limit, against rounding in the offset. */
const MARGIN = 0.02;
/** Step past a track end before testing where it is [m]. */
const NUDGE = 1e-4;
/** Unworked pieces of the headland are opened by this radius [m] and kept from this area [m^2] up. */
const SLIVER = 0.05;
const MIN_GAP_AREA = 0.5;

export interface ExtendInput {
  tracks: TrackSet;
  /** The workable area the tracks were cut from. */
  workable: readonly Polygon[];
  /** The zone (holes are obstacles). */
  zone: Polygon;
  /** The swaths of the headland passes driven in the zone (their centre lines buffered by half a swath). */
  passSwaths?: readonly Polygon[];
  /** Where any tracks of the zone run (all cells of a decomposed part); default the workable area. */
  trackArea?: readonly Polygon[];
}

/**
 * Half the gap from each end of a track to the next track on its scan line
 * [m] (infinite where there is none): how far that end may run on without
 * meeting the run-on of its neighbour.
 */
export function lineGaps(tracks: TrackSet): (t: Track) => { gapA: number; gapB: number } {
  const ux = Math.cos(tracks.heading);
  const uy = Math.sin(tracks.heading);
  const along = (p: Point) => p.x * ux + p.y * uy;
  const byLine = new Map<number, Track[]>();
  for (const t of tracks.tracks) byLine.set(t.line, [...(byLine.get(t.line) ?? []), t]);
  return (t) => {
    const ta = along(t.a);
    const tb = along(t.b);
    let gapB = Number.POSITIVE_INFINITY;
    let gapA = Number.POSITIVE_INFINITY;
    for (const o of byLine.get(t.line) ?? []) {
      if (o === t) continue;
      const oa = along(o.a);
      const ob = along(o.b);
      if (oa >= tb) gapB = Math.min(gapB, (oa - tb) / 2);
      if (ob <= ta) gapA = Math.min(gapA, (ta - ob) / 2);
    }
    return { gapA, gapB };
  };
}

export function extendTracks(input: ExtendInput): TrackSet {
  const { tracks, workable, zone } = input;
  const w = tracks.swathWidth;
  const inner = offset([zone], -(w / 2 + MARGIN), 'round');
  if (inner.length === 0) return tracks;
  const limit = new EdgeIndex(inner.flatMap((p) => [p.outer, ...p.holes]));
  // Beyond the workable edge, the tracks run on for what nothing else works:
  // what their own swaths leave of the workable area (a wedge along the
  // outermost track where the edge slants away from it), and what neither
  // the headland passes nor other tracks work.
  const swaths = bufferLines(
    tracks.tracks.map((t) => [t.a, t.b]),
    w / 2,
    'butt',
  );
  const left = [
    ...difference(workable, swaths),
    ...(input.passSwaths ? difference([zone], [...input.passSwaths, ...(input.trackArea ?? workable)]) : []),
  ];
  const gaps = left.length ? offset(offset(left, -SLIVER), SLIVER) : [];
  const kept = gaps.filter((p) => polygonArea(p) >= MIN_GAP_AREA);
  const gapRings = kept.flatMap((p) => [p.outer, ...p.holes]);
  const gapIndex = gapRings.length ? new EdgeIndex(gapRings) : null;
  const gapEdges = ringsEdges(gapRings);
  const work = new EdgeIndex(workable.flatMap((p) => [p.outer, ...p.holes]));
  const workEdges = ringsEdges(workable.flatMap((p) => [p.outer, ...p.holes]));
  const limitEdges = ringsEdges(inner.flatMap((p) => [p.outer, ...p.holes]));
  const ux = Math.cos(tracks.heading);
  const uy = Math.sin(tracks.heading);
  const nx = -uy;
  const ny = ux;
  // Neighbours on the same scan line bound each extension (half the gap each).
  const neighbourGaps = lineGaps(tracks);
  const out: Track[] = tracks.tracks.map((t) => {
    const { gapA, gapB } = neighbourGaps(t);
    const reach = (p: Point, dx: number, dy: number, gap: number): number => {
      // The centre line stays inside the field shrunk by half a swath.
      if (!limit.contains(p)) return 0;
      const room = Math.min(rayHit(p, dx, dy, limitEdges), gap);
      if (!(room > NUDGE)) return 0;
      // How far the swath end must move for every tested point across it to
      // have left the workable area and passed the unworked pieces of the
      // headland ahead (within the room there is).
      let need = 0;
      for (const f of ACROSS) {
        // Just past the end, so a point on the workable edge itself counts as out.
        const q = { x: p.x + f * w * nx + NUDGE * dx, y: p.y + f * w * ny + NUDGE * dy };
        if (work.contains(q)) need = Math.max(need, NUDGE + rayHit(q, dx, dy, workEdges));
        if (gapIndex) need = Math.max(need, NUDGE + lastInside(q, dx, dy, room - NUDGE, gapIndex, gapEdges));
      }
      return need <= NUDGE + 1e-9 ? 0 : Math.min(need, room);
    };
    const eb = reach(t.b, ux, uy, gapB);
    const ea = reach(t.a, -ux, -uy, gapA);
    if (eb === 0 && ea === 0) return t;
    return {
      ...t,
      a: { x: t.a.x - ea * ux, y: t.a.y - ea * uy },
      b: { x: t.b.x + eb * ux, y: t.b.y + eb * uy },
    };
  });
  return { ...tracks, tracks: out };
}

export interface Edges {
  ax: Float64Array;
  ay: Float64Array;
  bx: Float64Array;
  by: Float64Array;
}

export function ringsEdges(rings: readonly (readonly Point[])[]): Edges {
  const n = rings.reduce((s, r) => s + r.length, 0);
  const e: Edges = {
    ax: new Float64Array(n),
    ay: new Float64Array(n),
    bx: new Float64Array(n),
    by: new Float64Array(n),
  };
  let k = 0;
  for (const r of rings) {
    for (let i = 0; i < r.length; i++) {
      const p = r[i];
      const q = r[(i + 1) % r.length];
      e.ax[k] = p.x;
      e.ay[k] = p.y;
      e.bx[k] = q.x;
      e.by[k] = q.y;
      k++;
    }
  }
  return e;
}

/**
 * The farthest t in [0, maxT] where the ray p + t (dx, dy) is inside the
 * indexed region (0 if nowhere): the ray is cut at its crossings with the
 * region's edges and each piece tested at its middle.
 */
function lastInside(p: Point, dx: number, dy: number, maxT: number, region: EdgeIndex, e: Edges): number {
  const ts = rayHits(p, dx, dy, e, maxT);
  ts.push(maxT);
  let last = 0;
  let t0 = 0;
  for (const t of ts) {
    if (t - t0 > 1e-9) {
      const m = (t0 + t) / 2;
      if (region.contains({ x: p.x + m * dx, y: p.y + m * dy })) last = t;
    }
    t0 = t;
  }
  return last;
}

/** Distances t in (0, maxT) along the ray p + t (dx, dy) where it meets an edge, ascending. */
function rayHits(p: Point, dx: number, dy: number, e: Edges, maxT: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < e.ax.length; i++) {
    const ex = e.bx[i] - e.ax[i];
    const ey = e.by[i] - e.ay[i];
    const den = dx * ey - dy * ex;
    if (Math.abs(den) < 1e-12) continue;
    const wx = e.ax[i] - p.x;
    const wy = e.ay[i] - p.y;
    const t = (wx * ey - wy * ex) / den;
    const s = (wx * dy - wy * dx) / den;
    if (t > 1e-9 && t < maxT && s >= 0 && s <= 1) out.push(t);
  }
  return out.sort((a, b) => a - b);
}

/** Distance along the ray p + t (dx, dy), t > 0, to the first edge it meets (infinity if none). */
export function rayHit(p: Point, dx: number, dy: number, e: Edges): number {
  return rayHits(p, dx, dy, e, Number.POSITIVE_INFINITY)[0] ?? Number.POSITIVE_INFINITY;
}
