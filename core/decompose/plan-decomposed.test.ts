/**
 * Decomposed plans end to end: several zones with their own directions, one
 * continuous route across them, every invariant of the shared plan checker
 * (which also checks continuity between the zones of a part), and a real
 * saving over the same field planned as one zone.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus, loadBenchmarkSelection } from '../../test/helpers/corpus.ts';
import { intersectionArea } from '../geometry/clip.ts';
import { multiPolygonArea, polygonArea } from '../geometry/polygon.ts';
import { planField } from '../plan.ts';
import type { Plan, PlanRequest } from '../types/index.ts';

const S1 = { swath: 6, radius: 6, exterior: 2, interior: 1 };
const S2 = { swath: 24, radius: 8, exterior: 1, interior: 1 };

function lonLat(pts: [number, number][], lon0 = 9.5, lat0 = 52.3) {
  const mLat = 111_320;
  const mLon = 111_320 * Math.cos((lat0 * Math.PI) / 180);
  const c = pts.map(([x, y]) => [lon0 + x / mLon, lat0 + y / mLat]);
  return { type: 'Polygon', coordinates: [[...c, c[0]]] };
}

function request(boundary: unknown, s: typeof S1, extra: Partial<PlanRequest> = {}): PlanRequest {
  return {
    boundary,
    machine: { swathWidth: s.swath, minTurningRadius: s.radius },
    exteriorHeadlandPasses: s.exterior,
    interiorHeadlandPasses: s.interior,
    ...extra,
  };
}

const L: [number, number][] = [
  [0, 0],
  [300, 0],
  [300, 80],
  [80, 80],
  [80, 300],
  [0, 300],
];
// A U whose base is long enough that working it across saves clearly more
// than the connections between the cells cost, and one too small for that.
const U_LONG: [number, number][] = [
  [0, 0],
  [400, 0],
  [400, 400],
  [320, 400],
  [320, 80],
  [80, 80],
  [80, 400],
  [0, 400],
];
const U_SHORT: [number, number][] = [
  [0, 0],
  [180, 0],
  [180, 180],
  [125, 180],
  [125, 55],
  [55, 55],
  [55, 180],
  [0, 180],
];

function cells(plan: Plan) {
  return plan.zones.filter((z) => z.decomposition?.role === 'cell');
}

function expectValid(plan: Plan) {
  const v = checkPlan(plan);
  expect(v.slice(0, 5)).toEqual([]);
}

/** The zones of each part partition it: areas add up, no overlaps. */
function expectZonesPartition(plan: Plan) {
  const byPart = new Map<number, typeof plan.zones>();
  for (const z of plan.zones) byPart.set(z.fieldPart ?? -1, [...(byPart.get(z.fieldPart ?? -1) ?? []), z]);
  for (const zs of byPart.values()) {
    const part = zs[0].partBoundary;
    if (!part) continue;
    const sum = zs.reduce((s, z) => s + polygonArea(z.boundary), 0);
    expect(Math.abs(sum - polygonArea(part))).toBeLessThan(1e-4 * polygonArea(part));
    for (let i = 0; i < zs.length; i++)
      for (let j = i + 1; j < zs.length; j++)
        expect(intersectionArea([zs[i].boundary], [zs[j].boundary])).toBeLessThan(1e-2);
  }
}

describe('decomposed plans', () => {
  it('an L field: two cells at right angles and the headland, fewer turns and less non-working distance', () => {
    const one = planField(request(lonLat(L), S1, { decomposition: false })).plan;
    const plan = planField(request(lonLat(L), S1)).plan;
    expectValid(plan);
    expectZonesPartition(plan);
    const cs = cells(plan);
    expect(cs).toHaveLength(2);
    expect(plan.zones.filter((z) => z.decomposition?.role === 'headland')).toHaveLength(1);
    const [a, b] = cs.map((z) => z.groups[0].bearingDeg);
    const diff = Math.abs(a - b) % 180;
    expect(Math.min(diff, 180 - diff)).toBeGreaterThan(85);
    // Every zone's tracks run at its own bearing.
    for (const z of cs) {
      for (const p of z.groups[0].parts.filter((q) => q.type === 'GuidanceTrack'))
        expect(p.bearingDeg).toBeCloseTo(z.groups[0].bearingDeg, 6);
    }
    expect(plan.stats.turnCount).toBeLessThan(0.6 * one.stats.turnCount);
    expect(plan.stats.nonWorkingDistance).toBeLessThan(0.9 * one.stats.nonWorkingDistance);
    expect(plan.stats.totalTime).toBeLessThan(one.stats.totalTime);
    const report = cs[0].decomposition?.report;
    expect(report?.cells).toBe(2);
    expect(report?.baseline.turnCount).toBe(one.stats.turnCount);
    expect(report?.baseline.nonWorkingDistance).toBeCloseTo(one.stats.nonWorkingDistance, 6);
    // The zones' areas add up to the field's.
    expect(plan.stats.fieldArea).toBeCloseTo(one.stats.fieldArea, 0);
  });

  it('a U with a long base: the base across, the arms along', () => {
    const one = planField(request(lonLat(U_LONG), S1, { decomposition: false })).plan;
    const plan = planField(request(lonLat(U_LONG), S1)).plan;
    expectValid(plan);
    expectZonesPartition(plan);
    expect(cells(plan)).toHaveLength(3);
    expect(plan.stats.nonWorkingDistance).toBeLessThan(0.9 * one.stats.nonWorkingDistance);
  });

  it('a narrow corridor between two blocks gets passes along it, not stubs across it', () => {
    // Two tall blocks joined by a corridor 34 m wide: 10 m inside the 12 m of headland on each side (< 2 swaths).
    const dumbbell: [number, number][] = [
      [0, 0],
      [120, 0],
      [120, 180],
      [320, 180],
      [320, 0],
      [440, 0],
      [440, 400],
      [320, 400],
      [320, 214],
      [120, 214],
      [120, 400],
      [0, 400],
    ];
    const one = planField(request(lonLat(dumbbell), S1, { decomposition: false })).plan;
    const plan = planField(request(lonLat(dumbbell), S1)).plan;
    expectValid(plan);
    expectZonesPartition(plan);
    const cs = cells(plan);
    expect(cs).toHaveLength(3);
    // The corridor: the cell between the blocks (the metric frame is centred on the field), its tracks
    // running east-west along it.
    const midX = (z: (typeof cs)[0]) => {
      const xs = z.boundary.outer.map((p) => p.x);
      return Math.abs((Math.min(...xs) + Math.max(...xs)) / 2);
    };
    const corridor = cs.reduce((a, z) => (midX(z) < midX(a) ? z : a));
    expect(corridor).toBeDefined();
    const b = corridor?.groups[0].bearingDeg ?? 0;
    expect(Math.abs(b - 90)).toBeLessThan(1);
    for (const z of cs)
      if (z !== corridor)
        expect(Math.min(z.groups[0].bearingDeg, 180 - z.groups[0].bearingDeg)).toBeLessThan(1);
    // As one zone, north-south tracks cross the corridor as dozens of short stubs.
    expect(plan.stats.trackCount).toBeLessThan(0.6 * one.stats.trackCount);
    expect(plan.stats.nonWorkingDistance).toBeLessThan(0.9 * one.stats.nonWorkingDistance);
  });

  it('a comb: its back across, each tooth along its length', () => {
    // Three teeth 60 m wide and 200 m long, 150 m apart, on a back 72 m deep.
    const comb: [number, number][] = [
      [0, 0],
      [480, 0],
      [480, 272],
      [420, 272],
      [420, 72],
      [270, 72],
      [270, 272],
      [210, 272],
      [210, 72],
      [60, 72],
      [60, 272],
      [0, 272],
    ];
    const one = planField(request(lonLat(comb), S1, { decomposition: false })).plan;
    const plan = planField(request(lonLat(comb), S1)).plan;
    expectValid(plan);
    expectZonesPartition(plan);
    const cs = cells(plan);
    expect(cs).toHaveLength(4);
    // Along within 3 degrees: the rounded corners at the foot of a tooth may tilt its best direction a little.
    const across = (z: (typeof cs)[0]) => Math.abs(z.groups[0].bearingDeg - 90) < 3;
    const along = (z: (typeof cs)[0]) => Math.min(z.groups[0].bearingDeg, 180 - z.groups[0].bearingDeg) < 3;
    expect(cs.filter(across)).toHaveLength(1);
    expect(cs.filter(along)).toHaveLength(3);
    expect(plan.stats.turnCount).toBeLessThan(0.5 * one.stats.turnCount);
    expect(plan.stats.nonWorkingDistance).toBeLessThan(0.9 * one.stats.nonWorkingDistance);
  });

  it('a short U stays one zone: splitting it would not pay for the connections', () => {
    const plan = planField(request(lonLat(U_SHORT), S1)).plan;
    expectValid(plan);
    expect(plan.zones).toHaveLength(1);
    expect(plan.zones[0].decomposition).toBeUndefined();
  });

  it('decomposition: false and a preferred direction keep one zone per part', () => {
    expect(planField(request(lonLat(L), S1, { decomposition: false })).plan.zones).toHaveLength(1);
    expect(planField(request(lonLat(L), S1, { preferredBearingDeg: 90 })).plan.zones).toHaveLength(1);
  });

  it('headlands first, start and end nodes: one route from the start node to the end node', () => {
    const plan = planField(
      request(lonLat(L), S1, {
        route: { headlandsFirst: true, startPointNodeIndex: 0, endPointNodeIndex: 3 },
      }),
    ).plan;
    expectValid(plan);
    const zs = plan.zones;
    expect(zs[0].decomposition?.role).toBe('headland');
    const driven = zs
      .flatMap((z) => z.groups[0].parts)
      .filter((p) => p.sequence !== undefined)
      .sort((p, q) => (p.sequence as number) - (q.sequence as number));
    expect(driven[0].sequence).toBe(0);
    expect(driven.findIndex((p) => p.type === 'ExteriorHeadlandPass')).toBeLessThan(
      driven.findIndex((p) => p.type === 'RouteTrack'),
    );
  });

  it('refill points run on from zone to zone: one tank over the whole part', () => {
    const plan = planField(
      request(lonLat(L), S1, {
        machine: { swathWidth: 6, minTurningRadius: 6, tankCapacity: 1000, applicationRate: 200 / 10_000 },
        route: { calculateRefillPoints: true },
      }),
    ).plan;
    expect(cells(plan)).toHaveLength(2);
    const points = plan.zones.flatMap((z) => z.refillPoints ?? []);
    // 200 l/ha over about 6.6 ha worked, 1000 l a tank: six refills, counted across the zones.
    const worked = plan.stats.coveredArea + plan.stats.overlapArea;
    expect(points).toHaveLength(Math.floor((worked * 200) / 10_000 / 1000 + 1e-9));
    const volumes = points.sort((a, b) => a.partSequence - b.partSequence).map((r) => r.volumeApplied);
    for (const [k, v] of volumes.entries()) expect(v).toBeCloseTo(1000 * (k + 1), 0);
    // Each point sits in the zone that drives its part.
    for (const z of plan.zones) {
      const seqs = new Set(z.groups[0].parts.map((p) => p.sequence));
      for (const r of z.refillPoints ?? []) expect(seqs.has(r.partSequence)).toBe(true);
    }
  });

  it('every route algorithm keeps the invariants on a decomposed field', () => {
    for (const algorithm of ['boustrophedon', 'snake', 'optimized'] as const) {
      const plan = planField(
        request(lonLat(U_LONG), S1, { route: { algorithm, maxEvaluations: 20_000 } }),
      ).plan;
      expectValid(plan);
    }
  });

  it('S2 (24 m swath) plans of the same shapes keep the invariants', () => {
    for (const shape of [L, U_LONG, U_SHORT]) {
      const plan = planField(request(lonLat(shape), S2)).plan;
      expectValid(plan);
      expect(multiPolygonArea(plan.zones.map((z) => z.boundary))).toBeGreaterThan(0);
    }
  });
});

describe.runIf(hasCorpus())('decomposed plans of real concave fields', () => {
  // Strongly concave fields of the benchmark selection where decomposition
  // paid when this test was written; each plan must be valid, each
  // decomposed one must save, and most of them must still be decomposed.
  const ids = [
    'fiboa-ec_si:6691720',
    'fiboa-us_usda_cropland:351724000000043',
    'fiboa-de_sh:DESHLIL020100582',
    'fiboa-at:106866531',
    'fiboa-us_usda_cropland:351724000000025',
  ];
  it('plans them valid, decomposes most of them, and saves where it does', () => {
    const fields = loadBenchmarkSelection().filter((s) => ids.includes(s.id));
    expect(fields).toHaveLength(ids.length);
    let decomposed = 0;
    for (const f of fields) {
      const plan = planField(request(f.feature, S1)).plan;
      expect(checkPlan(plan).slice(0, 3), f.id).toEqual([]);
      if (cells(plan).length < 2) continue;
      decomposed++;
      expectZonesPartition(plan);
      const one = planField(request(f.feature, S1, { decomposition: false })).plan;
      expect(plan.stats.nonWorkingDistance, f.id).toBeLessThanOrEqual(0.9 * one.stats.nonWorkingDistance);
      expect(plan.stats.totalTime, f.id).toBeLessThan(one.stats.totalTime);
      expect(plan.stats.coveredArea, f.id).toBeGreaterThan(
        one.stats.coveredArea - 0.005 * one.stats.fieldArea,
      );
    }
    expect(decomposed).toBeGreaterThanOrEqual(2);
  });
});
