/**
 * Equipment scenarios against a really listening server: a set of three
 * machines (two given inline, one stored) over 20 fields of the benchmark
 * selection (the fixture fields without the shared corpus) is planned as
 * one job; its totals are the sums of its field figures, which are the
 * statistics of its plans; one credit per field plan; total cost of
 * ownership recomputed without planning; the flat form; CSV; shares with
 * anonymous read; and tenant isolation of every route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBoundaries } from '../../bench/seed-boundaries.ts';
import type { BoundaryInput } from '../../formats/direct-request.ts';
import { uuidv7 } from '../../store/uuidv7.ts';
import { hasCorpus, loadFixtureFields, sampleSelection } from '../../test/helpers/corpus.ts';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;

beforeAll(async () => {
  // The machine may be shared: a plan's hard time cap is the optimizer's 1 s plus a grace that load cannot exhaust.
  srv = await startTestServer({ rateLimitPerMin: 100_000, planning: { graceMs: 120_000 } });
});
afterAll(async () => {
  await srv?.close();
});

const PLANNING = {
  exteriorHeadlandPasses: 1,
  routeOptions: { algorithm: 'boustrophedon', maxOptimizerTime: 1 },
};

async function account(credits = 1000) {
  const k = await testKey({ credits });
  return { ...k, c: client(srv.url, { key: k.key }) };
}

/** 20 fields of the benchmark selection (or the fixture fields, topped up with rectangles). */
function twentyFields(): { name: string; geometry: BoundaryInput }[] {
  const list = hasCorpus()
    ? sampleSelection(20).map((s) => ({ name: s.id, geometry: s.feature.geometry as BoundaryInput }))
    : loadFixtureFields()
        .slice(0, 20)
        .map((f, i) => ({
          name: String(f.properties.id ?? `fixture-${i}`),
          geometry: f.geometry as BoundaryInput,
        }));
  for (let i = list.length; i < 20; i++)
    list.push({ name: `Rectangle ${i}`, geometry: rectangleField(3 + i, 10 + i * 0.01) });
  return list;
}

async function waitForJob(c: Client, path: string) {
  for (let i = 0; i < 3000; i++) {
    const a = await c.get(path);
    expectOk(a);
    if (a.json.status !== 'queued' && a.json.status !== 'running') return a;
    expect(a.headers.get('retry-after')).toBe('5');
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${path} did not finish`);
}

const FIGURES = [
  'areaHa',
  'coveredAreaHa',
  'workingHours',
  'totalHours',
  'fuelLitres',
  'ghgKgCo2e',
  'costTotal',
  'traffickedAreaHa',
] as const;

describe('equipment scenarios', () => {
  it('plans 3 machines over 20 fields; totals are the sums of the plans; costs recomputed without planning', async () => {
    const a = await account();
    const b = await account();
    const boundaryIds = (await seedBoundaries(await testStore(), a.companyId, twentyFields())).map(
      (x) => x.boundaryId,
    );
    expect(boundaryIds).toHaveLength(20);
    const stored = await a.c.post('/api/equipment', {
      companyId: a.companyId,
      name: 'Sprayer 24',
      type: 'sprayer',
      swathWidth: 24,
      trackWidths: [2.25],
      tireWidths: [0.46],
      turningRadius: 8,
      workingSpeed: 3.5,
      fuelUse: 18,
    });
    expectOk(stored, 201);
    const body = {
      name: 'Drill or sprayer',
      boundaryIds,
      scenarios: [
        {
          name: 'Drill 6 m',
          equipment: { swathWidth: 6, minTurningRadius: 6, trackWidths: [1.8], tireWidths: [0.5] },
          ...PLANNING,
        },
        {
          name: 'Drill 12 m, 150 kW',
          equipment: {
            swathWidth: 12,
            minTurningRadius: 7,
            ptoPowerKw: 150,
            cost: { listPrice: 250_000, annualHours: 600 },
          },
          ...PLANNING,
        },
        { name: 'Stored sprayer', equipmentId: stored.json.equipmentId, ...PLANNING },
      ],
    };

    // Another company can name neither these boundaries nor this machine.
    expectError(await b.c.post('/api/equipment-scenarios/normalized', body), 404, 'NOT_FOUND');
    expectError(
      await b.c.post('/api/equipment-scenarios/normalized', {
        ...body,
        boundaryIds: [
          (await seedBoundaries(await testStore(), b.companyId, twentyFields().slice(0, 1)))[0]!.boundaryId,
        ],
      }),
      404,
      'NOT_FOUND',
    );

    const post = await a.c.post('/api/equipment-scenarios/normalized', body);
    expectOk(post, 202);
    expect(post.json).toEqual({ jobId: expect.any(String), status: 'queued' });
    const job = await waitForJob(a.c, `/api/equipment-scenarios/normalized/jobs/${post.json.jobId}`);
    expect(job.json).toMatchObject({ status: 'completed', progress: 1, total: 60 });
    const setId = job.json.equipmentScenarioId;
    expectError(
      await b.c.get(`/api/equipment-scenarios/normalized/jobs/${post.json.jobId}`),
      404,
      'NOT_FOUND',
    );

    const got = await a.c.get(`/api/equipment-scenarios/${setId}`);
    expectOk(got);
    const set = got.json;
    expect(set.status).toBe('completed');
    expect(set.scenarios.map((s: { name: string }) => s.name)).toEqual(body.scenarios.map((s) => s.name));
    let plans = 0;
    for (const s of set.scenarios) {
      expect(s.fields.map((f: { boundaryId: string }) => f.boundaryId)).toEqual(boundaryIds);
      const planned = s.fields.filter((f: { figures: unknown }) => f.figures);
      // A field that could not be planned with this machine names why.
      for (const f of s.fields) if (!f.figures) expect(f.error.errorCode).toEqual(expect.any(String));
      expect(
        planned.length,
        JSON.stringify(s.fields.map((f: { error: unknown }) => f.error)),
      ).toBeGreaterThanOrEqual(15);
      // With no cost inputs given, the defaults still price every plan.
      for (const f of planned) {
        expect(f.figures.fuelLitres).toBeGreaterThan(0);
        expect(f.figures.costPerHa).toBeGreaterThan(0);
      }
      plans += planned.length;
      for (const k of FIGURES) {
        const sum = planned.reduce(
          (t: number, f: { figures: Record<string, number> }) => t + f.figures[k],
          0,
        );
        expect(s.totals[k]).toBeCloseTo(sum, 6);
      }
      expect(s.totals.costPerHa).toBeCloseTo(s.totals.costTotal / s.totals.coveredAreaHa, 6);
      expect(s.totals.fuelLitres).toBeGreaterThan(0);
      expect(s.totals.costPerHa).toBeGreaterThan(0);
      // Each field's figures are its plan's statistics.
      for (const f of planned.slice(0, 4)) {
        const plan = await a.c.get(`/api/path-plans-normalized/${f.pathPlanIds[0]}`);
        expectOk(plan);
        const st = plan.json.stats;
        expect(f.figures.areaHa).toBeCloseTo(st.fieldArea / 10_000, 6);
        expect(f.figures.fuelLitres).toBe(st.fuelLitres);
        expect(f.figures.ghgKgCo2e).toBe(st.ghgKgCo2e);
        expect(f.figures.costTotal).toBe(st.costTotal);
        expect(f.figures.totalHours).toBeCloseTo(st.totalTime / 3600, 9);
      }
    }
    // What-if plans stay out of the field's own plan lists unless asked for.
    const scenarioPlans = set.scenarios.flatMap(
      (s: { fields: { boundaryId: string; pathPlanIds: string[] }[] }) =>
        s.fields.filter((f) => f.boundaryId === boundaryIds[0]).flatMap((f) => f.pathPlanIds),
    );
    expect(scenarioPlans.length).toBe(3);
    const own = await a.c.get(`/api/boundaries/${boundaryIds[0]}/path-plan-ids`);
    expectOk(own);
    for (const id of scenarioPlans) expect(own.json).not.toContain(id);
    const withScenarios = await a.c.get(
      `/api/boundaries/${boundaryIds[0]}/path-plan-ids?includeScenarioPlans=true`,
    );
    expectOk(withScenarios);
    expect(withScenarios.json).toEqual(expect.arrayContaining(scenarioPlans));
    // The stored machine's tyres run on the ground; the 12 m machine names none.
    expect(set.scenarios[2].totals.traffickedAreaPercent).toBeGreaterThan(0);
    expect(set.scenarios[1].totals.traffickedAreaPercent).toBe(0);
    // A wider machine works the same fields in fewer hours.
    expect(set.scenarios[1].totals.workingHours).toBeLessThan(set.scenarios[0].totals.workingHours);
    // One credit per field plan.
    const me = await a.c.get('/api/user/current');
    expect(me.json.credits.available).toBe(1000 - plans);

    // The set's plans, all and of one scenario.
    const all = await a.c.post(`/api/equipment-scenarios/${setId}/path-plans`, {});
    expectOk(all);
    expect(all.json).toHaveLength(plans);
    const first = set.scenarios[0].equipmentScenarioDetailsId;
    const one = await a.c.post(`/api/equipment-scenarios/${setId}/path-plans`, {
      equipmentScenarioDetailsId: first,
    });
    expect(
      one.json.every((p: { equipmentScenarioDetailsId: string }) => p.equipmentScenarioDetailsId === first),
    ).toBe(true);

    // Total cost of ownership: dearer machine and fuel, same hours and fuel, no credits, no new plans.
    const tco = await a.c.put(`/api/equipment-scenarios-details/${first}/total-cost-of-ownership`, {
      listPrice: 400_000,
      fuelPrice: 2,
      labourRate: 35,
    });
    expectOk(tco);
    const before = set.scenarios[0];
    expect(tco.json.costInputs).toMatchObject({ listPrice: 400_000, fuelPrice: 2, labourRate: 35 });
    expect(tco.json.totals.fuelLitres).toBe(before.totals.fuelLitres);
    expect(tco.json.totals.totalHours).toBe(before.totals.totalHours);
    expect(tco.json.totals.costTotal).toBeGreaterThan(before.totals.costTotal * 1.5);
    expect(tco.json.fields.map((f: { pathPlanIds: string[] }) => f.pathPlanIds)).toEqual(
      before.fields.map((f: { pathPlanIds: string[] }) => f.pathPlanIds),
    );
    const costSum = tco.json.fields.reduce(
      (t: number, f: { figures: { costTotal: number } | null }) => t + (f.figures?.costTotal ?? 0),
      0,
    );
    expect(tco.json.totals.costTotal).toBeCloseTo(costSum, 6);
    expect((await a.c.get('/api/user/current')).json.credits.available).toBe(1000 - plans);
    expectError(
      await a.c.put(`/api/equipment-scenarios-details/${first}/total-cost-of-ownership`, { interestRate: 3 }),
      400,
      'VALIDATION_ERROR',
    );

    // The comparison as CSV: a header, a total per scenario, a line per scenario and field.
    const csv = await a.c.get(`/api/equipment-scenarios/${setId}/csv`);
    expectOk(csv);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(1 + 3 + 60);
    expect(lines[0]).toContain('costPerHa');

    // Shared by code: anonymous read until revoked.
    const share = await a.c.post('/api/shares/equipment-scenario', { equipmentScenarioId: setId });
    expectOk(share, 201);
    const anon = await call(srv.url, `/api/shares/${share.json.code}/equipment-scenario`);
    expectOk(anon);
    expect(anon.json.scenarios.map((s: { totals: unknown }) => s.totals)).toEqual(
      (await a.c.get(`/api/equipment-scenarios/${setId}`)).json.scenarios.map(
        (s: { totals: unknown }) => s.totals,
      ),
    );
    const what = await call(srv.url, `/api/shares/${share.json.code}`);
    expect(what.json).toMatchObject({ type: 'equipment-scenario', equipmentScenarioId: setId });
    expect((await a.c.get(`/api/shares/${share.json.shareId}`)).json.type).toBe('equipment-scenario');
    expectError(await b.c.del(`/api/shares/${share.json.shareId}`), 404, 'NOT_FOUND');
    expect((await a.c.del(`/api/shares/${share.json.shareId}`)).status).toBe(204);
    expectError(await call(srv.url, `/api/shares/${share.json.code}/equipment-scenario`), 404, 'NOT_FOUND');

    // Another company sees none of it.
    expectError(await b.c.get(`/api/equipment-scenarios/${setId}`), 404, 'NOT_FOUND');
    expectError(await b.c.get(`/api/equipment-scenarios/${setId}/csv`), 404, 'NOT_FOUND');
    expectError(await b.c.post(`/api/equipment-scenarios/${setId}/path-plans`, {}), 404, 'NOT_FOUND');
    expectError(
      await b.c.put(`/api/equipment-scenarios-details/${first}/total-cost-of-ownership`, { fuelPrice: 1 }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.c.post('/api/shares/equipment-scenario', { equipmentScenarioId: setId }),
      404,
      'NOT_FOUND',
    );
    const bCompany = await b.c.get('/api/equipment-scenarios/enterprise-company');
    expect(bCompany.json.equipmentScenarios).toEqual([]);
    const aCompany = await a.c.get('/api/equipment-scenarios/enterprise-company');
    expect(aCompany.json).toMatchObject({ companyId: a.companyId });
    expect(aCompany.json.equipmentScenarios[0]).toMatchObject({ equipmentScenarioId: setId, fieldCount: 20 });
  });

  it('the flat form compares stored machines; fields summary; paid status', async () => {
    const a = await account(3);
    const ids = (
      await seedBoundaries(await testStore(), a.companyId, [
        { name: 'North', geometry: rectangleField(4, 12, 55) },
        { name: 'South', geometry: rectangleField(6, 12.02, 55) },
      ])
    ).map((x) => x.boundaryId);
    const summary = await a.c.post('/api/equipment-scenarios/fields-summary', {
      boundaryIds: [ids[1], ids[0], ids[1]],
    });
    expectOk(summary);
    expect(summary.json.fields.map((f: { name: string }) => f.name)).toEqual(['South', 'North']);
    expect(summary.json.totalAreaHa).toBeCloseTo(10, 1);
    expect(summary.json.creditsPerScenario).toBe(2);
    const paid = await a.c.get('/api/equipment-scenarios/is-paid');
    expect(paid.json).toMatchObject({
      isPaid: true,
      creditsAvailable: 3,
      unlimited: false,
      creditsPerFieldPlan: 1,
    });

    // The company's fuel price and labour rate; the second machine's own cost inputs come first.
    for (const [name, value] of [
      ['fuelPrice', 1.6],
      ['labourRate', 30],
    ] as const)
      expectOk(await a.c.post(`/api/companies/${a.companyId}/settings`, { name, value }), 201);
    expectError(
      await a.c.post(`/api/companies/${a.companyId}/settings`, { name: 'interestRate', value: 8 }),
      400,
      'VALIDATION_ERROR',
    );
    const machines = [];
    for (const [name, swathWidth, extra] of [
      ['Mower 3', 3, {}],
      ['Mower 9', 9, { ptoPowerKw: 90, cost: { listPrice: 120_000, labourRate: 25 } }],
    ] as const) {
      const m = await a.c.post('/api/equipment', {
        companyId: a.companyId,
        name,
        type: 'mower',
        swathWidth,
        ...extra,
      });
      expectOk(m, 201);
      expect(m.json).toMatchObject({ ptoPowerKw: null, cost: null, ...extra });
      machines.push(m.json.equipmentId);
    }
    expect((await a.c.get(`/api/equipment/${machines[1]}`)).json.cost).toMatchObject({
      listPrice: 120_000,
      labourRate: 25,
    });
    const post = await a.c.post('/api/equipment-scenarios', {
      name: 'Mowers',
      boundaryIds: ids,
      equipmentIds: machines,
      request: PLANNING,
    });
    expectOk(post, 202);
    const job = await waitForJob(a.c, `/api/equipment-scenarios/jobs/${post.json.jobId}`);
    expect(job.json.total).toBe(4);
    // Three credits for four field plans: the fourth is refused by its field, the set completes.
    expect(job.json.status).toBe('completed');
    expect(job.json.errors).toEqual([
      expect.objectContaining({ errorCode: 'INSUFFICIENT_CREDITS', scenarioIndex: expect.any(Number) }),
    ]);
    const set = (await a.c.get(`/api/equipment-scenarios/${job.json.equipmentScenarioId}`)).json;
    expect(set.scenarios.map((s: { name: string }) => s.name)).toEqual(['Mower 3', 'Mower 9']);
    expect(set.scenarios.map((s: { equipmentId: string }) => s.equipmentId)).toEqual(machines);
    expect(set.scenarios[0].equipment.cost).toMatchObject({ fuelPrice: 1.6, labourRate: 30 });
    expect(set.scenarios[1].equipment).toMatchObject({
      ptoPowerKw: 90,
      cost: { fuelPrice: 1.6, labourRate: 25, listPrice: 120_000 },
    });
    expect((await a.c.get('/api/equipment-scenarios/is-paid')).json).toMatchObject({
      isPaid: false,
      creditsAvailable: 0,
    });
  });

  it('refuses bad requests before queueing, naming the member', async () => {
    const a = await account();
    const [bnd] = await seedBoundaries(await testStore(), a.companyId, [
      { name: 'F', geometry: rectangleField(2, 13) },
    ]);
    const both = await a.c.post('/api/equipment-scenarios/normalized', {
      name: 'x',
      boundaryIds: [bnd!.boundaryId],
      scenarios: [{ name: 'a', equipment: { swathWidth: 6 }, equipmentId: uuidv7() }],
    });
    expectError(both, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(both.json.errors)).toContain('"/scenarios/0"');
    const bad = await a.c.post('/api/equipment-scenarios/normalized', {
      name: 'x',
      boundaryIds: [bnd!.boundaryId],
      scenarios: [
        { name: 'a', equipment: { swathWidth: 6 } },
        { name: 'b', equipment: { swathWidth: -1 } },
      ],
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(bad.json.errors)).toContain('/scenarios/1/equipment/swathWidth');
    expectError(
      await a.c.post('/api/equipment-scenarios/normalized', {
        name: 'x',
        boundaryIds: [bnd!.boundaryId],
        scenarios: [],
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await a.c.get('/api/equipment-scenarios/not-a-uuid'), 400, 'VALIDATION_ERROR');
    expectError(await a.c.get(`/api/equipment-scenarios/${uuidv7()}`), 404, 'NOT_FOUND');
  });
});
