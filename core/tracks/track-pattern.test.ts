/**
 * Curved and spiral plans end to end: every plan passes the shared plan
 * checker (tracks inside, curvature, inside the field, continuity, every
 * track driven once, statistics), on generated fields and a sample of the
 * real-field corpus.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus, sampleSelection } from '../../test/helpers/corpus.ts';
import { planField } from '../plan.ts';
import { PlanningError, type PlanRequest, type TrackType } from '../types/index.ts';

function lonLat(rings: [number, number][][], lon0: number, lat0: number) {
  const mLat = 111_320;
  const mLon = 111_320 * Math.cos((lat0 * Math.PI) / 180);
  return {
    type: 'Polygon',
    coordinates: rings.map((r) => {
      const c = r.map(([x, y]) => [lon0 + x / mLon, lat0 + y / mLat]);
      return [...c, c[0]];
    }),
  };
}

function plan(boundary: unknown, trackType: TrackType, extra: Partial<PlanRequest> = {}) {
  return planField({
    boundary,
    machine: { swathWidth: 6, minTurningRadius: 6 },
    exteriorHeadlandPasses: 2,
    interiorHeadlandPasses: 1,
    trackType,
    ...extra,
  });
}

function expectValid(boundary: unknown, trackType: TrackType, label: string) {
  let r: ReturnType<typeof planField>;
  try {
    r = plan(boundary, trackType);
  } catch (e) {
    if (e instanceof PlanningError && ['HEADLAND_EXHAUSTS_FIELD', 'SWATH_WIDER_THAN_FIELD'].includes(e.code))
      return;
    throw e;
  }
  const v = checkPlan(r.plan);
  expect(v.slice(0, 5), `${label}: ${v.length} violation(s)`).toEqual([]);
  return r;
}

const square: [number, number][] = [
  [0, 0],
  [300, 0],
  [300, 200],
  [0, 200],
];

describe('curved and spiral plans', () => {
  it('plans a field with a curved edge along that edge', () => {
    const ring: [number, number][] = [];
    for (let i = 0; i <= 40; i++) {
      const a = Math.PI + (i / 40) * Math.PI * 0.6;
      ring.push([400 + 400 * Math.cos(a), 400 + 400 * Math.sin(a)]);
    }
    ring.push([ring[40][0], 500], [0, 500]);
    const r = expectValid(lonLat([ring], 10, 50), 'Curved', 'curved edge');
    const g = r?.plan.zones[0].groups[0];
    expect(g?.trackType).toBe('Curved');
    expect(g?.referenceLine?.length).toBeGreaterThan(10);
    expect(g?.parts.filter((p) => p.type === 'GuidanceTrack').every((p) => p.points.length >= 2)).toBe(true);
  });

  it('plans a spiral with a hole', () => {
    const hole: [number, number][] = [
      [140, 90],
      [140, 110],
      [160, 110],
      [160, 90],
    ];
    const r = expectValid(lonLat([square, hole], -60, -35), 'Spiral', 'spiral with hole');
    expect(r?.plan.zones[0].groups[0].trackType).toBe('Spiral');
  });

  it('follows a reference line given in the request', () => {
    const boundary = lonLat([square], 10, 50);
    const [lon0, lat0] = [10, 50];
    const mLon = 111_320 * Math.cos((lat0 * Math.PI) / 180);
    const line: [number, number][] = [
      [lon0, lat0 + 20 / 111_320],
      [lon0 + 300 / mLon, lat0 + 120 / 111_320],
    ];
    const r = plan(boundary, 'Curved', { referenceLine: line });
    expect(checkPlan(r.plan)).toEqual([]);
    const g = r.plan.zones[0].groups[0];
    // Tracks run along the line's direction (about 18 degrees north of east: bearing about 72).
    expect(Math.abs(g.bearingDeg - 71.6)).toBeLessThan(2);
  });

  it('adds crosshatch lines at right angles to the tracks when asked', () => {
    const r = plan(lonLat([square], 10, 50), 'Straight', { useCrossHatches: true });
    expect(checkPlan(r.plan)).toEqual([]);
    const g = r.plan.zones[0].groups[0];
    const cross = g.parts.filter((p) => p.type === 'Crosshatch');
    // About 300 x 200 m less 12 m of headland on each side: some 276 m across the crosshatch lines.
    expect(cross.length).toBeGreaterThanOrEqual(46);
    expect(cross.length).toBeLessThanOrEqual(47);
    for (const c of cross) {
      expect(c.sequence).toBeUndefined();
      expect(Math.abs(((c.bearingDeg as number) - g.bearingDeg + 360) % 180)).toBeCloseTo(90, 6);
    }
    const none = plan(lonLat([square], 10, 50), 'Straight');
    expect(none.plan.zones[0].groups[0].parts.some((p) => p.type === 'Crosshatch')).toBe(false);
  });

  it('refuses curvedOptions with another track type, and bad values, naming the field', () => {
    const boundary = lonLat([square], 10, 50);
    expect(() => plan(boundary, 'Spiral', { curvedOptions: { levelOfSmoothing: 0.2 } })).toThrow(
      /curvedOptions/,
    );
    try {
      plan(boundary, 'Curved', { curvedOptions: { smoothingIterations: -1 } });
      expect.unreachable();
    } catch (e) {
      expect((e as PlanningError).code).toBe('INVALID_OPTION');
      expect((e as PlanningError).details.path).toBe('curvedOptions.smoothingIterations');
    }
  });

  it('falls back to straight tracks, with a warning, where no spiral loop fits', () => {
    // A strip 36 m wide: after 2 headland passes 12 m remain, too narrow for a loop of radius 6 m.
    const r = plan(
      lonLat(
        [
          [
            [0, 0],
            [400, 0],
            [400, 36],
            [0, 36],
          ],
        ],
        10,
        50,
      ),
      'Spiral',
    );
    const z = r.plan.zones[0];
    expect(z.groups[0].trackType).toBe('Straight');
    expect(z.warnings?.join(' ')).toMatch(/falls back to straight/);
    expect(checkPlan(r.plan)).toEqual([]);
  });

  it('plans concave, holed, rotated fields far from the origin without violations (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 8 }),
        fc.double({ min: 80, max: 400, noNaN: true }),
        fc.double({ min: 0.45, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 6.28, noNaN: true }),
        fc.boolean(),
        fc.constantFrom<TrackType>('Curved', 'Spiral'),
        fc.double({ min: -60, max: 60, noNaN: true }),
        fc.double({ min: -179, max: 179, noNaN: true }),
        (n, r, ratio, rot, withHole, type, lat, lon) => {
          const outer: [number, number][] = [];
          for (let i = 0; i < 2 * n; i++) {
            const a = rot + (i / (2 * n)) * 2 * Math.PI;
            const rr = i % 2 ? r * ratio : r;
            outer.push([rr * Math.cos(a), rr * Math.sin(a)]);
          }
          const rings = [outer];
          if (withHole && r * ratio > 60) {
            const h = 6 + r * ratio * 0.08;
            rings.push([
              [-h, -h],
              [-h, h],
              [h, h],
              [h, -h],
            ]);
          }
          expectValid(lonLat(rings, lon, lat), type, `${type} n=${n} r=${r} ratio=${ratio}`);
        },
      ),
      // A star whose fishtail ends in a sub-5 cm creep on a sampled arc (a heading jump at the cusp once);
      // one whose curved track, in two pieces whose ends were rounded 1.4 micrometres apart, was
      // joined by a reversing connector of that length (two cusps of 151 degrees once).
      {
        numRuns: 10,
        examples: [
          [3, 80, 0.988, 0, true, 'Curved', 0, 179],
          [8, 102.14473064673483, 0.45, 0, false, 'Curved', -57.016622766714086, 0],
        ],
      },
    );
  });
});

describe.skipIf(!hasCorpus())('curved and spiral plans on a sample of the real-field corpus', () => {
  const sample = hasCorpus() ? sampleSelection(8, 7) : [];
  for (const type of ['Curved', 'Spiral'] as const) {
    it(`${type}: no violation, no crash`, () => {
      const bad: string[] = [];
      for (const f of sample) {
        try {
          const r = plan(f.feature, type);
          const rules = [...new Set(checkPlan(r.plan).map((v) => v.rule))];
          if (rules.length) bad.push(`${f.id}: ${rules.join(', ')}`);
        } catch (e) {
          if (
            e instanceof PlanningError &&
            ['HEADLAND_EXHAUSTS_FIELD', 'SWATH_WIDER_THAN_FIELD'].includes(e.code)
          )
            continue;
          bad.push(`${f.id}: ${(e as Error).message}`);
        }
      }
      expect(bad).toEqual([]);
    }, 120_000);
  }
});
