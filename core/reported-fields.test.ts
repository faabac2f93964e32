/**
 * The fields of the plan quality report, planned as a user would (S1:
 * swath 6 m, turning radius 6 m, 2 exterior and 1 interior headland pass;
 * where the report used a 24 m swath, also that) in every orientation and
 * mirrored: none drives a track twice, leaves a stretch of a planned pass
 * undriven without a warning naming the pass, or has a turn over the edge or
 * low coverage the plan does not warn of; together they are worked to a
 * median of 98.0 % (the target is 98.5 %: short stretches of passes round
 * narrow necks and tips are still left on six of them, each named in a
 * warning; the others drive every planned pass; the bending strip
 * fiboa-be_wal is worked by two lanes that keep the implement inside the
 * field, at half a point less than curved tracks that turned 24 m over its
 * edge).
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../test/helpers/check-plan.ts';
import { hasCorpus } from '../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../test/helpers/field-transforms.ts';
import { planField } from './plan.ts';
import type { Plan, PlanRequest } from './types/index.ts';

const S1 = {
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
} as const;
const WIDE = {
  machine: { swathWidth: 24, minTurningRadius: 8 },
  exteriorHeadlandPasses: 1,
  interiorHeadlandPasses: 1,
} as const;

const REPORTED: [string, Partial<PlanRequest>][] = [
  ['fiboa-jp:0cfab1b4-...', S1],
  ['fiboa-dk:1-0', S1],
  ['fiboa-nz:23', S1],
  ['fiboa-nz:23', WIDE],
  ['fiboa-be_wal:...2B131C88...', S1],
  ['fiboa-de_fusion:de_test_2019/16', S1],
  ['fiboa-si:90', S1],
  ['fiboa-ec_ro:25', S1],
  ['fiboa-ec_ro:25', WIDE],
  ['fields2cover:test_2_cell/1', S1],
  ['fiboa-dk:110-0', S1],
  ['fiboa-ch:3835013', S1],
  ['fiboa-us_usda_cropland:351724000000022', S1],
  ['fiboa-fr:444', S1],
  ['fiboa-bg:00151-587', S1],
  ['fiboa-cz:44715294', S1],
  ['fiboa-de_sh:DESHLIL020210000', S1],
];

/**
 * Most undriven planned pass length [m] in any orientation, where a field
 * still leaves some: stretches at bends and necks no corner turn fits, and
 * (ch) a few metres of a pass's bend that a square corner turn cuts (named
 * in warnings). The fields not listed leave none.
 */
const UNDRIVEN_AT_MOST: Record<string, number> = {
  'fiboa-jp:0cfab1b4-... swath 6': 21,
  'fiboa-dk:1-0 swath 6': 18,
  'fiboa-nz:23 swath 6': 5,
  'fiboa-nz:23 swath 24': 170,
  'fiboa-us_usda_cropland:351724000000022 swath 6': 70,
  'fiboa-ch:3835013 swath 6': 4.5,
};

interface Planned {
  name: string;
  /** The field as reported, and the swath. */
  key: string;
  plan: Plan;
}

function planAll(): Planned[] {
  const out: Planned[] = [];
  for (const [id, request] of REPORTED) {
    const f = findCorpusField(id);
    if (!f) continue;
    for (const o of orientations(f)) {
      const plan = planField({ boundary: o, ...request } as PlanRequest).plan;
      out.push({
        name: `${o.properties.id} swath ${request.machine?.swathWidth}`,
        key: `${id} swath ${request.machine?.swathWidth}`,
        plan,
      });
    }
  }
  return out;
}

const warnings = (p: Plan) => p.zones.flatMap((z) => z.warnings ?? []);

describe.skipIf(!hasCorpus())('the fields of the plan quality report', () => {
  const planned = hasCorpus() ? planAll() : [];

  it('are worked to a median of 98.0 % in every orientation', () => {
    const covered = planned.map((p) => p.plan.stats.coveredPercent).sort((a, b) => a - b);
    expect(covered.length).toBe(REPORTED.length * 5);
    expect(covered[covered.length >> 1]).toBeGreaterThanOrEqual(98.0);
  });

  it('drive every planned pass, but for short stretches on a few fields', () => {
    const worst = new Map<string, number>();
    for (const p of planned)
      worst.set(p.key, Math.max(worst.get(p.key) ?? 0, p.plan.stats.undrivenPassLength ?? 0));
    for (const [key, undriven] of worst) expect(undriven, key).toBeLessThan(UNDRIVEN_AT_MOST[key] ?? 0.5);
  });

  it.each(planned.map((p) => [p.name, p.plan] as const))('%s', (_name, plan) => {
    const s = plan.stats;
    const ws = warnings(plan);
    // No track driven twice; every undriven stretch of a planned pass named, with its length.
    expect(s.duplicateTrackLength ?? 0).toBeLessThan(0.02 * s.workingDistance);
    for (const z of plan.zones) {
      for (const u of z.audit?.undrivenPasses ?? []) {
        const named = (z.warnings ?? []).some(
          (w) =>
            (w.includes(`pass ${u.passNumber}`) && /not driven|off its planned line/.test(w)) ||
            new RegExp(`headland rings? \\(pass [0-9, ]*\\b${u.passNumber}\\b`).test(w),
        );
        expect(named, `pass ${u.passNumber}, ${u.length.toFixed(0)} m`).toBe(true);
      }
    }
    // What is left is said, with its figure.
    if ((s.overhangLength ?? 0) >= 0.05)
      expect(ws.some((w) => /overhang of turns: [0-9.]+ m/.test(w))).toBe(true);
    if (s.coveredPercent < 95) expect(ws.some((w) => /ha not worked \(uncovered\)/.test(w))).toBe(true);
    expect(checkPlan(plan)).toEqual([]);
  });
});
