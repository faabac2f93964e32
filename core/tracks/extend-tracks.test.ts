/**
 * Extended tracks: on a field whose headland slants across the tracks, the
 * wedges are worked (less missed area), tracks stay half a swath inside the
 * field, and every plan passes the shared plan checker.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus, sampleSelection } from '../../test/helpers/corpus.ts';
import { planField } from '../plan.ts';
import { PlanningError, type PlanRequest } from '../types/index.ts';

/** A polygon given in metres around (10 E, 55 N), as GeoJSON. */
function metres(ring: [number, number][]) {
  const mLat = 111_320;
  const mLon = 111_320 * Math.cos((55 * Math.PI) / 180);
  const c = ring.map(([x, y]) => [10 + x / mLon, 55 + y / mLat]);
  return { type: 'Polygon', coordinates: [[...c, c[0]]] };
}

const request = (boundary: unknown, extendTracks: boolean): PlanRequest => ({
  boundary,
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  preferredBearingDeg: 90,
  extendTracks,
});

describe('extendTracks', () => {
  // A trapezoid: the short sides slant at 30 degrees to the east-west tracks.
  const field = metres([
    [0, 0],
    [400, 0],
    [300, 170],
    [100, 170],
  ]);

  it('works the wedges at slanted headlands and keeps every invariant', () => {
    const cut = planField(request(field, false)).plan;
    const ext = planField(request(field, true)).plan;
    expect(checkPlan(cut)).toEqual([]);
    expect(checkPlan(ext)).toEqual([]);
    expect(ext.stats.missedArea).toBeLessThan(0.85 * cut.stats.missedArea);
    expect(ext.stats.overlapArea).toBeGreaterThan(cut.stats.overlapArea);
    expect(ext.stats.trackCount).toBe(cut.stats.trackCount);
    // Extended tracks are longer, never shorter.
    expect(ext.stats.workingDistance).toBeGreaterThan(cut.stats.workingDistance);
  });

  it('changes nothing where the headland is square to the tracks', () => {
    const rect = metres([
      [0, 0],
      [300, 0],
      [300, 150],
      [0, 150],
    ]);
    const cut = planField(request(rect, false)).plan;
    const ext = planField(request(rect, true)).plan;
    expect(Math.abs(ext.stats.workingDistance - cut.stats.workingDistance)).toBeLessThan(0.05);
    expect(checkPlan(ext)).toEqual([]);
  });

  it.skipIf(!hasCorpus())('keeps every invariant on real fields', () => {
    for (const s of sampleSelection(8, 3)) {
      let plan: ReturnType<typeof planField>['plan'];
      try {
        plan = planField({ ...request(s.feature, true), preferredBearingDeg: undefined }).plan;
      } catch (e) {
        if (e instanceof PlanningError) continue;
        throw e;
      }
      expect(checkPlan(plan).slice(0, 3), s.id).toEqual([]);
    }
  });
});
