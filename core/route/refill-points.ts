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
      point = nearestOnRing(p, input.outerRing);
    }
    out.push({ point, partSequence: part.sequence ?? -1, volumeApplied: applied });
    left = cap;
  };
  for (const part of input.parts) {
    if (!part.working) continue;
    const pts = part.points;
    const need = polyLen(pts) * perMetre;
    if (input.strategy === 'StartOfTrack' && need > left + 1e-9 && left < cap) add(pts[0], part);
    for (let i = 1; i < pts.length; i++) {
      const a = pts[i - 1];
      const b = pts[i];
      const len = Math.hypot(b.x - a.x, b.y - a.y);
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

function nearestOnRing(p: Point, ring: readonly Point[]): Point {
  let best = ring[0];
  let bd = Number.POSITIVE_INFINITY;
  for (let i = 1; i < ring.length; i++) {
    const a = ring[i - 1];
    const b = ring[i];
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const l2 = dx * dx + dy * dy;
    const t = l2 > 0 ? Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2)) : 0;
    const q = { x: a.x + t * dx, y: a.y + t * dy };
    const d = Math.hypot(q.x - p.x, q.y - p.y);
    if (d < bd) {
      bd = d;
      best = q;
    }
  }
  return best;
}

function polyLen(pts: readonly Point[]): number {
  let s = 0;
  for (let i = 1; i < pts.length; i++) s += Math.hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
  return s;
}
