import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Point } from '../types/index.ts';
import { filletRing } from './fillet.ts';
import { signedArea } from './polygon.ts';

function curvatures(ring: readonly Point[]): number[] {
  const n = ring.length;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = ring[(i - 1 + n) % n];
    const b = ring[i];
    const c = ring[(i + 1) % n];
    const ab = Math.hypot(b.x - a.x, b.y - a.y);
    const bc = Math.hypot(c.x - b.x, c.y - b.y);
    const ca = Math.hypot(a.x - c.x, a.y - c.y);
    if (ab < 1e-3 || bc < 1e-3 || ca < 1e-3) continue;
    out.push((2 * Math.abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x))) / (ab * bc * ca));
  }
  return out;
}

function headingSteps(ring: readonly Point[]): number[] {
  const n = ring.length;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = ring[(i - 1 + n) % n];
    const b = ring[i];
    const c = ring[(i + 1) % n];
    let d = Math.atan2(c.y - b.y, c.x - b.x) - Math.atan2(b.y - a.y, b.x - a.x);
    while (d > Math.PI) d -= 2 * Math.PI;
    while (d < -Math.PI) d += 2 * Math.PI;
    out.push(Math.abs(d));
  }
  return out;
}

describe('filletRing', () => {
  it('rounds the corners of a square with exact arcs', () => {
    const sq = [
      { x: 0, y: 0 },
      { x: 100, y: 0 },
      { x: 100, y: 100 },
      { x: 0, y: 100 },
    ];
    const r = filletRing(sq, 10)!;
    expect(Math.max(...curvatures(r))).toBeCloseTo(0.1, 9);
    expect(Math.max(...headingSteps(r))).toBeLessThanOrEqual((5 * Math.PI) / 180 + 1e-9);
    // Area: square less four corner pieces r^2 (1 - pi/4).
    expect(signedArea(r)).toBeCloseTo(10000 - 4 * 100 * (1 - Math.PI / 4), 0);
  });

  it('property: random star rings become drivable (curvature <= 1/r, steps <= 5 degrees)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 30 }),
        fc.double({ min: 20, max: 300, noNaN: true }),
        fc.double({ min: 0.3, max: 1, noNaN: true }),
        fc.double({ min: 1, max: 15, noNaN: true }),
        (n, r0, ratio, rad) => {
          const ring: Point[] = [];
          for (let i = 0; i < 2 * n; i++) {
            const a = (i / (2 * n)) * 2 * Math.PI;
            const r = i % 2 ? r0 * ratio : r0;
            ring.push({ x: r * Math.cos(a), y: r * Math.sin(a) });
          }
          const out = filletRing(ring, rad);
          if (!out) return;
          for (const k of curvatures(out)) expect(k).toBeLessThanOrEqual((1 / rad) * 1.0001);
          for (const s of headingSteps(out)) expect(s).toBeLessThanOrEqual((5 * Math.PI) / 180 + 1e-9);
        },
      ),
      { numRuns: 200 },
    );
  });
});
