/**
 * A field whose blocks only lanes narrower than the implement join: each
 * block's headland passes are driven when its tracks are done, before the
 * route leaves it, so the machine crosses each lane once instead of coming
 * back through it for the passes at the end.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus } from '../../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../../test/helpers/field-transforms.ts';
import { pointInPolygon } from '../geometry/polygon.ts';
import { turnRegionPolygons } from '../geometry/turn-region.ts';
import { planField } from '../plan.ts';
import type { Plan } from '../types/index.ts';

const S1 = {
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
};

/**
 * How often the route moves from one piece of the turn region (the field
 * less half the working width: its blocks) to another between two working
 * parts, and how many pieces it works in.
 */
function crossings(plan: Plan): { moves: number; pieces: number } {
  let moves = 0;
  const seen = new Set<number>();
  for (const z of plan.zones) {
    const pieces = turnRegionPolygons(z.partBoundary ?? z.boundary, S1.machine.swathWidth / 2);
    let last = -1;
    const driven = z.groups[z.activeGroup].parts
      .filter((p) => p.sequence !== undefined && p.working && p.points.length >= 2)
      .sort((a, b) => (a.sequence as number) - (b.sequence as number));
    for (const p of driven) {
      const mid = p.points[Math.floor(p.points.length / 2)];
      const k = pieces.findIndex((q) => pointInPolygon(mid, q));
      if (k < 0) continue;
      seen.add(k);
      if (last >= 0 && k !== last) moves++;
      last = k;
    }
  }
  return { moves, pieces: seen.size };
}

describe.skipIf(!hasCorpus())('fields in blocks joined by narrow lanes', () => {
  it('crosses each lane once, the passes of a block driven before leaving it', () => {
    for (const f of orientations(findCorpusField('fiboa-de_bb:DEBBLI2368917469')!)) {
      const { plan } = planField({ boundary: f, ...S1, decomposition: true });
      const name = String(f.properties.id);
      expect(checkPlan(plan), name).toEqual([]);
      // Three blocks in a row: two moves (there were four to six, and 1.2 to 1.7 km of overhang).
      expect(crossings(plan), name).toEqual({ moves: 2, pieces: 3 });
      expect(plan.stats.overhangLength ?? 0, name).toBeLessThan(650);
      expect(plan.stats.coveredPercent, name).toBeGreaterThan(98.3);
    }
  });
});
