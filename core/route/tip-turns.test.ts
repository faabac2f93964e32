/**
 * Turns where no forward turn fits the turn area keep the implement inside
 * the field: at the end of a narrow tip the machine backs out along the way
 * in until a turn fits, and backs into the way out (fiboa-nz:87, whose outer
 * pass runs into a sharp tip: 11.9 m of overhang before); a way onto a
 * headland pass that keeps the implement inside is taken over a shorter one
 * that does not (fiboa-hr:188342: 4 m before). Where the pass into a tip
 * runs nearer the edge than half the swath all the way to where a turn
 * fits, the machine swings off it reversing on an arc, turns, and backs
 * into the way out (fiboa-de_fusion:de_train_2018/4: 15.2 m before).
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus } from '../../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../../test/helpers/field-transforms.ts';
import { planField } from '../plan.ts';
import type { Plan } from '../types/index.ts';

const S1 = {
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
};

function turned(id: string) {
  const f = hasCorpus() ? findCorpusField(id) : undefined;
  return f ? orientations(f).map((o) => [String(o.properties.id), o] as const) : [];
}

/** The longest run of consecutive reversing parts [m]. */
function longestReverse(p: Plan): number {
  let worst = 0;
  for (const z of p.zones) {
    const parts = z.groups[z.activeGroup].parts
      .filter((q) => q.sequence !== undefined)
      .sort((a, b) => (a.sequence as number) - (b.sequence as number));
    let run = 0;
    for (const q of parts) {
      let l = 0;
      for (let i = 1; i < q.points.length; i++)
        l += Math.hypot(q.points[i].x - q.points[i - 1].x, q.points[i].y - q.points[i - 1].y);
      run = q.reverse ? run + l : 0;
      worst = Math.max(worst, run);
    }
  }
  return worst;
}

describe.skipIf(!hasCorpus())('turns in narrow tips keep the implement inside', () => {
  it.each([
    ...turned('fiboa-nz:87'),
    ...turned('fiboa-hr:188342'),
    ...turned('fiboa-it_1:71'),
    ...turned('fiboa-de_fusion:de_train_2018/4'),
  ])('%s', (_id, f) => {
    const p = planField({ boundary: f, ...S1 }).plan;
    expect(p.stats.overhangLength ?? 0).toBeLessThan(0.05);
    expect(p.zones.flatMap((z) => z.warnings ?? []).filter((w) => w.includes('overhang'))).toEqual([]);
    // Backing out of the tip is no farther than a turn may reverse (5 turning radii).
    expect(longestReverse(p)).toBeLessThan(5 * 6 + 1);
    expect(checkPlan(p)).toEqual([]);
  });

  // A 2.16 km strip with dead-end tips narrower than the turn area: 190 to 660 m of
  // overhang before, turned round in the field; now backed out of the tips or through the field.
  it.each(turned('fiboa-ec_ro:25'))('%s', (_id, f) => {
    const p = planField({ boundary: f, ...S1 }).plan;
    expect(p.stats.overhangLength ?? 0).toBeLessThan(120);
    expect(longestReverse(p)).toBeLessThan(5 * 6 + 1);
    expect(checkPlan(p)).toEqual([]);
  });
});
