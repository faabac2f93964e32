/**
 * Route options beyond the order: headlandsFirst drives the exterior passes
 * (outermost first) before the tracks; forcedDirection winds every headland
 * pass clockwise or counter-clockwise. Every plan passes the plan checker.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus, loadBenchmarkSelection, sampleSelection } from '../../test/helpers/corpus.ts';
import { planField } from '../plan.ts';
import { type PathPart, PlanningError, type PlanRequest, type Point } from '../types/index.ts';

function metres(rings: [number, number][][]) {
  const mLat = 111_320;
  const mLon = 111_320 * Math.cos((55 * Math.PI) / 180);
  return {
    type: 'Polygon',
    coordinates: rings.map((r) => {
      const c = r.map(([x, y]) => [10 + x / mLon, 55 + y / mLat]);
      return [...c, c[0]];
    }),
  };
}

// A field with an obstacle, so there are exterior and interior passes.
const field = metres([
  [
    [0, 0],
    [320, 0],
    [340, 200],
    [0, 180],
  ],
  [
    [140, 80],
    [140, 110],
    [180, 110],
    [180, 80],
  ],
]);

const request = (route: PlanRequest['route']): PlanRequest => ({
  boundary: field,
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  route,
});

function driven(parts: PathPart[]): PathPart[] {
  return parts.filter((p) => p.sequence !== undefined).sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
}

/** Twice the signed area swept by a pass (positive: counter-clockwise). */
function winding(pts: Point[]): number {
  let a = 0;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) a += pts[j].x * pts[i].y - pts[i].x * pts[j].y;
  return a;
}

describe('headlandsFirst', () => {
  it('drives the exterior passes first, outermost first, then the tracks', () => {
    for (const algorithm of ['auto', 'optimized'] as const) {
      const plan = planField(request({ algorithm, headlandsFirst: true, maxEvaluations: 5000 })).plan;
      expect(checkPlan(plan)).toEqual([]);
      const work = driven(plan.zones[0].groups[0].parts).filter((p) => p.working);
      // A pass driven with square corners comes in pieces, one per side.
      const firstTrack = work.findIndex((p) => p.type === 'RouteTrack');
      const before = work.slice(0, firstTrack);
      expect(before.every((p) => p.type === 'ExteriorHeadlandPass')).toBe(true);
      expect([...new Set(before.map((p) => p.passNumber))]).toEqual([1, 2]);
      expect(work.slice(firstTrack).some((p) => p.type === 'ExteriorHeadlandPass')).toBe(false);
      // The obstacle's pass comes after the tracks.
      expect(work[work.length - 1].type).toBe('InteriorHeadlandPass');
    }
  });

  it('starts at the requested start node', () => {
    const plan = planField(request({ headlandsFirst: true, startPointNodeIndex: 2 })).plan;
    expect(checkPlan(plan)).toEqual([]);
    const first = driven(plan.zones[0].groups[0].parts)[0];
    expect(plan.zones[0].routeStart).toBeDefined();
    const s = plan.zones[0].routeStart as Point;
    expect(Math.hypot(first.points[0].x - s.x, first.points[0].y - s.y)).toBeLessThan(1e-6);
  });
});

describe('stagingArea', () => {
  it('starts and ends each route at the edge point nearest the staging area, with legs to it', () => {
    // West of the field, level with y = 90 m.
    const staging: [number, number] = [
      10 - 50 / (111_320 * Math.cos((55 * Math.PI) / 180)),
      55 + 90 / 111_320,
    ];
    for (const route of [{ stagingArea: staging }, { stagingArea: staging, headlandsFirst: true }]) {
      const plan = planField(request(route)).plan;
      expect(checkPlan(plan)).toEqual([]);
      const z = plan.zones[0];
      const legs = z.stagingLegs;
      expect(legs?.entry).not.toBeNull();
      const [s, gate] = (legs?.entry ?? []) as [Point, Point];
      // The gate lies on the west edge, 50 m from the staging area.
      expect(Math.hypot(s.x - gate.x, s.y - gate.y)).toBeCloseTo(50, 0);
      expect(legs?.exit?.[0]).toEqual(z.routeEnd);
      expect(z.routeStart).toEqual(gate);
      expect(z.routeEnd).toEqual(gate);
      const d = driven(z.groups[0].parts);
      const p0 = d[0].points[0];
      const pn = d[d.length - 1].points[d[d.length - 1].points.length - 1];
      expect(Math.hypot(p0.x - gate.x, p0.y - gate.y)).toBeLessThan(1e-6);
      expect(Math.hypot(pn.x - gate.x, pn.y - gate.y)).toBeLessThan(1e-6);
    }
  });

  it('refuses a staging area that is not [lon, lat]', () => {
    expect(() => planField(request({ stagingArea: [200, 55] }))).toThrow(PlanningError);
  });
});

describe('forcedDirection', () => {
  for (const dir of ['CW', 'CCW'] as const) {
    it(`winds every headland pass ${dir}`, () => {
      for (const headlandsFirst of [false, true]) {
        const plan = planField(request({ forcedDirection: dir, headlandsFirst })).plan;
        expect(checkPlan(plan)).toEqual([]);
        const pieces = driven(plan.zones[0].groups[0].parts).filter(
          (p) => p.type === 'ExteriorHeadlandPass' || p.type === 'InteriorHeadlandPass',
        );
        // A pass with square corners comes in pieces: wind the pieces of each pass together.
        const passes = new Map<string, Point[]>();
        for (const p of pieces) {
          const key = `${p.type}/${p.passNumber}/${p.obstacleIndex ?? ''}`;
          passes.set(key, [...(passes.get(key) ?? []), ...p.points]);
        }
        expect(passes.size).toBe(3);
        for (const pts of passes.values()) expect(Math.sign(winding(pts))).toBe(dir === 'CCW' ? 1 : -1);
      }
    });
  }

  it('refuses other values', () => {
    expect(() => planField(request({ forcedDirection: 'LEFT' as never }))).toThrow(PlanningError);
  });

  it.skipIf(!hasCorpus())('keeps every invariant on real fields', () => {
    for (const s of sampleSelection(3, 7)) {
      for (const route of [{ headlandsFirst: true }, { forcedDirection: 'CW' as const }]) {
        let plan: ReturnType<typeof planField>['plan'];
        try {
          plan = planField({ ...request(route), boundary: s.feature }).plan;
        } catch (e) {
          if (e instanceof PlanningError) continue;
          throw e;
        }
        expect(checkPlan(plan).slice(0, 3), s.id).toEqual([]);
      }
    }
  });
});

describe.skipIf(!hasCorpus())('travel along a headland ring between two turns', () => {
  // Each of these once drove a stretch of ring one sample long between two
  // turns: a straight of its own, off the turns' headings by half a step.
  const ids = ['fiboa-cz:47266368', 'fiboa-bg:00151-807', 'fiboa-ec_ro:74'];
  const fields = hasCorpus() ? loadBenchmarkSelection().filter((s) => ids.includes(s.id)) : [];

  it('keeps the heading continuous (auto order, S1)', () => {
    expect(fields.map((s) => s.id).sort()).toEqual([...ids].sort());
    for (const s of fields) {
      const plan = planField({ ...request({ algorithm: 'auto' }), boundary: s.feature }).plan;
      expect(checkPlan(plan).slice(0, 3), s.id).toEqual([]);
    }
  });
});

describe.skipIf(!hasCorpus())('tracks the order cannot reach in their turn', () => {
  it('are driven from later on the route: the lobe of fiboa-de_sh:DESHLIL080100017 beyond a neck (boustrophedon, snake)', () => {
    const f = loadBenchmarkSelection().find((s) => s.id === 'fiboa-de_sh:DESHLIL080100017');
    for (const algorithm of ['boustrophedon', 'snake'] as const) {
      const { plan } = planField({ ...request({ algorithm }), boundary: f?.feature });
      expect(checkPlan(plan).slice(0, 3)).toEqual([]);
      // 18 % covered when the 9 tracks of the lobe were left out.
      expect(plan.zones[0].skippedTracks ?? 0).toBe(0);
      expect(plan.stats.coveredPercent).toBeGreaterThan(65);
    }
  });
});
