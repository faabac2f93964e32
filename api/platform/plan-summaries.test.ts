/**
 * Plan summaries over HTTP (PGlite and PostgreSQL): the seasonal summary
 * and the dashboard summary sum the stored plans' own figures per crop
 * season (the cropSeason descriptor of plan or field, else the year made),
 * grower and farm; filters; isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
const A: Record<string, string> = {};
// biome-ignore lint/suspicious/noExplicitAny: stored models are inspected freely
const stats: Record<string, any> = {};
const YEAR = String(new Date().getUTCFullYear());

async function planOn(c: Client, key: string, ha: number, lon: number, fieldId?: string) {
  const direct = await c.post('/api/path-plans/direct', {
    boundary: rectangleField(ha, lon, 55),
    equipment: { swathWidth: 12, minTurningRadius: 6 },
  });
  expectOk(direct);
  const stored = await c.post('/api/path-plans/upsert', {
    plan: direct.json,
    ...(fieldId ? { fieldId } : {}),
  });
  expectOk(stored, 201);
  stats[key] = direct.json;
  return stored.json.pathPlanId as string;
}

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey({ credits: 1000 });
  kb = await testKey({ credits: 1000 });
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  A.g1 = (await a.post(`/api/companies/${ka.companyId}/growers`, { name: 'Able' })).json.growerId;
  A.g2 = (await a.post(`/api/companies/${ka.companyId}/growers`, { name: 'Baker' })).json.growerId;
  A.f1 = (await a.post(`/api/growers/${A.g1}/farms`, { name: 'Hill' })).json.farmId;
  A.f2 = (await a.post(`/api/growers/${A.g2}/farms`, { name: 'Vale' })).json.farmId;
  const save = async (farmId: string, name: string, lon: number) =>
    (await a.post('/api/fields/save', { farmId, name, boundary: rectangleField(3, lon, 55).coordinates }))
      .json.field.fieldId as string;
  A.north = await save(A.f1, 'North', 10);
  A.south = await save(A.f2, 'South', 10.05);
  A.p1 = await planOn(a, 'p1', 3, 10, A.north);
  A.p2 = await planOn(a, 'p2', 5, 10.05, A.south);
  A.p3 = await planOn(a, 'p3', 2, 10.1);
  expectOk(
    await a.post('/api/descriptors', {
      objectType: 'field',
      objectId: A.north,
      name: 'cropSeason',
      valueType: 'text',
      value: '2027',
    }),
    201,
  );
  await planOn(b, 'theirs', 4, 11);
});
afterAll(async () => {
  await srv?.close();
});

const sum = (keys: string[], f: (s: { stats: Record<string, number>; area: number }) => number) =>
  keys.reduce((t, k) => t + f(stats[k]), 0);

describe('plan summaries', () => {
  it('sums figures per crop season, grower and farm', async () => {
    const r = await a.post('/api/path-plans/seasonal-summary-result', {});
    expectOk(r);
    expect(r.json.companyId).toBe(ka.companyId);
    expect(r.json.seasons.map((s: { season: string }) => s.season)).toEqual(['2027', YEAR]);
    const [s2027, now] = r.json.seasons;
    expect(s2027.totals.planCount).toBe(1);
    expect(s2027.totals.area).toBeCloseTo(stats.p1.area, 3);
    expect(s2027.growers).toMatchObject([
      { growerId: A.g1, growerName: 'Able', farms: [{ farmId: A.f1, farmName: 'Hill' }] },
    ]);
    expect(now.totals.planCount).toBe(2);
    expect(now.totals.totalTime).toBeCloseTo(
      sum(['p2', 'p3'], (s) => s.stats.totalTime),
      3,
    );
    expect(now.totals.hours).toBeCloseTo(now.totals.totalTime / 3600, 6);
    expect(now.totals.totalDistance).toBeCloseTo(
      sum(['p2', 'p3'], (s) => s.stats.totalDistance),
      3,
    );
    expect(now.totals.fuelLitres).toBeCloseTo(
      sum(['p2', 'p3'], (s) => s.stats.fuelLitres ?? 0),
      3,
    );
    expect(now.totals.ghgKgCo2e).toBeGreaterThan(0);
    // The plan without a field comes last, without grower or farm.
    expect(now.growers.map((g: { growerId: string | null }) => g.growerId)).toEqual([A.g2, null]);
    const filtered = await a.post('/api/path-plans/seasonal-summary-result', {
      seasons: [YEAR],
      farmIds: [A.f2],
    });
    expect(filtered.json.seasons).toHaveLength(1);
    expect(filtered.json.seasons[0].totals.planCount).toBe(1);
  });

  it('answers the dashboard summary of a company', async () => {
    const r = await a.post(`/api/companies/${ka.companyId}/dashboard-path-plan-summary`, {});
    expectOk(r);
    expect(r.json.totals.planCount).toBe(3);
    expect(r.json.totals.area).toBeCloseTo(
      sum(['p1', 'p2', 'p3'], (s) => s.area),
      3,
    );
    expect(r.json.bySeason.map((s: { season: string }) => s.season)).toEqual(['2027', YEAR]);
    const byGrower = Object.fromEntries(
      r.json.byGrower.map((g: { growerId: string | null; totals: { planCount: number } }) => [
        g.growerId,
        g.totals.planCount,
      ]),
    );
    expect(byGrower).toEqual({ [A.g1]: 1, [A.g2]: 1, null: 1 });
    expect(r.json.byFarm.find((f: { farmId: string }) => f.farmId === A.f2)).toMatchObject({
      farmName: 'Vale',
      growerId: A.g2,
    });
    const one = await a.post(`/api/companies/${ka.companyId}/dashboard-path-plan-summary`, {
      growerIds: [A.g1],
    });
    expect(one.json.totals.planCount).toBe(1);
  });

  it("answers 404 to another company's company and ids", async () => {
    expectError(
      await b.post(`/api/companies/${ka.companyId}/dashboard-path-plan-summary`, {}),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.post('/api/path-plans/seasonal-summary-result', { companyId: ka.companyId }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.post('/api/path-plans/seasonal-summary-result', { growerIds: [A.g1] }),
      404,
      'NOT_FOUND',
    );
    const theirs = (await b.post('/api/path-plans/seasonal-summary-result', {})).json;
    expect(theirs.seasons[0].totals.planCount).toBe(1);
    expectError(
      await a.post('/api/path-plans/seasonal-summary-result', { seasons: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('is in the OpenAPI document with named schemas', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of [
      'SeasonalSummaryRequest',
      'SeasonalSummaryResult',
      'DashboardPlanSummary',
      'PlanSummaryFigures',
    ])
      expect(doc.components.schemas[name], name).toBeDefined();
  });
});
