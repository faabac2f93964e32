/**
 * routeOptions.objective 'fuel' prices the transitions between tracks with
 * the machine's fuel rates: moving at the non-working rate, standing at a
 * reversing cusp (stop, shift, start) at the idle rate. 'time' counts a cusp
 * as 4 s of moving. So where standing burns less than moving, 'fuel' accepts
 * reversing turns 'time' avoids and picks another order; with the idle rate
 * equal to the moving rate (fuel proportional to time) it picks the order
 * 'time' picks. Working fuel is the same for every order.
 */
import { describe, expect, it } from 'vitest';
import { planField } from '../plan.ts';
import type { Machine, OptimizerObjective, PathPart } from '../types/index.ts';

function metres(rings: [number, number][][]) {
  const mLat = 111_320;
  const mLon = 111_320 * Math.cos((55 * Math.PI) / 180);
  return {
    type: 'Polygon',
    coordinates: rings.map((r) => {
      const c = r.map(([x, y]) => [10 + x / mLon, 55 + y / mLat]);
      return [...c, c[0]];
    }),
  };
}

// 3 m swath and a 6 m turning radius: next-line turns need a bulb or a fishtail.
const field = metres([
  [
    [0, 0],
    [120, 0],
    [130, 90],
    [0, 80],
  ],
]);

function run(objective: OptimizerObjective, fuel: Partial<Machine> = {}, swathWidth = 3, passes = 1) {
  const r = planField({
    boundary: field,
    machine: { swathWidth, minTurningRadius: 6, ...fuel },
    exteriorHeadlandPasses: passes,
    route: { algorithm: 'optimized', objective, maxEvaluations: 20_000 },
  });
  const z = r.plan.zones[0];
  const parts = z.groups[z.activeGroup].parts
    .filter((p): p is PathPart & { sequence: number } => p.sequence !== undefined)
    .sort((a, b) => a.sequence - b.sequence);
  const order = parts
    .filter((p) => p.type === 'RouteTrack')
    .map((p) => `${p.points[0].x.toFixed(1)},${p.points[0].y.toFixed(1)}`)
    .join(' ');
  return { order, stats: r.plan.stats, optimizer: z.optimizer };
}

describe("objective 'fuel'", () => {
  it('picks another order than time where standing burns less than moving, the same where fuel is proportional to time', () => {
    const time = run('time');
    const cheapStanding = run('fuel', { fuelUseNonWorkingLph: 20, fuelUseIdleLph: 0 });
    const defaults = run('fuel');
    const proportional = run('fuel', { fuelUseNonWorkingLph: 20, fuelUseIdleLph: 20 });
    expect(cheapStanding.order).not.toBe(time.order);
    expect(defaults.order).not.toBe(time.order);
    expect(proportional.order).toBe(time.order);
    // Standing free, the fuel order drives less in turns and connectors than the time order.
    expect(cheapStanding.stats.nonWorkingDistance).toBeLessThan(time.stats.nonWorkingDistance);
    // Reported in litres: the transitions at 20 l/h.
    const rep = proportional.optimizer;
    const timeRep = time.optimizer;
    expect(rep?.objective).toBe('fuel');
    expect(rep?.cost).toBeCloseTo(((timeRep?.cost ?? Number.NaN) * 20) / 3600, 9);
    expect(rep?.gainPercent).toBeCloseTo(timeRep?.gainPercent ?? Number.NaN, 9);
    // Working fuel is the same whatever the order: more working fuel changes nothing.
    const hungry = run('fuel', { fuelUseWorkingLph: 80, fuelUseNonWorkingLph: 20, fuelUseIdleLph: 0 });
    expect(hungry.order).toBe(cheapStanding.order);
    expect(hungry.stats.fuelLitres).toBeGreaterThan(cheapStanding.stats.fuelLitres ?? 0);
  }, 300_000);

  it('optimizes fuel on the scale of time, so proportional rates give the order of time on another field too', () => {
    const rates = { fuelUseNonWorkingLph: 20, fuelUseIdleLph: 20 };
    expect(run('fuel', rates, 4, 2).order).toBe(run('time', {}, 4, 2).order);
  }, 300_000);
});
