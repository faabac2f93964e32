/**
 * `tramline plan --no-decomposition`: the planner is asked for one zone per
 * field part; without the flag, decomposition is left at its default (on).
 */
import { describe, expect, it } from 'vitest';
import type { PlanRequest } from '../../core/types/index.ts';
import { samplePlanResult } from '../../formats/plan-sample.ts';
import { type PlanIO, parsePlanArgs, runPlan } from './plan.ts';

const SQUARE = JSON.stringify({
  type: 'Polygon',
  coordinates: [
    [
      [10, 52],
      [10.002, 52],
      [10.002, 52.002],
      [10, 52.002],
      [10, 52],
    ],
  ],
});

function io(requests: PlanRequest[]): PlanIO {
  return {
    stdout: () => {},
    stderr: () => {},
    readStdin: () => SQUARE,
    readFile: () => SQUARE,
    writeFile: () => {},
    plan: (req) => {
      requests.push(req);
      return samplePlanResult();
    },
    now: () => new Date('2026-01-01T00:00:00Z'),
  };
}

describe('tramline plan --no-decomposition', () => {
  it('asks the planner for one zone per field part', async () => {
    const args = parsePlanArgs(['field.geojson', '--no-decomposition']);
    expect(args !== 'help' && args.decomposition).toBe(false);
    const requests: PlanRequest[] = [];
    expect(await runPlan(['field.geojson', '--no-decomposition'], io(requests))).toBe(0);
    expect(requests[0].decomposition).toBe(false);
  });

  it('leaves decomposition at its default without the flag', async () => {
    const requests: PlanRequest[] = [];
    expect(await runPlan(['field.geojson'], io(requests))).toBe(0);
    expect(requests[0].decomposition).toBeUndefined();
  });
});
