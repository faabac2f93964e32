/**
 * The zones of a decomposed field part are one route: none of them is
 * re-routed alone (routing endpoints and route jobs refuse with the reason),
 * while a part planned as one zone still is.
 */
import { describe, expect, it } from 'vitest';
import { planField } from '../core/plan.ts';
import type { PlanRequest } from '../core/types/index.ts';
import { toNormalizedModel } from './plan-model.ts';
import { whyNotReroutableAlone } from './reroute.ts';

const mLat = 111_320;
const mLon = 111_320 * Math.cos((52.3 * Math.PI) / 180);
const L = [
  [0, 0],
  [300, 0],
  [300, 80],
  [80, 80],
  [80, 300],
  [0, 300],
  [0, 0],
].map(([x, y]) => [9.5 + x / mLon, 52.3 + y / mLat]);

function model(decomposition: boolean) {
  const req: PlanRequest = {
    boundary: { type: 'Polygon', coordinates: [L] },
    machine: { swathWidth: 6, minTurningRadius: 6 },
    exteriorHeadlandPasses: 2,
    interiorHeadlandPasses: 1,
    decomposition,
  };
  return toNormalizedModel(planField(req), {
    pathPlanId: 'p',
    pathPlanName: 'L',
    createdAt: '2026-01-01T00:00:00Z',
  });
}

describe('re-routing the zones of a decomposed part', () => {
  it('is refused for each of them, naming the zone and what to do instead', () => {
    const m = model(true);
    expect(m.zones.length).toBeGreaterThan(1);
    for (const z of m.zones) {
      expect(z.decomposition).toBeDefined();
      expect(whyNotReroutableAlone(z)).toMatch(new RegExp(`Zone ${z.zoneId} .*useDecomposition false`));
    }
  });

  it('is allowed for a part planned as one zone', () => {
    const m = model(false);
    expect(m.zones).toHaveLength(1);
    expect(m.zones[0].fieldPartIndex).toBe(0);
    expect(whyNotReroutableAlone(m.zones[0])).toBeNull();
  });
});
