/**
 * enableHeadlandDrivethrough: connectors drive straight through the
 * headland, never along a headland pass; the default takes whichever way is
 * shorter, along a pass included.
 */
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { loadFixtureFields } from '../../test/helpers/corpus.ts';
import { planField } from '../plan.ts';
import type { PlanRequest } from '../types/index.ts';

// Fixture fields whose default routes follow a headland pass somewhere.
const fields = loadFixtureFields().filter((f) =>
  ['fiboa-nz:7', 'fiboa-cz:44715294'].includes((f as { properties?: { id?: string } }).properties?.id ?? ''),
);

const request = (boundary: unknown, drive?: boolean): PlanRequest => ({
  boundary,
  machine: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 2,
  interiorHeadlandPasses: 1,
  route: { algorithm: 'auto', ...(drive === undefined ? {} : { enableHeadlandDrivethrough: drive }) },
});

const alongPasses = (r: ReturnType<typeof planField>) =>
  r.plan.zones.flatMap((z) => z.groups[z.activeGroup].parts).filter((p) => p.turnKind === 'headland').length;

describe('enableHeadlandDrivethrough', () => {
  it('finds its fixture fields', () => expect(fields.length).toBe(2));

  for (const f of fields) {
    const id = (f as { properties?: { id?: string } }).properties?.id;
    it(`${id}: true drives no connector along a headland pass; the plan stays valid`, () => {
      const r = planField(request(f, true));
      expect(checkPlan(r.plan)).toEqual([]);
      expect(alongPasses(r)).toBe(0);
      expect(r.plan.zones.every((z) => (z.routeFailures ?? 0) === 0)).toBe(true);
    });

    it(`${id}: false (the default) follows a headland pass where that is the way found`, () => {
      const r = planField(request(f));
      expect(checkPlan(r.plan)).toEqual([]);
      expect(alongPasses(r)).toBeGreaterThan(0);
      expect(alongPasses(planField(request(f, false)))).toBe(alongPasses(r));
    });
  }
});
