/**
 * connectPoses with one more check: a path whose start lies on the field
 * edge (a pass that runs along it) can leave the field without crossing an
 * edge, since touching is not crossing. Such a path is refused here: each
 * piece's second, middle and last points must lie inside the field (or
 * within 1 cm of its edge).
 */
import type { EdgeIndex } from '../geometry/edge-index.ts';
import type { Pose } from '../types/index.ts';
import { type Connection, connectPoses } from './connect.ts';

/** Points this close to the field edge count as inside [m] (the plan checker's tolerance). */
const EDGE_TOLERANCE = 0.01;

export function connectInside(
  from: Pose,
  to: Pose,
  radius: number,
  region: EdgeIndex,
  opts: Parameters<typeof connectPoses>[4] = {},
): Connection | null {
  const c = connectPoses(from, to, radius, region, opts);
  return c && staysInside(c, region) ? c : null;
}

export function staysInside(c: Connection, region: EdgeIndex): boolean {
  for (const piece of c.pieces) {
    const pts = piece.points;
    const n = pts.length;
    if (n < 2) continue;
    for (const q of [pts[1], pts[n >> 1], pts[n - 1]]) {
      if (!region.contains(q) && region.clearance(q, 1) > EDGE_TOLERANCE) return false;
    }
  }
  return true;
}
