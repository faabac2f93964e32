/**
 * Extended tracks: on a field whose headland slants across the tracks, the
 * wedges are worked (less missed area), tracks stay half a swath inside the
 * field, and every plan passes the shared plan checker.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus, sampleSelection } from '../../test/helpers/corpus.ts';
import { bufferLines, difference } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { multiPolygonArea } from '../geometry/polygon.ts';
import { generateHeadlands, ringSwaths } from '../headland/generate-headlands.ts';
import { planField } from '../plan.ts';
import { PlanningError, type PlanRequest, type Polygon } from '../types/index.ts';
import { extendTracks } from './extend-tracks.ts';
import { generateTracks } from './generate-tracks.ts';

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

  it('leaves the tracks where the headland is square to them, and runs the inner pass on into its corners', () => {
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
    // The inner pass runs on half a swath past each of its 4 square corners (the
    // route may start or end inside one), working the 3 m x 3 m kite outside it.
    const runOn = ext.stats.headlandDistance - cut.stats.headlandDistance;
    expect(runOn).toBeGreaterThan(3 * 3 - 0.1);
    expect(runOn).toBeLessThan(4 * 3 + 0.1);
    expect(cut.stats.missedArea - ext.stats.missedArea).toBeGreaterThan((runOn / 3) * 9 - 1);
  });

  it('runs tracks on across the pass round an obstacle into the bay it leaves unworked, half a swath off the obstacle', () => {
    // An obstacle with a bay 14 m wide and 15 m deep open to the east: the pass
    // round it cannot turn into the bay at the turning radius, tracks can.
    const zone: Polygon = {
      outer: [
        { x: 0, y: 0 },
        { x: 200, y: 0 },
        { x: 200, y: 120 },
        { x: 0, y: 120 },
      ],
      holes: [
        [
          { x: 85, y: 50 },
          { x: 85, y: 70 },
          { x: 110, y: 70 },
          { x: 110, y: 67 },
          { x: 95, y: 67 },
          { x: 95, y: 53 },
          { x: 110, y: 53 },
          { x: 110, y: 50 },
        ],
      ],
    };
    const w = 6;
    const headlands = generateHeadlands(zone, {
      swathWidth: w,
      exteriorPasses: 2,
      interiorPasses: 1,
      turningRadius: 6,
    });
    const tracks = generateTracks(headlands.workable, { swathWidth: w, preferredBearingDeg: 90 });
    const swaths = ringSwaths(
      [...headlands.drivenExterior, ...headlands.drivenInterior].map((r) => r.ring),
      w,
    );
    const plain = extendTracks({ tracks, workable: headlands.workable, zone });
    const runOn = extendTracks({ tracks, workable: headlands.workable, zone, passSwaths: swaths });
    const obstacle = new EdgeIndex([zone.outer, ...zone.holes]);
    const nearest = (set: typeof tracks) =>
      Math.min(...set.tracks.flatMap((t) => [t.a, t.b]).map((p) => obstacle.distance(p)));
    // Missed around the obstacle.
    const near: Polygon = {
      outer: [
        { x: 70, y: 40 },
        { x: 125, y: 40 },
        { x: 125, y: 80 },
        { x: 70, y: 80 },
      ],
      holes: [zone.holes[0].slice().reverse()],
    };
    const missed = (set: typeof tracks) =>
      multiPolygonArea(
        difference(
          [near],
          [
            ...swaths,
            ...bufferLines(
              set.tracks.map((t) => [t.a, t.b]),
              w / 2,
              'butt',
            ),
          ],
        ),
      );
    // Past the workable edge only as far as their swaths' ends need, the ends stay out of the bay ...
    expect(nearest(plain)).toBeGreaterThan(w / 2 + 0.5);
    // ... run on for what the pass leaves in it, they come to half a swath of its end (and no closer).
    expect(nearest(runOn)).toBeLessThan(w / 2 + 0.1);
    expect(nearest(runOn)).toBeGreaterThanOrEqual(w / 2);
    expect(missed(runOn)).toBeLessThan(missed(plain) - 40);
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
