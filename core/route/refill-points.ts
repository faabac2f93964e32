/**
 * Refill points: where along the route the machine's tank runs out. The
 * applied volume is rate x swath x distance worked (route tracks and
 * headland passes, in driving order); the tank starts full.
 *
 * - 'Exact': the point where the tank is empty;
 * - 'StartOfTrack': the start of the worked part on which it would run out,
 *   so no part is begun that one tank cannot finish (parts longer than a
 *   whole tank also get exact points inside them);
 * - 'ClosestExternalHeadland': the exact point moved to the nearest point
 *   of the outermost headland pass, where a tender can meet the machine.
 */
import { hypot, nearestOnPolyline, polylineLength } from '../geometry/vec.ts';
import type { PathPart, Point, RefillPoint, RefillStrategy } from '../types/index.ts';

export interface RefillInput {
  /** Driven parts in driving order. */
  parts: readonly PathPart[];
  swathWidth: number;
  /** [l] */
  tankCapacity: number;
  /** [l/m^2] */
  applicationRate: number;
  strategy: RefillStrategy;
  /** The outermost exterior headland pass (closed ring), for 'ClosestExternalHeadland'. */
  outerRing?: readonly Point[];
}

export function refillPoints(input: RefillInput): RefillPoint[] {
  const perMetre = input.applicationRate * input.swathWidth;
  const cap = input.tankCapacity;
  if (!(perMetre > 0) || !(cap > 0)) return [];
  const out: RefillPoint[] = [];
  let left = cap;
  let applied = 0;
  const add = (p: Point, part: PathPart) => {
    let point = p;
    if (input.strategy === 'ClosestExternalHeadland' && input.outerRing && input.outerRing.length > 1) {
      point = nearestOnPolyline(input.outerRing, p);
    }
    out.push({ point, partSequence: part.sequence ?? -1, volumeApplied: applied });
    left = cap;
  };
  for (const part of input.parts) {
    if (!part.working) continue;
    const pts = part.points;
    const need = polylineLength(pts) * perMetre;
    if (input.strategy === 'StartOfTrack' && need > left + 1e-9 && left < cap) add(pts[0], part);
    for (let i = 1; i < pts.length; i++) {
      const a = pts[i - 1];
      const b = pts[i];
      const len = hypot(b.x - a.x, b.y - a.y);
      let done = 0;
      while ((len - done) * perMetre > left + 1e-9) {
        done += left / perMetre;
        applied += left;
        left = 0;
        const t = done / len;
        add({ x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t }, part);
      }
      const rest = (len - done) * perMetre;
      left -= rest;
      applied += rest;
    }
  }
  return out;
}
