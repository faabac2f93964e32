/**
 * Headlands only: the passes planHeadlands gives are exactly the reference
 * passes of the whole plan of the same request (so a plan made later from
 * them keeps them), on real fields with and without obstacles; no tracks and
 * no route; the workable area is the whole plan's.
 */
import { describe, expect, it } from 'vitest';
import { loadFixtureFields } from '../test/helpers/corpus.ts';
import { planField } from './plan.ts';
import { planHeadlands } from './plan-headlands.ts';
import type { PathPart, PlanRequest } from './types/index.ts';

const fields = loadFixtureFields();
const withHoles = fields.filter((f) => {
  const g = f.geometry as { type: string; coordinates: unknown[] };
  return g.type === 'Polygon' && g.coordinates.length > 1;
});
const cases = [...fields.slice(0, 3), ...withHoles.slice(0, 3)];
/** Interior passes compared equal, over all cases (at least one case must have obstacles). */
let interiorCompared = 0;

const reference = (parts: readonly PathPart[]) =>
  parts
    .filter(
      (p) =>
        (p.type === 'ExteriorHeadlandPass' || p.type === 'InteriorHeadlandPass') && p.sequence === undefined,
    )
    .map((p) => ({
      type: p.type,
      passNumber: p.passNumber,
      obstacleIndex: p.obstacleIndex,
      points: p.points,
    }));

describe.skipIf(cases.length === 0)('planHeadlands', () => {
  it.each(cases.map((f, i) => [String(f.properties?.id ?? i), f] as const))(
    'gives the whole plan’s headland passes and workable area, and nothing else (%s)',
    (_id, f) => {
      const req: PlanRequest = {
        boundary: f.geometry,
        machine: { swathWidth: 6, minTurningRadius: 6 },
        exteriorHeadlandPasses: 2,
        interiorHeadlandPasses: 1,
        route: { algorithm: 'boustrophedon' },
      };
      let whole: ReturnType<typeof planField>;
      try {
        whole = planField(req);
      } catch {
        return; // A field the planner refuses is not a case for this comparison.
      }
      const only = planHeadlands(req);
      expect(only.plan.zones).toHaveLength(whole.plan.zones.length);
      only.plan.zones.forEach((z, i) => {
        const w = whole.plan.zones[i]!;
        const parts = z.groups[0]!.parts;
        expect(
          parts.every((p) => p.type === 'ExteriorHeadlandPass' || p.type === 'InteriorHeadlandPass'),
        ).toBe(true);
        expect(parts.every((p) => p.sequence === undefined)).toBe(true);
        if (w.groups[0]!.parts.some((p) => p.type === 'RouteTrack')) {
          expect(reference(parts)).toEqual(reference(w.groups[0]!.parts));
          interiorCompared += parts.filter((p) => p.type === 'InteriorHeadlandPass').length;
        }
        expect(z.stats.fieldArea).toBeCloseTo(w.stats.fieldArea, 6);
        expect(z.stats.trackCount).toBe(0);
      });
    },
  );

  it.skipIf(withHoles.length === 0)('compared interior passes around obstacles too', () => {
    expect(interiorCompared).toBeGreaterThan(0);
  });
});
