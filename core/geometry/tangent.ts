/**
 * The heading of the curve a sampled path draws, at one of its ends.
 *
 * Driven paths are straights, arcs and clothoids drawn as polylines: the
 * vertices lie on the curve, a curved stretch has its vertices at most
 * `maxChord` apart, and a chord turns away from the curve's tangent at its
 * end by half the heading change along it:
 *
 *                   P2   tangent at P2 = chord P1->P2 + a2
 *            a2 .-'
 *        P1 .-'          on a circle through P0, P1, P2:
 *        .'              sin a2 = |P1P2| sin(tau) / |P0P2|,
 *      P0                tau = turn of the polyline at P1.
 *
 * So the heading of the last chord is off the curve by up to half a
 * sampling step (2.5 degrees at 5-degree sampling), and the circle through
 * the last three vertices gives the tangent exactly on an arc or straight.
 * A chord longer than maxChord is a straight (curves are drawn finer): its
 * own heading is the tangent, and when it comes just before the last chord,
 * all the turning at P1 belongs to the last chord (tangent = chord + tau,
 * exact where a sampled arc leaves a straight). The tangent never strays
 * from the last chord by more than a curve of at most maxCurvature can.
 */
import type { Point } from '../types/index.ts';
import { hypot } from './vec.ts';

/** Vertices closer than this [m] give no heading. */
const MIN_CHORD = 1e-9;

/**
 * Tangent heading [rad] at the last point of pts, in the direction of the
 * points (see the file comment). pts needs 2 or more points.
 */
export function endTangent(
  pts: readonly Point[],
  maxChord = 1,
  maxCurvature = Number.POSITIVE_INFINITY,
): number {
  const n = pts.length;
  return tangentAt(pts[n - 3], pts[n - 2], pts[n - 1], maxChord, maxCurvature);
}

/**
 * Tangent heading [rad] at the first point of pts, in the direction of the
 * points: as endTangent read backwards, turned round.
 */
export function startTangent(
  pts: readonly Point[],
  maxChord = 1,
  maxCurvature = Number.POSITIVE_INFINITY,
): number {
  const h = tangentAt(pts[2], pts[1], pts[0], maxChord, maxCurvature);
  return h > 0 ? h - Math.PI : h + Math.PI;
}

/** Tangent at c of the curve sampled at a (may be undefined), b, c. */
function tangentAt(a: Point | undefined, b: Point, c: Point, maxChord: number, maxCurvature: number): number {
  const h = Math.atan2(c.y - b.y, c.x - b.x);
  const c1 = hypot(c.x - b.x, c.y - b.y);
  if (a === undefined || c1 > maxChord || c1 < MIN_CHORD) return h;
  const c0 = hypot(b.x - a.x, b.y - a.y);
  if (c0 < MIN_CHORD) return h;
  let tau = h - Math.atan2(b.y - a.y, b.x - a.x);
  if (tau > Math.PI) tau -= 2 * Math.PI;
  else if (tau < -Math.PI) tau += 2 * Math.PI;
  let dev: number;
  if (c0 > maxChord) dev = tau;
  else {
    const far = hypot(c.x - a.x, c.y - a.y);
    if (far < MIN_CHORD) return h;
    dev = Math.sign(tau) * Math.asin(Math.min(1, (c1 * Math.sin(Math.abs(tau))) / far));
  }
  // A curve of curvature k turns a chord of length c away from its end tangent by asin(c k / 2) at most.
  const cap = maxCurvature * c1 < 2 ? Math.asin((maxCurvature * c1) / 2) : Math.PI / 2;
  return h + Math.max(-cap, Math.min(cap, dev));
}
