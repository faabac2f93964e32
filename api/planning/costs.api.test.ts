/**
 * Fuel, emissions and machinery cost through the direct HTTP interface and a
 * stored plan, against a listening server: every plan's statistics carry
 * fuelLitres, ghgKgCo2e, costTotal and costPerHa, with the defaults when the
 * equipment gives no figures and the equipment's own when it does; a plan
 * stored before them stays valid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, client, expectError, expectOk } from '../platform/client.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';

let srv: TestServer;
let a: Client;

beforeAll(async () => {
  srv = await startTestServer();
  a = client(srv.url, { key: (await testKey({ unlimited: true })).key });
});

afterAll(async () => {
  await srv?.close();
});

const body = (equipment: Record<string, unknown> = {}) => ({
  boundary: rectangleField(4),
  equipment: { swathWidth: 6, minTurningRadius: 6, ...equipment },
  exteriorHeadlandPasses: 2,
});

// Two field parts: two zones, so the plan's figures are sums.
const twoParts = {
  type: 'MultiPolygon',
  coordinates: [rectangleField(3).coordinates, rectangleField(2, 10.01).coordinates],
};

const COST_MEMBERS = ['fuelLitres', 'ghgKgCo2e', 'costTotal', 'costPerHa'] as const;
// Stats are rounded to 3 decimals on the wire.
const near = (x: number, y: number) =>
  expect(Math.abs(x - y)).toBeLessThanOrEqual(0.002 + 1e-9 * Math.abs(y));

function expectConsistent(plan: any, factor: number) {
  const all = [plan.stats, ...plan.zones.map((z: any) => z.stats)];
  for (const z of plan.zones) for (const g of z.geometryGroups) all.push(g.stats);
  for (const s of all) {
    for (const k of COST_MEMBERS) expect(s[k], k).toBeGreaterThan(0);
    near(s.ghgKgCo2e, s.fuelLitres * factor);
    near(s.costPerHa, s.costTotal / (s.coveredArea / 10_000));
  }
  for (const k of ['fuelLitres', 'ghgKgCo2e', 'costTotal'] as const) {
    near(
      plan.stats[k],
      plan.zones.reduce((t: number, z: any) => t + z.stats[k], 0),
    );
  }
}

describe('fuel, emissions and cost in plan statistics', () => {
  it('plans without fuel or cost inputs: defaults, consistent, above zero', async () => {
    const r = await a.post('/api/path-plans/direct', { ...body(), boundary: twoParts });
    expectOk(r);
    expect(r.json.zones.length).toBe(2);
    expectConsistent(r.json, 2.68);
    // Per hectare of the whole plan, not the sum of the zones' figures.
    const [z0, z1] = r.json.zones.map((z: any) => z.stats.costPerHa);
    expect(r.json.stats.costPerHa).toBeLessThan(z0 + z1);
  });

  it("plans with the equipment's fuel rates, emission factor and cost inputs", async () => {
    const plain = await a.post('/api/path-plans/direct', body());
    const own = {
      fuelUseWorkingLph: 30,
      fuelUseNonWorkingLph: 12,
      fuelEmissionFactorKgPerL: 2.5,
      cost: {
        listPrice: 200_000,
        purchasePrice: 180_000,
        fuelPrice: 1.5,
        labourRate: 30,
        interestRate: 0.05,
      },
    };
    const r = await a.post('/api/path-plans/direct', body(own));
    expectOk(r);
    expectConsistent(r.json, 2.5);
    const s = r.json.stats;
    near(s.fuelLitres, (30 * s.workingTime + 12 * s.nonWorkingTime) / 3600);
    expect(s.costTotal).not.toBeCloseTo(plain.json.stats.costTotal, 0);
    expect(r.json.equipment.fuelUseWorkingLph).toBe(30);
    expect(r.json.equipment.cost.listPrice).toBe(200_000);
  });

  it('names the cost inputs and the new statistics in the OpenAPI document', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    const schemas = doc.components.schemas;
    expect(schemas.MachineCostInputs.properties.listPrice.description).toContain('A3-29');
    expect(schemas.Equipment.properties.cost.$ref).toBe('#/components/schemas/MachineCostInputs');
    expect(schemas.Equipment.properties.fuelUseWorkingLph.description).toContain('D497');
    for (const k of COST_MEMBERS) {
      expect(schemas.PlanStats.properties[k], k).toBeDefined();
      expect(schemas.PlanStats.required ?? []).not.toContain(k);
    }
  });

  it('refuses a bad fuel or cost input with 400 naming the field', async () => {
    for (const [equipment, where] of [
      [{ fuelUseWorkingLph: -1 }, '/equipment/fuelUseWorkingLph'],
      [{ fuelEmissionFactorKgPerL: 'diesel' }, '/equipment/fuelEmissionFactorKgPerL'],
      [{ cost: { machineClass: 'combine' } }, '/equipment/cost/machineClass'],
      [{ cost: { interestRate: 8 } }, '/equipment/cost/interestRate'],
      [{ cost: { listPrice: 1, colour: 'green' } }, '/equipment/cost'],
    ] as const) {
      const r = await a.post('/api/path-plans/direct', body(equipment as Record<string, unknown>));
      expectError(r, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(r.json.errors), JSON.stringify(equipment)).toContain(where);
    }
  });

  it('stores a plan with them and reads it back; a plan stored without them stays valid', async () => {
    const direct = await a.post('/api/path-plans/direct', body());
    expectOk(direct);
    const stored = await a.post('/api/path-plans/upsert', {
      plan: { ...direct.json, pathPlanName: 'costed' },
    });
    expectOk(stored, 201);
    const back = await a.get(`/api/path-plans-normalized/${stored.json.pathPlanId}`);
    expectOk(back);
    for (const k of COST_MEMBERS) near(back.json.stats[k], direct.json.stats[k]);
    // As before fuel and cost: no such members anywhere.
    const strip = (s: any) => {
      const out = { ...s };
      for (const k of COST_MEMBERS) delete out[k];
      return out;
    };
    const second = await a.post('/api/path-plans/direct', body());
    const old = {
      ...second.json,
      pathPlanName: 'older',
      stats: strip(second.json.stats),
      zones: second.json.zones.map((z: any) => ({
        ...z,
        stats: strip(z.stats),
        geometryGroups: z.geometryGroups.map((g: any) => ({ ...g, stats: strip(g.stats) })),
      })),
    };
    const older = await a.post('/api/path-plans/upsert', { plan: old });
    expectOk(older, 201);
    const read = await a.get(`/api/path-plans-normalized/${older.json.pathPlanId}`);
    expectOk(read);
    expect(read.json.stats.fuelLitres).toBeUndefined();
    expect(read.json.stats.coveredArea).toBe(direct.json.stats.coveredArea);
  });
});
