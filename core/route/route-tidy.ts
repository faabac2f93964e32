/**
 * No driven part shorter than a few centimetres: a turn whose first or last
 * piece is a stub (a fishtail's 2 cm forward creep before it reverses, say)
 * or a piece of no length would be a stop and start, or a cusp, with no way
 * between. Such a part is merged into the turn or connector beside it that
 * is driven the same way, else it is dropped and the turn or connector
 * beside it (driven the other way) ends or starts where the stub did: the
 * route stays continuous, and tracks keep the geometry of their guidance
 * tracks.
 */
import type { PathPart, Point } from '../types/index.ts';

/** Driven parts shorter than this are merged or dropped [m]. */
export const MIN_PART_LENGTH = 0.05;

export function withoutDegenerateParts(parts: readonly PathPart[]): PathPart[] {
  const list = parts.slice();
  const out: PathPart[] = [];
  for (let i = 0; i < list.length; i++) {
    const p = list[i];
    const l = length(p.points);
    if (l >= MIN_PART_LENGTH || list.length === 1) {
      out.push(p);
      continue;
    }
    // No length: nothing to drive, and the neighbours meet where it is.
    if (l < 1e-6) continue;
    const prev = out[out.length - 1] as PathPart | undefined;
    const next = list[i + 1] as PathPart | undefined;
    const same = (q: PathPart | undefined) => q !== undefined && !!q.reverse === !!p.reverse;
    // Tracks keep their geometry (they follow their guidance tracks); passes and turns may take a stub.
    const free = (q: PathPart | undefined): q is PathPart => q !== undefined && q.type !== 'RouteTrack';
    if (free(next) && same(next) && !next.working) {
      list[i + 1] = { ...next, points: [...p.points.slice(0, -1), ...next.points] };
    } else if (free(prev) && same(prev) && !prev.working) {
      out[out.length - 1] = { ...prev, points: [...prev.points, ...p.points.slice(1)] };
    } else if (free(prev) && !prev.working) {
      // Driven the other way: the previous part ends where the stub did.
      out[out.length - 1] = { ...prev, points: [...prev.points.slice(0, -1), last(p.points)] };
    } else if (free(next) && !next.working) {
      list[i + 1] = { ...next, points: [p.points[0], ...next.points.slice(1)] };
    } else if (free(next) && same(next)) {
      list[i + 1] = { ...next, points: [...p.points.slice(0, -1), ...next.points] };
    } else if (free(prev) && same(prev)) {
      out[out.length - 1] = { ...prev, points: [...prev.points, ...p.points.slice(1)] };
    } else out.push(p);
  }
  return out;
}

function last(pts: readonly Point[]): Point {
  return pts[pts.length - 1];
}

function length(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += Math.hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
  return s;
}
