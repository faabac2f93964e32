/**
 * The headland passes of a part of the field that only a neck narrower than
 * the implement joins to the rest are driven while the route is there: the
 * route does not travel back through the neck to an obstacle's pass and
 * out again for them.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus } from '../../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../../test/helpers/field-transforms.ts';
import { polylineLength } from '../geometry/vec.ts';
import { planField } from '../plan.ts';
import type { Plan } from '../types/index.ts';

const S1 = {
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  decomposition: true,
};

/** How many non-working parts of the plan are at least `length` long. */
function longTravel(plan: Plan, length: number): number {
  let n = 0;
  for (const z of plan.zones)
    for (const p of z.groups[z.activeGroup].parts)
      if (p.sequence !== undefined && !p.working && polylineLength(p.points) >= length) n++;
  return n;
}

/** Plans the corpus field in every orientation (S1): a clean plan, then `check` on it. */
function inEveryOrientation(id: string, check: (plan: Plan, name: string) => void): void {
  const field = findCorpusField(id);
  expect(field).toBeDefined();
  for (const f of orientations(field!)) {
    const { plan } = planField({ boundary: f, ...S1 });
    const name = String(f.properties?.id);
    expect(checkPlan(plan), name).toEqual([]);
    check(plan, name);
  }
}

describe.skipIf(!hasCorpus())('headland passes beyond a neck', () => {
  it('fiboa-fi:98: the 260 m arm to the far corner is travelled at most twice besides working it, in any orientation', () => {
    inEveryOrientation('fiboa-fi:98', (plan, name) => {
      // Where the tracks end on the near side, out to the far corner's passes
      // and back; where they end at the far corner, back once. Before, the
      // route also went back through the arm to the obstacle's pass and out
      // again for the far corner's passes (three trips of 260 m, 1.4-1.5 km
      // of non-working distance).
      expect(longTravel(plan, 200), name).toBeLessThanOrEqual(2);
      expect(plan.stats.nonWorkingDistance, name).toBeLessThan(1250);
    });
  }, 120_000);

  it('fiboa-de_bb:DEBBLI0268200531: the passes of each part are driven from within it', () => {
    inEveryOrientation('fiboa-de_bb:DEBBLI0268200531', (plan, name) => {
      // Before: 8-10 trips of over 200 m between the parts, 7.8-9.1 km of non-working distance.
      expect(longTravel(plan, 200), name).toBeLessThanOrEqual(4);
      expect(plan.stats.nonWorkingDistance, name).toBeLessThan(6000);
      expect(plan.stats.overhangLength ?? 0, name).toBeLessThan(100);
    });
  }, 120_000);
});
