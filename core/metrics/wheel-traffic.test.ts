/**
 * Wheel traffic: the tracks of each axle's wheels along the route, counted
 * by passes, their union the trafficked area. A season of three operations
 * (3, 9 and 27 m working widths) on one field: with every machine on a 3 m
 * track width, a divisor of every working width (controlled traffic), the
 * wheels of all three run on shared lanes, some 17 % of the field; with
 * track widths that divide none of them (random traffic) they run on more
 * than twice as much.
 */
import { describe, expect, it } from 'vitest';
import { intersectionArea } from '../geometry/clip.ts';
import { planField } from '../plan.ts';
import type { PathPart, Polygon } from '../types/index.ts';
import { passTracks, wheelBands, wheelTraffic } from './wheel-traffic.ts';

const W = 270;
const H = 200;
const field: Polygon[] = [
  {
    outer: [
      { x: 0, y: 0 },
      { x: W, y: 0 },
      { x: W, y: H },
      { x: 0, y: H },
    ],
    holes: [],
  },
];

/** Straight tracks of one operation across the field at its working width, alternating direction. */
function operation(swath: number, first: number): PathPart[] {
  const parts: PathPart[] = [];
  for (let x = swath / 2, k = 0; x < W; x += swath, k++) {
    const a = { x, y: 0 };
    const b = { x, y: H };
    parts.push({ type: 'RouteTrack', points: k % 2 ? [b, a] : [a, b], working: true, sequence: first + k });
  }
  return parts;
}

const TYRE = 0.5;
const season = (trackWidths: [number, number, number]) =>
  [3, 9, 27].map((swath, i) => ({ parts: operation(swath, 1000 * i), trackWidth: trackWidths[i] }));

/** Share of the field the wheels of several operations (each with its own machine) run on. */
function seasonShare(ops: { parts: PathPart[]; trackWidth: number }[]): number {
  const tracks = ops.flatMap((op) =>
    op.parts.flatMap((p) => passTracks(p.points, wheelBands([op.trackWidth], [TYRE]))),
  );
  return intersectionArea(tracks, field) / (W * H);
}

describe('wheel traffic', () => {
  it('merges the bands of axles that run in each other’s tracks', () => {
    const [[a, b], ...rest] = wheelBands([1.8, 1.8], [0.5, 0.6]);
    expect([a, b, rest.length]).toEqual([expect.closeTo(0.6, 9), expect.closeTo(1.2, 9), 0]);
    expect(wheelBands([0.2], [0.5])).toEqual([[0, 0.35]]);
    expect(wheelBands([2, 3], [0.4, 0.4])).toEqual([
      [0.8, 1.2],
      [1.3, 1.7],
    ]);
    expect(wheelBands([2], [])).toEqual([]);
  });

  it('counts passes: one machine whose track width equals its swath runs every lane twice', () => {
    const parts = operation(3, 0);
    const t = wheelTraffic(parts, [3], [TYRE], field);
    // Lanes every 3 m, 0.5 m wide (the two edge lanes half in the field).
    expect(t.traffickedArea).toBeCloseTo((W / 3) * TYRE * H, -1);
    const byPasses = Object.fromEntries(t.layers.map((l) => [l.passes, l.area]));
    expect(byPasses[2]).toBeGreaterThan(0.95 * t.traffickedArea);
    expect(byPasses[3]).toBeUndefined();
    // The layers partition the trafficked area.
    expect(t.layers.reduce((s, l) => s + l.area, 0)).toBeCloseTo(t.traffickedArea, 0);
    // A machine without tyre data runs on nothing measurable.
    expect(wheelTraffic(parts, [3], [], field)).toEqual({ layers: [], traffickedArea: 0 });
  });

  it('controlled traffic (track width a divisor of every swath) tracks much less of the field than random traffic', () => {
    const controlled = seasonShare(season([3, 3, 3]));
    const random = seasonShare(season([1.8, 2.25, 2.0]));
    // Lanes of 0.5 m every 3 m: 1/6 of the field, as the ~15 % measured on controlled traffic farms.
    expect(controlled).toBeCloseTo(1 / 6, 2);
    // 1/3 + 1/9 + 1/27 of the field less their overlaps (38 %): toward the 40-60 % of random traffic.
    expect(random).toBeGreaterThan(0.35);
    expect(random).toBeGreaterThan(2.2 * controlled);
    // The same passes counted by wheelTraffic: three operations of one 3 m track machine share their lanes.
    const all = season([3, 3, 3]).flatMap((o) => o.parts);
    const t = wheelTraffic(all, [3], [TYRE], field);
    expect(t.traffickedArea / (W * H)).toBeCloseTo(controlled, 3);
    expect(t.layers.find((l) => l.passes === 3)?.area).toBeGreaterThan(0);
  });

  it('plan statistics give the union of the wheel tracks, not route length x tyre widths', () => {
    const r = planField({
      boundary: {
        type: 'Polygon',
        coordinates: [
          [
            [10, 55],
            [10.004, 55],
            [10.004, 55.002],
            [10, 55.002],
            [10, 55],
          ],
        ],
      },
      machine: { swathWidth: 6, minTurningRadius: 6, trackWidths: [1.8], tireWidths: [0.5] },
      exteriorHeadlandPasses: 2,
      route: { algorithm: 'boustrophedon' },
    });
    const s = r.plan.stats;
    expect(s.traffickedArea).toBeGreaterThan(0);
    // Headland turns and passes cross the tracks' ends: the union is less than the sum.
    expect(s.traffickedArea).toBeLessThan(s.totalDistance * 2 * 0.5);
    expect(s.traffickedAreaPercent).toBeCloseTo((100 * (s.traffickedArea ?? 0)) / s.fieldArea, 9);
    expect(s.traffickedAreaPercent).toBeGreaterThan(10);
    expect(s.traffickedAreaPercent).toBeLessThan(40);
  });
});
