/**
 * Route orders and the anytime optimizer: the patterns visit every line
 * once, the optimizer never returns worse than its best construction, it
 * honours the caller's deadline and its evaluation cap, and every plan made
 * with every order passes the shared plan checker.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import {
  hasCorpus,
  loadBenchmarkSelection,
  loadFixtureFields,
  sampleSelection,
} from '../../test/helpers/corpus.ts';
import { polylineLength } from '../geometry/vec.ts';
import { planField } from '../plan.ts';
import { PlanningError, type PlanRequest, type RouteAlgorithm } from '../types/index.ts';
import {
  type OrderProblem,
  optimizeOrder,
  orderCost,
  skipPattern,
  snakePattern,
  type Visit,
} from './optimize-order.ts';

describe('line patterns', () => {
  it('visit every line exactly once', () => {
    for (let m = 1; m <= 23; m++) {
      const all = Array.from({ length: m }, (_, i) => i);
      expect(
        snakePattern(m)
          .slice()
          .sort((a, b) => a - b),
      ).toEqual(all);
      for (const s of [0, 1, 2, 3])
        expect(
          skipPattern(m, s)
            .slice()
            .sort((a, b) => a - b),
        ).toEqual(all);
    }
  });
  it('skip s jumps s or s+1 lines inside full clusters', () => {
    const order = skipPattern(35, 2);
    expect(order.slice(0, 6)).toEqual([0, 3, 1, 4, 2, 5]);
    for (let i = 1; i < order.length; i++) expect([2, 3]).toContain(Math.abs(order[i] - order[i - 1]));
    expect(snakePattern(6)).toEqual([0, 2, 4, 5, 3, 1]);
  });
});

/** Parallel lines 6 m apart, 100 m long; a turn costs like a U-turn of radius 6 m (a bulb below 12 m). */
function linesProblem(n: number): OrderProblem {
  const a = Array.from({ length: n }, (_, i) => ({ x: 0, y: 6 * i }));
  const b = Array.from({ length: n }, (_, i) => ({ x: 100, y: 6 * i }));
  const cost = (from: Visit | null, to: Visit) => {
    if (!from) return 0;
    const e = from.forward ? b[from.track] : a[from.track];
    const s = to.forward ? a[to.track] : b[to.track];
    const d = Math.hypot(e.x - s.x, e.y - s.y);
    const sameEnd = Math.abs(e.x - s.x) < 1e-9 && from.forward !== to.forward;
    if (!sameEnd) return 200 + d;
    return d >= 12 ? Math.PI * 6 + (d - 12) : 48 - d;
  };
  return { count: n, a, b, cost, hasStart: false };
}

describe('optimizeOrder', () => {
  const plain = (n: number): Visit[] =>
    Array.from({ length: n }, (_, i) => ({ track: i, forward: i % 2 === 0 }));

  it('beats the plain order by turning wide, and never returns worse than a construction', () => {
    const p = linesProblem(30);
    const base = plain(30);
    const res = optimizeOrder(p, { boustrophedon: base }, { maxEvaluations: 200_000 });
    expect(res.order.map((v) => v.track).sort((x, y) => x - y)).toEqual(base.map((v) => v.track));
    expect(res.cost).toBeCloseTo(orderCost(p, res.order), 9);
    expect(res.cost).toBeLessThan(0.75 * orderCost(p, base));
    expect(res.constructions.boustrophedon).toBeCloseTo(orderCost(p, base), 9);
  });

  it('keeps the best construction when stopped at once, and counts its evaluations', () => {
    const p = linesProblem(20);
    const skip: Visit[] = skipPattern(20, 2).map((t, i) => ({ track: t, forward: i % 2 === 0 }));
    const res = optimizeOrder(p, { boustrophedon: plain(20), skip2: skip }, { shouldStop: () => true });
    expect(res.order).toEqual(skip);
    expect(res.converged).toBe(false);
    expect(res.evaluations).toBe(0);
    const capped = optimizeOrder(p, { boustrophedon: plain(20) }, { maxEvaluations: 50 });
    expect(capped.evaluations).toBeLessThanOrEqual(51);
    expect(capped.converged).toBe(false);
  });

  it('is deterministic', () => {
    const p = linesProblem(25);
    const r1 = optimizeOrder(p, { b: plain(25) }, { maxEvaluations: 30_000 });
    const r2 = optimizeOrder(p, { b: plain(25) }, { maxEvaluations: 30_000 });
    expect(r1.order).toEqual(r2.order);
  });
});

const S1 = { swathWidth: 6, minTurningRadius: 6 };

function plan(feature: unknown, algorithm: RouteAlgorithm, extra: Partial<PlanRequest['route']> = {}) {
  return planField({
    boundary: feature,
    machine: S1,
    exteriorHeadlandPasses: 2,
    interiorHeadlandPasses: 1,
    route: { algorithm, maxEvaluations: 20_000, ...extra },
  });
}

const fields = hasCorpus() ? sampleSelection(6, 5).map((s) => s.feature) : loadFixtureFields().slice(0, 4);

describe('planField with each route order', () => {
  for (const algorithm of ['boustrophedon', 'snake', 'clusteredSpiral', 'optimized'] as RouteAlgorithm[]) {
    it(`${algorithm}: every plan passes the plan checker`, () => {
      for (const f of fields) {
        let r: ReturnType<typeof plan>;
        try {
          r = plan(f, algorithm);
        } catch (e) {
          if (e instanceof PlanningError) continue;
          throw e;
        }
        expect(checkPlan(r.plan).slice(0, 3)).toEqual([]);
      }
    });
  }

  it('optimized: reports its gain over the plain boustrophedon order, measured on the plan', () => {
    let compared = 0;
    for (const f of fields) {
      let base: ReturnType<typeof plan>;
      let opt: ReturnType<typeof plan>;
      try {
        base = plan(f, 'boustrophedon');
        opt = plan(f, 'optimized');
      } catch (e) {
        if (e instanceof PlanningError) continue;
        throw e;
      }
      compared++;
      const reports = opt.plan.zones.flatMap((z) => (z.optimizer ? [z.optimizer] : []));
      expect(reports.length).toBeGreaterThan(0);
      for (const rep of reports) {
        expect(rep.cost).toBeLessThanOrEqual(rep.baselineCost + 1e-6);
        expect(rep.gainPercent).toBeCloseTo(100 * (1 - rep.cost / rep.baselineCost), 6);
      }
      // The order decides turns and connectors; the reversing turns at the
      // square corners of the headland passes depend on where each pass is
      // joined, not on the order of the tracks, so they are left out here.
      const ordered = (r: ReturnType<typeof plan>) =>
        r.plan.stats.nonWorkingDistance -
        r.plan.zones
          .flatMap((z) => z.groups[z.activeGroup].parts)
          .filter((p) => p.type === 'HeadlandTurn' && p.sequence !== undefined)
          .reduce((a, p) => a + polylineLength(p.points), 0);
      expect(ordered(opt)).toBeLessThanOrEqual(ordered(base) * 1.02);
    }
    expect(compared).toBeGreaterThan(0);
  });

  it.skipIf(!hasCorpus())(
    'optimized: never drives more turns and connectors than the plain order, where its quicker pricing misled it',
    () => {
      // Driven, the optimized order was 5 to 6 % longer than boustrophedon on these.
      const ids = ['fiboa-be_vlg:2078008566', 'fiboa-ch:3835042', 'fiboa-fi:55'];
      const picked = loadBenchmarkSelection().filter((s) => ids.includes(s.id));
      expect(picked).toHaveLength(3);
      for (const s of picked) {
        const base = plan(s.feature, 'boustrophedon');
        const opt = plan(s.feature, 'optimized');
        expect(checkPlan(opt.plan).slice(0, 3)).toEqual([]);
        expect(opt.plan.stats.nonWorkingDistance, s.id).toBeLessThanOrEqual(
          base.plan.stats.nonWorkingDistance + 1e-6,
        );
        for (const rep of opt.plan.zones.flatMap((z) => (z.optimizer ? [z.optimizer] : [])))
          expect(rep.gainPercent).toBeCloseTo(100 * (1 - rep.cost / rep.baselineCost), 6);
      }
    },
  );

  it('clusteredSpiral honours skipCount and the objective is validated', () => {
    const f = fields[0];
    const r = plan(f, 'clusteredSpiral', { skipCount: 3 });
    expect(checkPlan(r.plan)).toEqual([]);
    expect(() => plan(f, 'clusteredSpiral', { skipCount: -1 })).toThrow(PlanningError);
    expect(() => plan(f, 'optimized', { objective: 'speed' as never })).toThrow(PlanningError);
    const t = plan(f, 'optimized', { objective: 'time' });
    expect(t.plan.zones.find((z) => z.optimizer)?.optimizer?.objective).toBe('time');
  });

  it('stops when the caller says so and still plans every track', () => {
    const f = fields[0];
    const r = planField(
      { boundary: f, machine: S1, exteriorHeadlandPasses: 2, route: { algorithm: 'optimized' } },
      { shouldStopOptimizer: () => true },
    );
    expect(checkPlan(r.plan)).toEqual([]);
    const rep = r.plan.zones.find((z) => z.optimizer)?.optimizer;
    expect(rep?.converged).toBe(false);
    expect(rep?.evaluations).toBe(0);
  });
});
