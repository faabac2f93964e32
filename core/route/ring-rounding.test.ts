/**
 * Travel along a headland pass round an obstacle keeps the implement off
 * the obstacle: where the pass is pulled round the obstacle's corner nearer
 * than half the working width, the travel leaves the pass before the corner
 * and rounds it outward, back onto the pass after it.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus } from '../../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../../test/helpers/field-transforms.ts';
import { planField } from '../plan.ts';

const S1 = {
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
};

describe('travel round an obstacle corner', () => {
  it.skipIf(!hasCorpus())(
    'fiboa-si:159 (travel along the obstacle pass cut its corner: 153 m over it) keeps the implement off the obstacle, every orientation',
    () => {
      for (const f of orientations(findCorpusField('fiboa-si:159')!)) {
        const { plan } = planField({ boundary: f, ...S1, decomposition: true });
        const name = String(f.properties.id);
        expect(checkPlan(plan), name).toEqual([]);
        expect(plan.stats.overhangLength ?? 0, name).toBe(0);
        for (const z of plan.zones)
          expect(z.warnings?.filter((w) => w.startsWith('overhang of turns')) ?? [], name).toEqual([]);
      }
    },
    60_000,
  );
});
