/**
 * The machine's turn model in whole plans: with equipment.maxCurvatureRate
 * every driven part (turns, connectors, headland passes with clothoid
 * corners) changes curvature no faster than the limit, and every other
 * invariant still holds. Without it the plan is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan, curvatureRateViolation } from '../../test/helpers/check-plan.ts';
import { hasCorpus, sampleSelection } from '../../test/helpers/corpus.ts';
import { planField } from '../plan.ts';
import { PlanningError, type PlanRequest } from '../types/index.ts';

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

const request = (rate?: number, algorithm: 'auto' | 'optimized' = 'auto'): PlanRequest => ({
  boundary: field,
  machine: { swathWidth: 6, minTurningRadius: 6, ...(rate === undefined ? {} : { maxCurvatureRate: rate }) },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  route: { algorithm, ...(algorithm === 'optimized' ? { maxEvaluations: 20_000 } : {}) },
});

describe('continuous-curvature turns in plans', () => {
  for (const rate of [0.02, 0.05, 0.2]) {
    it(`maxCurvatureRate ${rate}: no invariant broken, curvature rate within the limit`, () => {
      const { plan } = planField(request(rate));
      expect(checkPlan(plan)).toEqual([]);
      const parts = plan.zones[0].groups[0].parts.filter((p) => p.sequence !== undefined);
      expect(parts.filter((p) => p.type === 'Turn').length).toBeGreaterThan(10);
      for (const p of parts) expect(curvatureRateViolation(p.points, rate)).toBeNull();
    });
  }

  it('the same plan without the limit breaks the rule: arcs start abruptly', () => {
    const { plan } = planField(request());
    const turns = plan.zones[0].groups[0].parts.filter((p) => p.type === 'Turn');
    expect(turns.some((p) => curvatureRateViolation(p.points, 0.05) !== null)).toBe(true);
  });

  it('with the optimizer too', () => {
    const { plan } = planField(request(0.05, 'optimized'));
    expect(checkPlan(plan)).toEqual([]);
  });

  it('refuses a rate that is not a positive number, naming the field', () => {
    for (const bad of [0, -1, Number.NaN]) {
      try {
        planField(request(bad));
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(PlanningError);
        expect((e as PlanningError).code).toBe('INVALID_OPTION');
        expect((e as PlanningError).details.path).toBe('equipment.maxCurvatureRate');
      }
    }
  });

  it.skipIf(!hasCorpus())(
    'real fields: no violation with maxCurvatureRate 0.05',
    () => {
      for (const s of sampleSelection(6)) {
        try {
          const { plan } = planField({ ...request(0.05), boundary: s.feature });
          expect(checkPlan(plan), s.id).toEqual([]);
        } catch (e) {
          if (!(e instanceof PlanningError)) throw e;
        }
      }
    },
    120_000,
  );
});
