import type { Point } from '../../core/types/index.ts';

/**
 * A star-shaped ring of n vertices round (cx, cy), counter-clockwise from
 * angle `phase`: even vertices at radius r1, odd ones at r0.
 */
export function starRing(n: number, r0: number, r1: number, cx: number, cy: number, phase: number): Point[] {
  const ring: Point[] = [];
  for (let i = 0; i < n; i++) {
    const a = phase + (i / n) * 2 * Math.PI;
    const r = i % 2 ? r0 : r1;
    ring.push({ x: cx + r * Math.cos(a), y: cy + r * Math.sin(a) });
  }
  return ring;
}
