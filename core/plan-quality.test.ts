/**
 * Coverage of the field: what a plan works and what it leaves, on shapes
 * where plans used to lose area (field corners outside rounded headland
 * passes, obstacles gone round together, narrow field parts). Every plan
 * here also passes the shared plan checker.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../test/helpers/check-plan.ts';
import { hasCorpus, loadBenchmarkSelection } from '../test/helpers/corpus.ts';
import { prepareField } from './field/prepare-field.ts';
import { pointInRing } from './geometry/polygon.ts';
import { generateHeadlands } from './headland/generate-headlands.ts';
import { planField } from './plan.ts';
import type { PlanRequest } from './types/index.ts';

const S1 = { swathWidth: 6, minTurningRadius: 6 };

function request(boundary: unknown): PlanRequest {
  return { boundary, machine: S1, exteriorHeadlandPasses: 2, interiorHeadlandPasses: 1 };
}

/** A polygon given in metres around a lon/lat centre, as GeoJSON. */
function metres(rings: [number, number][][], lon0 = 9.5, lat0 = 53.1) {
  const mPerDegLat = 111_320;
  const mPerDegLon = 111_320 * Math.cos((lat0 * Math.PI) / 180);
  return {
    type: 'Polygon',
    coordinates: rings.map((r) => {
      const c = r.map(([x, y]) => [lon0 + x / mPerDegLon, lat0 + y / mPerDegLat]);
      return [...c, c[0]];
    }),
  };
}

function plan(boundary: unknown) {
  const r = planField(request(boundary));
  expect(checkPlan(r.plan).slice(0, 5)).toEqual([]);
  return r.plan;
}

describe('headland corners', () => {
  it('drives the right-angled corners of a rectangle square, with a reversing turn at each', () => {
    const p = plan(
      metres([
        [
          [0, 0],
          [200, 0],
          [200, 150],
          [0, 150],
        ],
      ]),
    );
    // Rounded at 12 m the outer pass leaves about 48 m^2 per corner (0.64 %
    // of the field); square, 9 m^2 per pass and corner.
    expect(p.stats.coveredPercent).toBeGreaterThan(99.6);
    expect(p.stats.overlapPercent).toBeLessThan(3);
    const g = p.zones[0].groups[0];
    const turns = g.parts.filter((x) => x.type === 'HeadlandTurn' && x.sequence !== undefined);
    // Two passes, four corners each; every turn backs up, turns forward and backs up.
    expect(turns.filter((x) => x.reverse).length).toBe(16);
    expect(turns.filter((x) => !x.reverse).length).toBe(8);
  });

  it('drives a sharp corner square: a 40-degree wedge keeps its tip', () => {
    const p = plan(
      metres([
        [
          [0, 0],
          [300, 0],
          [300 * Math.cos((40 * Math.PI) / 180), 300 * Math.sin((40 * Math.PI) / 180)],
        ],
      ]),
    );
    expect(p.stats.coveredPercent).toBeGreaterThan(98.5);
  });
});

describe('narrow fields', () => {
  it('works a 20 m strip with tracks where the second headland pass cannot go round', () => {
    // Pass 1 goes round 3 m inside; pass 2 (9 m inside) is 2 m wide and cannot
    // turn at radius 6, and two passes leave no workable area: the 8 m band
    // between pass 1's swaths is worked by a track instead of refusing the field.
    const p = plan(
      metres([
        [
          [0, 0],
          [300, 0],
          [300, 20],
          [0, 20],
        ],
      ]),
    );
    expect(p.stats.coveredPercent).toBeGreaterThan(95);
    expect(p.stats.trackCount).toBeGreaterThan(0);
    // The plan says that fewer passes than asked for fit (the plan audit may say more).
    expect(p.zones[0].warnings?.[0]).toBe(
      'Only 1 of the 2 exterior headland passes fit in field part 0; the area inside them is worked by tracks.',
    );
  });

  it('says how many of the asked-for headland passes fit, and is silent when all do', () => {
    const square = metres([
      [
        [0, 0],
        [100, 0],
        [100, 100],
        [0, 100],
      ],
    ]);
    const many = planField({ boundary: square, machine: S1, exteriorHeadlandPasses: 50 });
    expect(checkPlan(many.plan).slice(0, 5)).toEqual([]);
    const fitted = Math.max(
      ...many.plan.zones[0].groups[0].parts.map((q) =>
        q.type === 'ExteriorHeadlandPass' ? (q.passNumber ?? 0) : 0,
      ),
    );
    expect(fitted).toBeGreaterThan(2);
    expect(fitted).toBeLessThan(50);
    expect(many.plan.zones[0].warnings?.[0]).toBe(
      `Only ${fitted} of the 50 exterior headland passes fit in field part 0; the area inside them is worked by tracks.`,
    );
    expect((plan(square).zones[0].warnings ?? []).filter((w) => w.includes('headland passes fit'))).toEqual(
      [],
    );
  });

  it('works the narrow arm of fiboa-be_vlg:768663766 that its second pass cannot reach', () => {
    if (!hasCorpus()) return;
    const f = loadBenchmarkSelection().find((s) => s.id === 'fiboa-be_vlg:768663766');
    const p = plan(f?.feature);
    // 49 % with the arm left out.
    expect(p.stats.coveredPercent).toBeGreaterThan(93);
  });
});

describe.skipIf(!hasCorpus())('real fields that lost area', () => {
  const fields = hasCorpus() ? loadBenchmarkSelection() : [];
  const feature = (id: string) => {
    const f = fields.find((s) => s.id === id);
    if (!f) throw new Error(`${id} is not in the benchmark selection`);
    return f.feature;
  };

  it('goes round each of 18 obstacles of fiboa-bg:00151-673: with its own pass, or, near the edge, in a bay of the exterior passes', () => {
    const part = prepareField(feature('fiboa-bg:00151-673')).field.parts[0];
    const h = generateHeadlands(part, {
      swathWidth: 6,
      exteriorPasses: 2,
      interiorPasses: 1,
      turningRadius: 6,
    });
    const outerPass = h.drivenExterior.filter((r) => r.passNumber === 1);
    for (const hole of part.holes) {
      const own = h.drivenInterior.some((r) => pointInRing(hole[0], r.ring));
      const inBay = !outerPass.some((r) => pointInRing(hole[0], r.ring));
      expect(own || inBay).toBe(true);
    }
    expect(h.drivenInterior.length).toBeGreaterThanOrEqual(12);
    const p = plan(feature('fiboa-bg:00151-673'));
    expect(p.stats.coveredPercent).toBeGreaterThan(98.8);
  });

  it('reaches the parts of fiboa-ec_si:6520281 and fiboa-de_sh:DESHLIL020110134 beyond narrow necks', () => {
    // Field travel through necks narrower than the turning radius: 3 % and 6 % covered when
    // the passes and tracks beyond them were left out.
    expect(plan(feature('fiboa-ec_si:6520281')).stats.coveredPercent).toBeGreaterThan(70);
    expect(plan(feature('fiboa-de_sh:DESHLIL020110134')).stats.coveredPercent).toBeGreaterThan(85);
  });

  it('works the corners of fiboa-de_fusion:de_train_2018/8 (97.7 % covered with rounded corners)', () => {
    const p = plan(feature('fiboa-de_fusion:de_train_2018/8'));
    expect(p.stats.coveredPercent).toBeGreaterThan(98.5);
  });
});
