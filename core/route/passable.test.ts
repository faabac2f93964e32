/**
 * usePassable: passable obstacles (features with properties.passable true)
 * are driven over by default; with usePassable false they are obstacles like
 * the field's holes: gone round by interior headland passes, never crossed,
 * and a field part they cut through becomes separate zones.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { planField } from '../plan.ts';
import type { Plan, PlanRequest, Point } from '../types/index.ts';

const mLat = 111_320;
const mLon = 111_320 * Math.cos((55 * Math.PI) / 180);
const ring = (r: [number, number][]) => {
  const c = r.map(([x, y]) => [10 + x / mLon, 55 + y / mLat]);
  return [...c, c[0]];
};
const feature = (r: [number, number][], passable = false) => ({
  type: 'Feature',
  properties: passable ? { passable: true } : {},
  geometry: { type: 'Polygon', coordinates: [ring(r)] },
});
const FIELD: [number, number][] = [
  [0, 0],
  [300, 0],
  [300, 200],
  [0, 200],
];
const POND: [number, number][] = [
  [100, 80],
  [140, 80],
  [140, 120],
  [100, 120],
];
const DRAIN: [number, number][] = [
  [195, -20],
  [205, -20],
  [205, 220],
  [195, 220],
];

const request = (passable: [number, number][], usePassable?: boolean): PlanRequest => ({
  boundary: { type: 'FeatureCollection', features: [feature(FIELD), feature(passable, true)] },
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  decomposition: false,
  ...(usePassable === undefined ? {} : { usePassable }),
});

/** Driven points inside the obstacle or driven segments crossing its edges (its outline in the plan's frame). */
function crossings(plan: Plan, frameRing: Point[]): number {
  const idx = new EdgeIndex([frameRing]);
  let n = 0;
  for (const z of plan.zones)
    for (const p of z.groups[z.activeGroup].parts) {
      if (p.sequence === undefined) continue;
      for (let i = 1; i < p.points.length; i++) if (idx.segmentCrosses(p.points[i - 1], p.points[i])) n++;
      for (const q of p.points) if (idx.contains(q) && idx.distance(q, 0.01) > 0.005) n++;
    }
  return n;
}

describe('usePassable', () => {
  it('false: a passable pond is gone round like a hole and never crossed', () => {
    const r = planField(request(POND, false));
    expect(checkPlan(r.plan)).toEqual([]);
    const pond = POND.map(([x, y]) => r.frame.toMetric(10 + x / mLon, 55 + y / mLat));
    expect(crossings(r.plan, pond)).toBe(0);
    const z = r.plan.zones[0];
    expect(z.boundary.holes.length).toBe(1);
    expect(z.groups[z.activeGroup].parts.some((p) => p.type === 'InteriorHeadlandPass')).toBe(true);
  });

  it('true (the default): the pond is not worked but the route may cross it', () => {
    for (const use of [undefined, true]) {
      const r = planField(request(POND, use));
      expect(checkPlan(r.plan)).toEqual([]);
      const z = r.plan.zones[0];
      expect(z.boundary.holes.length).toBe(0);
      const pond = POND.map(([x, y]) => r.frame.toMetric(10 + x / mLon, 55 + y / mLat));
      expect(crossings(r.plan, pond)).toBeGreaterThan(0);
    }
  });

  it('false: a drain across the whole field splits it into two zones, none crossing it', () => {
    const r = planField(request(DRAIN, false));
    expect(checkPlan(r.plan)).toEqual([]);
    expect(r.plan.zones.length).toBe(2);
    const drain = DRAIN.map(([x, y]) => r.frame.toMetric(10 + x / mLon, 55 + y / mLat));
    expect(crossings(r.plan, drain)).toBe(0);
    const crossed = planField(request(DRAIN));
    expect(crossed.plan.zones.length).toBe(1);
  });
});
