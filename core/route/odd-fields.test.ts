/**
 * Real fields whose plans once went wrong without saying so, planned as a
 * user would (S1: swath 6 m, turning radius 6 m, 2 exterior and 1 interior
 * headland pass), in every orientation and mirrored.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus } from '../../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../../test/helpers/field-transforms.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { planField } from '../plan.ts';
import type { Plan, PlanRequest } from '../types/index.ts';

const S1 = {
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
} as const;

/** The field in each orientation (empty without the corpus). */
function turned(id: string) {
  const f = hasCorpus() ? findCorpusField(id) : undefined;
  return f ? orientations(f).map((o) => [String(o.properties.id), o] as const) : [];
}

function plan(boundary: unknown, extra: Partial<PlanRequest> = {}): Plan {
  return planField({ boundary, ...S1, ...extra }).plan;
}

/** Median distance of the driven points of exterior pass k from the field edge [m]. */
function passEdgeDistance(p: Plan, k: number): number {
  const d: number[] = [];
  for (const z of p.zones) {
    const b = z.partBoundary ?? z.boundary;
    const edge = new EdgeIndex([b.outer, ...b.holes]);
    for (const part of z.groups[z.activeGroup].parts) {
      if (part.sequence === undefined || part.type !== 'ExteriorHeadlandPass' || part.passNumber !== k)
        continue;
      for (const q of part.points) d.push(edge.distance(q, 50));
    }
  }
  d.sort((a, b) => a - b);
  return d[d.length >> 1];
}

describe.skipIf(!hasCorpus())('the outer headland pass is driven half a swath from the edge', () => {
  const fields = turned('fiboa-jp:0cfab1b4-...');
  for (const extra of [{}, { trackType: 'Curved' }, { extendTracks: true }] as Partial<PlanRequest>[]) {
    it.each(fields)(`%s ${JSON.stringify(extra)}`, (_id, f) => {
      const p = plan(f, extra);
      // A thin spike of the edge reaches 47 m into the field: the pass is pulled in round it alone.
      expect(passEdgeDistance(p, 1)).toBeGreaterThan(2.9);
      expect(passEdgeDistance(p, 1)).toBeLessThan(3.2);
      expect(p.stats.coveredPercent).toBeGreaterThan(97);
      expect(checkPlan(p)).toEqual([]);
    });
  }
});
