/**
 * Lobes of a headland pass: the stretches of its planned line no driven ring
 * follows. A stretch the ring cuts by more than a quarter swath, too short
 * or too near it to be a lobe of its own, is a shallow lobe (worked along
 * the planned line where the route can leave and rejoin the ring there).
 */
import { describe, expect, it } from 'vitest';
import type { Point } from '../types/index.ts';
import { undrivenLobes } from './drive-lobes.ts';
import { RingPath } from './ring-path.ts';
import type { RouteRing } from './route-links.ts';

const square: Point[] = [
  { x: 0, y: 0 },
  { x: 100, y: 0 },
  { x: 100, y: 100 },
  { x: 0, y: 100 },
];

/** The square with its corner at (100, 100) cut c m back along both sides, as driven ring of pass 1. */
function cut(c: number): RouteRing[] {
  const pts = [square[0], square[1], { x: 100, y: 100 - c }, { x: 100 - c, y: 100 }, square[3]];
  return [{ ring: { passNumber: 1, ring: pts }, path: new RingPath(pts), exterior: true }];
}

const reference = [{ passNumber: 1, ring: square }];
const shallow = { reach: 1.5, minLength: 12 };

describe('undriven lobes', () => {
  it('a corner cut 7 m deep: no lobe, but a shallow one about 16 m long round the corner', () => {
    expect(undrivenLobes(reference, cut(10), 1, 6, 24)).toEqual([]);
    const lobes = undrivenLobes(reference, cut(10), 1, 6, 24, shallow);
    expect(lobes).toHaveLength(1);
    expect(lobes[0].shallow).toBe(true);
    expect(lobes[0].closed).toBe(false);
    const ends = [lobes[0].points[0], lobes[0].points[lobes[0].points.length - 1]];
    // From about 7.9 m before the corner to as far after it (x + y = 190, 1.5 m off).
    for (const e of ends) expect(Math.max(100 - e.x, 100 - e.y)).toBeGreaterThan(7);
    for (const e of ends) expect(Math.max(100 - e.x, 100 - e.y)).toBeLessThan(9);
  });

  it('a corner cut a little: no lobe of either kind', () => {
    expect(undrivenLobes(reference, cut(3), 1, 6, 24, shallow)).toEqual([]);
  });

  it('a corner cut deep over a long stretch: a lobe of its own, not a shallow one', () => {
    const lobes = undrivenLobes(reference, cut(40), 1, 6, 24, shallow);
    expect(lobes).toHaveLength(1);
    expect(lobes[0].shallow).toBeUndefined();
  });
});
