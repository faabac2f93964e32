/**
 * Smoothing of a single open line (a guidance or reference line drawn by
 * hand), by the strategies of the spec's SmoothingStrategyType, sharing the
 * planner's curve code:
 *   - Fillet:        every corner becomes the arc of the radius tangent to both
 *                    edges (filletOpen; corners too close for their arcs merged).
 *   - CornerCutting: Chaikin corner cutting first (the curved tracks'
 *                    reference smoothing, curvedOptions), then filleted so no
 *                    bend is tighter than the radius.
 * The result never bends tighter than the radius; its ends stay where they are.
 */

import { hypot } from '../geometry/vec.ts';
import type { CurvedOptions, Point } from '../types/index.ts';
import { resolveCurvedOptions, smoothLine } from './curved-tracks.ts';
import { filletOpen } from './path-tracks.ts';

/** Three vertices bending less than this [1/m] are on a straight. */
const CURVATURE_EPSILON = 1e-9;

export const SMOOTHING_STRATEGIES = ['Fillet', 'CornerCutting'] as const;
export type SmoothingStrategy = (typeof SMOOTHING_STRATEGIES)[number];

export interface SmoothLineOptions {
  strategy: SmoothingStrategy;
  /** The tightest radius the result may bend at [m]. */
  radius: number;
  /** Corner cutting parameters (CornerCutting). */
  curved?: CurvedOptions;
  /** Simplification before filleting [m] (default 0.05). */
  tolerance?: number;
}

export function smoothPolyline(line: readonly Point[], o: SmoothLineOptions): Point[] {
  const cut = o.strategy === 'CornerCutting' ? smoothLine(line, resolveCurvedOptions(o.curved)) : line;
  return filletOpen(cut, o.radius, { tolerance: o.tolerance ?? 0.05 });
}

/** The tightest radius of a polyline: the least circumradius of three consecutive vertices [m] (Infinity when straight). */
export function tightestRadius(pts: readonly Point[]): number {
  let least = Number.POSITIVE_INFINITY;
  for (let k = 2; k < pts.length; k++) {
    const a = pts[k - 2];
    const b = pts[k - 1];
    const c = pts[k];
    const ab = hypot(b.x - a.x, b.y - a.y);
    const bc = hypot(c.x - b.x, c.y - b.y);
    const ca = hypot(a.x - c.x, a.y - c.y);
    if (ab < 1e-3 || bc < 1e-3 || ca < 1e-3) continue;
    const twiceArea = Math.abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
    if (twiceArea < CURVATURE_EPSILON * ab * bc * ca) continue;
    least = Math.min(least, (ab * bc * ca) / (2 * twiceArea));
  }
  return least;
}
