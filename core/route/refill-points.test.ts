/**
 * Refill points: where the tank runs out along the worked parts, by each
 * strategy, and through planField from the machine's capacity and rate.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { planField } from '../plan.ts';
import { type PathPart, PlanningError } from '../types/index.ts';
import { refillPoints } from './refill-points.ts';

const track = (y: number, x0: number, x1: number, sequence: number): PathPart => ({
  type: 'RouteTrack',
  points: [
    { x: x0, y },
    { x: x1, y },
  ],
  working: true,
  sequence,
});
const turn: PathPart = { type: 'Turn', points: [], working: false, sequence: 1 };

// Swath 6 m at 200 l/ha = 0.02 l/m^2: 0.12 l per metre; a 30 l tank lasts 250 m.
const base = { swathWidth: 6, tankCapacity: 30, applicationRate: 0.02 };

describe('refillPoints', () => {
  it("'Exact': where the tank is empty", () => {
    const r = refillPoints({ ...base, parts: [track(0, 0, 1000, 0)], strategy: 'Exact' });
    expect(r.map((p) => p.point.x)).toEqual([250, 500, 750].map((x) => expect.closeTo(x, 6)));
    expect(r.map((p) => p.volumeApplied)).toEqual([30, 60, 90].map((v) => expect.closeTo(v, 6)));
  });

  it("'StartOfTrack': before the track one tank cannot finish", () => {
    const parts = [track(0, 0, 200, 0), turn, track(6, 200, 0, 2), track(12, 0, 200, 3)];
    const r = refillPoints({ ...base, parts, strategy: 'StartOfTrack' });
    // 200 m leaves 6 l: the second track (24 l) starts with a refill, the third with another.
    expect(r.map((p) => [p.point.x, p.point.y, p.partSequence])).toEqual([
      [200, 6, 2],
      [0, 12, 3],
    ]);
    const exact = refillPoints({ ...base, parts, strategy: 'Exact' });
    expect(exact.map((p) => [p.point.x, p.point.y])).toEqual([
      [150, 6],
      [100, 12],
    ]);
  });

  it("'ClosestExternalHeadland': moved onto the outer pass", () => {
    const ring = [
      { x: -10, y: -10 },
      { x: 1010, y: -10 },
      { x: 1010, y: 100 },
      { x: -10, y: 100 },
      { x: -10, y: -10 },
    ];
    const r = refillPoints({
      ...base,
      parts: [track(20, 0, 1000, 0)],
      strategy: 'ClosestExternalHeadland',
      outerRing: ring,
    });
    expect(r.map((p) => [p.point.x, p.point.y])).toEqual([
      [250, -10],
      [500, -10],
      [750, -10],
    ]);
  });
});

function rect() {
  const mLat = 111_320;
  const mLon = 111_320 * Math.cos((55 * Math.PI) / 180);
  const c = [
    [0, 0],
    [300, 0],
    [300, 200],
    [0, 200],
  ].map(([x, y]) => [10 + x / mLon, 55 + y / mLat]);
  return { type: 'Polygon', coordinates: [[...c, c[0]]] };
}

describe('planField with calculateRefillPoints', () => {
  it('places one refill per full tank of the worked distance', () => {
    const req = {
      boundary: rect(),
      machine: { swathWidth: 6, minTurningRadius: 6, tankCapacity: 300, applicationRate: 0.02 },
      exteriorHeadlandPasses: 1,
      route: { calculateRefillPoints: true, refillStrategyType: 'StartOfTrack' as const },
    };
    const plan = planField(req).plan;
    expect(checkPlan(plan)).toEqual([]);
    const worked = plan.stats.workingDistance + plan.stats.headlandDistance;
    const pts = plan.zones[0].refillPoints ?? [];
    // StartOfTrack refills early, so at least one per full tank.
    expect(pts.length).toBeGreaterThanOrEqual(Math.floor((worked * 0.12) / 300));
    const driven = plan.zones[0].groups[0].parts;
    for (const p of pts) {
      const part = driven.find((q) => q.sequence === p.partSequence);
      expect(part?.working).toBe(true);
      expect(Math.hypot(part!.points[0].x - p.point.x, part!.points[0].y - p.point.y)).toBeLessThan(1e-9);
    }
  });

  it('needs the tank capacity and the application rate', () => {
    expect(() =>
      planField({
        boundary: rect(),
        machine: { swathWidth: 6 },
        route: { calculateRefillPoints: true },
      }),
    ).toThrow(PlanningError);
  });
});
