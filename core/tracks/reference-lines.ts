/**
 * Candidate reference lines a user picks from before planning (the "best
 * edges" of guidance tools):
 *
 * - straight edges: the long straight runs of the field boundary (collinear
 *   edges merged, the small wiggles of a digitized boundary ignored), longest
 *   first, one per direction; farmers like tracks parallel to such an edge;
 * - contours: the long smooth runs of the boundary (no corner sharper than
 *   40 degrees), smoothed, as references for Curved tracks;
 * - default lines: the bearing the planner finds best for straight tracks
 *   (fewest tracks and turns), then the straight edges, each with the number
 *   of tracks it would give.
 */
import { Clipper } from 'clipper2-ts';
import { multiPolygonArea } from '../geometry/polygon.ts';
import { headingToBearingDeg, hypot } from '../geometry/vec.ts';
import { generateHeadlands } from '../headland/generate-headlands.ts';
import type { Point, Polygon } from '../types/index.ts';
import { resolveCurvedOptions, smoothLine, smoothRuns } from './curved-tracks.ts';
import { generateTracks } from './generate-tracks.ts';

export interface ReferenceCandidate {
  kind: 'best' | 'edge' | 'contour';
  /** The line in the metric frame. */
  points: Point[];
  /** Bearing of the line (of its chord for contours) [deg clockwise from north, 0..180). */
  bearingDeg: number;
  /** Length of the line [m]. */
  length: number;
  /** Straight tracks this bearing gives across the workable area (default lines only). */
  trackCount?: number;
  /** Index of the field part the line belongs to. */
  fieldPart: number;
}

/** Boundary wiggles smaller than this are ignored when finding straight runs [m]. */
const EDGE_TOLERANCE = 1;
/** Edges turning less than this are one straight run [rad]. */
const EDGE_MERGE = (4 * Math.PI) / 180;
/** Directions closer than this are the same candidate [deg]. */
const SAME_BEARING = 3;

export function straightEdges(parts: readonly Polygon[], max = 5, minLength = 20): ReferenceCandidate[] {
  const runs: ReferenceCandidate[] = [];
  parts.forEach((part, fieldPart) => {
    const ring = Clipper.simplifyPathD(part.outer as Point[], EDGE_TOLERANCE, true).map((p) => ({
      x: p.x,
      y: p.y,
    }));
    const n = ring.length;
    if (n < 3) return;
    const head = (i: number) => Math.atan2(ring[(i + 1) % n].y - ring[i].y, ring[(i + 1) % n].x - ring[i].x);
    // Start at a vertex where the boundary turns, so no run wraps round the start.
    let start = 0;
    for (let i = 0; i < n; i++) {
      if (Math.abs(wrap(head(i) - head((i - 1 + n) % n))) > EDGE_MERGE) {
        start = i;
        break;
      }
    }
    let from = start;
    for (let k = 1; k <= n; k++) {
      const i = (start + k) % n;
      const turn = Math.abs(wrap(head(i) - head((i - 1 + n) % n)));
      if (turn > EDGE_MERGE || k === n) {
        const a = ring[from];
        const b = ring[i];
        const length = hypot(b.x - a.x, b.y - a.y);
        if (length >= minLength) runs.push(candidate('edge', [a, b], fieldPart));
        from = i;
      }
    }
  });
  return distinct(
    runs.sort((p, q) => q.length - p.length),
    max,
  );
}

export function contourLines(parts: readonly Polygon[], max = 3, minLength = 20): ReferenceCandidate[] {
  const opts = resolveCurvedOptions(undefined);
  const out: ReferenceCandidate[] = [];
  parts.forEach((part, fieldPart) => {
    for (const run of smoothRuns([part])) {
      const pts = smoothLine(run, opts);
      const c = candidate('contour', pts, fieldPart);
      if (c.length >= minLength) out.push(c);
    }
  });
  return out.sort((p, q) => q.length - p.length).slice(0, max);
}

export interface DefaultLineOptions {
  swathWidth: number;
  turningRadius: number;
  exteriorPasses: number;
  interiorPasses: number;
  max?: number;
}

export function defaultLines(parts: readonly Polygon[], opts: DefaultLineOptions): ReferenceCandidate[] {
  const max = opts.max ?? 5;
  // The largest part decides the best bearing; every part's edges are candidates.
  let largest = 0;
  parts.forEach((p, i) => {
    if (multiPolygonArea([p]) > multiPolygonArea([parts[largest]])) largest = i;
  });
  const workable = generateHeadlands(parts[largest], {
    swathWidth: opts.swathWidth,
    exteriorPasses: opts.exteriorPasses,
    interiorPasses: opts.interiorPasses,
    turningRadius: opts.turningRadius,
  }).workable;
  const out: ReferenceCandidate[] = [];
  if (multiPolygonArea(workable) > 1e-3) {
    const best = generateTracks(workable, { swathWidth: opts.swathWidth });
    if (best.tracks.length) {
      out.push({
        ...candidate('best', best.abLine, largest),
        bearingDeg: round6(best.bearingDeg),
        trackCount: best.tracks.length,
      });
    }
  }
  for (const e of straightEdges(parts, max)) {
    const area =
      e.fieldPart === largest
        ? workable
        : generateHeadlands(parts[e.fieldPart], {
            swathWidth: opts.swathWidth,
            exteriorPasses: opts.exteriorPasses,
            interiorPasses: opts.interiorPasses,
            turningRadius: opts.turningRadius,
          }).workable;
    const count =
      multiPolygonArea(area) > 1e-3
        ? generateTracks(area, { swathWidth: opts.swathWidth, preferredBearingDeg: e.bearingDeg }).tracks
            .length
        : 0;
    out.push({ ...e, trackCount: count });
  }
  return distinct(out, max);
}

function candidate(kind: ReferenceCandidate['kind'], points: Point[], fieldPart: number): ReferenceCandidate {
  const a = points[0];
  const b = points[points.length - 1];
  let length = 0;
  for (let i = 1; i < points.length; i++)
    length += hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y);
  return {
    kind,
    points,
    bearingDeg: round6(headingToBearingDeg(Math.atan2(b.y - a.y, b.x - a.x)) % 180),
    length,
    fieldPart,
  };
}

/** The first candidate of each direction (within SAME_BEARING degrees), at most max. */
function distinct(list: readonly ReferenceCandidate[], max: number): ReferenceCandidate[] {
  const out: ReferenceCandidate[] = [];
  for (const c of list) {
    if (out.length >= max) break;
    const near = out.some((o) => {
      const d = Math.abs(o.bearingDeg - c.bearingDeg) % 180;
      return Math.min(d, 180 - d) < SAME_BEARING;
    });
    if (!near) out.push(c);
  }
  return out;
}

function wrap(a: number): number {
  let d = a;
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d < -Math.PI) d += 2 * Math.PI;
  return d;
}

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}
