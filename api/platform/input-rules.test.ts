/**
 * The input rule over HTTP (PGlite and PostgreSQL): text the database cannot
 * hold (NUL, lone surrogates), control characters, over-long names, deep
 * nesting and out-of-range numbers answer 400 naming the member, on every
 * endpoint that stores text; ids in bodies are checked against the caller's
 * companies (404, the same for another company's and unknown ids); a user
 * without a company gets 403, never a database error; sums of stored
 * figures stay finite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBoundaries } from '../../bench/seed-boundaries.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { uuidv7 } from '../../store/uuidv7.ts';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Answer, type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
// biome-ignore lint/suspicious/noExplicitAny: a plan model as the server answers it
let model: any;

const REQUEST = {
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 1,
  routeOptions: { algorithm: 'boustrophedon' },
};

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  ka = await testKey({ credits: 100 });
  kb = await testKey({ credits: 100 });
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  const direct = await a.post('/api/path-plans/direct', { ...REQUEST, boundary: rectangleField(3) });
  expectOk(direct);
  model = direct.json;
});
afterAll(async () => {
  await srv?.close();
});

function expectInputError(ans: Answer, errorCode: string, path: string): void {
  expectError(ans, 400, errorCode);
  expect(
    ans.json.errors.map((e: { path: string }) => e.path),
    ans.text,
  ).toContain(path);
  expect(ans.json.message).toContain(path);
}

async function addBoundary(companyId: string, lon: number) {
  const [row] = await seedBoundaries(await testStore(), companyId, [
    { name: `Field ${lon}`, geometry: rectangleField(2, lon, 55) },
  ]);
  return row!;
}

describe('text the service stores', () => {
  const NUL = 'a\u0000b';

  it('refuses a NUL character in every stored text with 400 INVALID_TEXT naming the member', async () => {
    const grower = await a.post(`/api/companies/${ka.companyId}/growers`, { name: 'Grower' });
    expectOk(grower, 201);
    const farm = await a.post(`/api/growers/${grower.json.growerId}/farms`, { name: 'Farm' });
    expectOk(farm, 201);
    const plan = await a.post('/api/path-plans/upsert', { plan: model });
    expectOk(plan, 201);
    const planId = plan.json.pathPlanId;
    const cases: [string, string, unknown, string][] = [
      ['POST', `/api/companies/${ka.companyId}/growers`, { name: NUL }, '/name'],
      ['POST', `/api/growers/${grower.json.growerId}/farms`, { name: NUL }, '/name'],
      [
        'POST',
        '/api/fields/save',
        { farmId: farm.json.farmId, name: NUL, boundary: rectangleField(1).coordinates },
        '/name',
      ],
      ['POST', '/api/companies', { name: NUL }, '/name'],
      [
        'POST',
        '/api/equipment',
        { companyId: ka.companyId, name: NUL, type: 'tractor', swathWidth: 6 },
        '/name',
      ],
      ['POST', '/api/operators', { companyId: ka.companyId, name: NUL }, '/name'],
      ['POST', `/api/companies/${ka.companyId}/path-plan-groups`, { name: NUL }, '/name'],
      ['POST', '/api/create-api-key', { name: NUL }, '/name'],
      ['POST', `/api/companies/${ka.companyId}/settings`, { name: 'note', value: NUL }, '/value'],
      ['POST', `/api/path-plans/${planId}/rate`, { rating: 3, comment: NUL }, '/comment'],
      ['POST', '/api/settings/table', { companyId: ka.companyId, search: NUL }, '/search'],
      ['POST', '/api/user/current/company-list', { search: NUL }, '/search'],
      ['POST', '/api/path-plans/upsert', { plan: { ...model, pathPlanName: NUL } }, '/plan/pathPlanName'],
      ['POST', '/api/path-plans/upsert', { plan: { ...model, operationType: NUL } }, '/plan/operationType'],
    ];
    for (const [method, path, body, member] of cases) {
      expectInputError(await a.call(path, { method, body }), 'INVALID_TEXT', member);
    }
    expectInputError(
      await a.get(`/api/user/current/company-list?search=${encodeURIComponent(NUL)}`),
      'INVALID_TEXT',
      '/querystring/search',
    );
    // Without a key too.
    expectInputError(
      await call(srv.url, '/api/account/register', {
        body: { email: `nul-${uuidv7()}@example.org`, password: 'a long enough password', firstName: NUL },
      }),
      'INVALID_TEXT',
      '/firstName',
    );
  });

  it('refuses control characters in single-line texts, accepts line breaks in notes', async () => {
    expectInputError(
      await a.post(`/api/companies/${ka.companyId}/growers`, { name: 'two\nlines' }),
      'INVALID_TEXT',
      '/name',
    );
    expectInputError(
      await a.post(`/api/companies/${ka.companyId}/growers`, { name: 'bell\u0007' }),
      'INVALID_TEXT',
      '/name',
    );
    const op = await a.post('/api/operators', {
      companyId: ka.companyId,
      name: `Operator ${uuidv7()}`,
      notes: 'first line\r\n\tsecond line',
    });
    expectOk(op, 201);
    expect(op.json.notes).toBe('first line\r\n\tsecond line');
    expectInputError(
      await a.post('/api/operators', { companyId: ka.companyId, name: 'x', notes: 'a\u0000' }),
      'INVALID_TEXT',
      '/notes',
    );
  });

  it('refuses a lone surrogate in a setting value', async () => {
    expectInputError(
      await a.post(`/api/companies/${ka.companyId}/settings`, { name: 'odd', value: 'a\ud800b' }),
      'INVALID_TEXT',
      '/value',
    );
    expectInputError(
      await a.post(`/api/companies/${ka.companyId}/settings`, { name: 'odd', value: { list: ['\udc00'] } }),
      'INVALID_TEXT',
      '/value/list/0',
    );
  });

  it('refuses a setting value nested 5,000 deep with NESTING_TOO_DEEP; 20 deep is kept', async () => {
    const deep = `{"name":"deep","value":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const ans = await a.call(`/api/companies/${ka.companyId}/settings`, { method: 'POST', raw: deep });
    expectError(ans, 400, 'NESTING_TOO_DEEP');
    expect(ans.json.errors[0].path.startsWith('/value/0/0')).toBe(true);
    let v: unknown = 1;
    for (let i = 0; i < 20; i++) v = [v];
    expectOk(await a.post(`/api/companies/${ka.companyId}/settings`, { name: 'nested', value: v }), 201);
  });

  it('refuses names over 200 characters with TEXT_TOO_LONG (a 70,000-character grower name is not stored)', async () => {
    expectInputError(
      await a.post(`/api/companies/${ka.companyId}/growers`, { name: 'g'.repeat(70_000) }),
      'TEXT_TOO_LONG',
      '/name',
    );
    const g = await a.post(`/api/companies/${ka.companyId}/growers`, { name: `Short ${uuidv7()}` });
    expectOk(g, 201);
    expectInputError(
      await a.put(`/api/growers/${g.json.growerId}`, { name: 'g'.repeat(70_000) }),
      'TEXT_TOO_LONG',
      '/name',
    );
    expect((await a.get(`/api/growers/${g.json.growerId}`)).json.name.length).toBeLessThan(200);
    expectInputError(
      await a.post('/api/path-plans/upsert', { plan: { ...model, pathPlanName: 'p'.repeat(201) } }),
      'TEXT_TOO_LONG',
      '/plan/pathPlanName',
    );
    // 200 characters (astral ones count once) are a name.
    expectOk(await a.post(`/api/companies/${ka.companyId}/growers`, { name: '🌾'.repeat(200) }), 201);
  });
});

describe('numbers the service stores', () => {
  it('refuses numberOfTracks 3e9 and an area of 1e308 with NUMBER_OUT_OF_RANGE', async () => {
    expectInputError(
      await a.post('/api/path-plans/upsert', { plan: { ...model, numberOfTracks: 3e9 } }),
      'NUMBER_OUT_OF_RANGE',
      '/plan/numberOfTracks',
    );
    expectInputError(
      await a.post('/api/path-plans/upsert', { plan: { ...model, area: 1e308 } }),
      'NUMBER_OUT_OF_RANGE',
      '/plan/area',
    );
    expectInputError(
      await a.post('/api/path-plans/upsert', {
        plan: { ...model, stats: { ...model.stats, totalDistance: 2e8 } },
      }),
      'NUMBER_OUT_OF_RANGE',
      '/plan/stats/totalDistance',
    );
    // Non-finite: JSON's 1e999 parses as Infinity.
    const raw = JSON.stringify({ name: 'huge', value: 0 }).replace('0}', '1e999}');
    expectInputError(
      await a.call(`/api/companies/${ka.companyId}/settings`, { method: 'POST', raw }),
      'NUMBER_OUT_OF_RANGE',
      '/value',
    );
  });

  it('sums stored figures of a group without overflow (plans of 1e308 m² stored before the rule)', async () => {
    const store = await testStore();
    const plans = createPathPlansRepository(store.db);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await plans.insert({
          companyId: ka.companyId,
          model: { ...model, pathPlanId: uuidv7(), area: 1e308 },
        }))!,
      );
    }
    const group = await a.post('/api/path-plan-groups/group-plans', {
      name: `Huge ${uuidv7()}`,
      pathPlanIds: ids,
    });
    expectOk(group, 201);
    const summary = await a.post(`/api/companies/${ka.companyId}/path-plan-groups/summary`, {
      pathPlanGroupIds: [group.json.pathPlanGroupId],
    });
    expectOk(summary);
    const row = summary.json.groups[0];
    expect(row.planCount).toBe(3);
    expect(Number.isFinite(row.totalArea)).toBe(true);
    expect(row.totalArea).toBeGreaterThan(1e299);
  });
});

describe('ids in bodies', () => {
  it('stores a plan only on a field and boundary of its company: another company’s or unknown ids are 404', async () => {
    const mine = await addBoundary(ka.companyId, 10.3);
    const theirs = await addBoundary(kb.companyId, 10.4);
    for (const body of [
      { fieldId: theirs.fieldId },
      { boundaryId: theirs.boundaryId },
      { fieldId: uuidv7() },
      { boundaryId: uuidv7() },
    ]) {
      const ans = await a.post('/api/path-plans/upsert', {
        plan: { ...model, pathPlanId: uuidv7() },
        ...body,
      });
      expectError(ans, 404, 'NOT_FOUND');
    }
    // The stranger's lists of that field and boundary stay 404.
    for (const path of [
      `/api/fields/${theirs.fieldId}/path-plans`,
      `/api/fields/${theirs.fieldId}/path-plans/list`,
      `/api/fields/${theirs.fieldId}/path-plan-ids`,
      `/api/fields/${theirs.fieldId}/path-plan-names`,
      `/api/boundaries/${theirs.boundaryId}/path-plan-ids`,
    ]) {
      expectError(await a.get(path), 404, 'NOT_FOUND');
    }
    // Its own field and boundary: stored; a boundary alone names its field.
    const ok = await a.post('/api/path-plans/upsert', {
      plan: { ...model, pathPlanId: uuidv7() },
      boundaryId: mine.boundaryId,
    });
    expectOk(ok, 201);
    expect(ok.json).toMatchObject({ fieldId: mine.fieldId, boundaryId: mine.boundaryId });
    const ids = await a.get(`/api/fields/${mine.fieldId}/path-plan-ids`);
    expect(ids.json).toContain(ok.json.pathPlanId);
    // A boundary of another field of the company is a 400 naming it.
    const other = await addBoundary(ka.companyId, 10.5);
    expectError(
      await a.post('/api/path-plans/upsert', {
        plan: { ...model, pathPlanId: uuidv7() },
        fieldId: mine.fieldId,
        boundaryId: other.boundaryId,
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('stores a plan in the company of the boundary it names, when the caller can access that company', async () => {
    const second = await a.post('/api/companies', { name: `Second ${uuidv7()}` });
    expectOk(second, 201);
    const there = await addBoundary(second.json.companyId, 10.7);
    const ok = await a.post('/api/path-plans/upsert', {
      plan: { ...model, pathPlanId: uuidv7() },
      boundaryId: there.boundaryId,
    });
    expectOk(ok, 201);
    const row = await createPathPlansRepository((await testStore()).db).row(ka.userId, ok.json.pathPlanId);
    expect(row?.companyId).toBe(second.json.companyId);
  });

  it('answers another company’s plan id in an upsert as an unknown one (404, not 409)', async () => {
    const stored = await a.post('/api/path-plans/upsert', { plan: { ...model, pathPlanId: uuidv7() } });
    expectOk(stored, 201);
    const ans = await b.post('/api/path-plans/upsert', {
      plan: { ...model, pathPlanId: stored.json.pathPlanId, pathPlanName: 'taken' },
    });
    expectError(ans, 404, 'NOT_FOUND');
    expect(ans.text).not.toContain('taken');
  });

  it('replacing a stored plan, refuses another company’s field or boundary (404) and a move to another field (400)', async () => {
    const mine = await addBoundary(ka.companyId, 10.8);
    const theirs = await addBoundary(kb.companyId, 10.9);
    const stored = await a.post('/api/path-plans/upsert', {
      plan: { ...model, pathPlanId: uuidv7() },
      boundaryId: mine.boundaryId,
    });
    expectOk(stored, 201);
    const id = stored.json.pathPlanId;
    for (const body of [
      { fieldId: theirs.fieldId },
      { boundaryId: theirs.boundaryId },
      { fieldId: uuidv7() },
    ]) {
      expectError(
        await a.post('/api/path-plans/upsert', { plan: { ...model, pathPlanId: id }, ...body }),
        404,
        'NOT_FOUND',
      );
    }
    const other = await addBoundary(ka.companyId, 11.0);
    expectError(
      await a.post('/api/path-plans/upsert', { plan: { ...model, pathPlanId: id }, fieldId: other.fieldId }),
      400,
      'VALIDATION_ERROR',
    );
    // Its own ids, or none, replace the model in place.
    expectOk(
      await a.post('/api/path-plans/upsert', { plan: { ...model, pathPlanId: id }, fieldId: mine.fieldId }),
      200,
    );
    expectOk(await a.post('/api/path-plans/upsert', { plan: { ...model, pathPlanId: id } }), 200);
  });

  it('deletes plans of a group only when every id is a plan of that group: another company’s is 404, nothing deleted', async () => {
    const group = await a.post(`/api/companies/${ka.companyId}/path-plan-groups`, { name: `G ${uuidv7()}` });
    expectOk(group, 201);
    const gid = group.json.pathPlanGroupId;
    const mine = await a.post('/api/path-plans/upsert', { plan: { ...model, pathPlanId: uuidv7() } });
    expectOk(mine, 201);
    expectOk(await a.post(`/api/path-plan-groups/${gid}/add-plans`, { pathPlanIds: [mine.json.pathPlanId] }));
    const theirs = await b.post('/api/path-plans/upsert', { plan: { ...model, pathPlanId: uuidv7() } });
    expectOk(theirs, 201);
    for (const other of [theirs.json.pathPlanId, uuidv7()]) {
      expectError(
        await a.del(`/api/path-plan-groups/${gid}/delete-plans`, {
          body: { pathPlanIds: [mine.json.pathPlanId, other] },
        }),
        404,
        'NOT_FOUND',
      );
    }
    expectOk(await a.get(`/api/path-plans-normalized/${mine.json.pathPlanId}`));
    expectOk(await b.get(`/api/path-plans-normalized/${theirs.json.pathPlanId}`));
    const done = await a.del(`/api/path-plan-groups/${gid}/delete-plans`, {
      body: { pathPlanIds: [mine.json.pathPlanId] },
    });
    expectOk(done);
    expect(done.json.pathPlanIds).toEqual([mine.json.pathPlanId]);
  });

  it('answers another company’s or unknown ids of groups and machines in bodies with 404', async () => {
    const theirs = await b.post(`/api/companies/${kb.companyId}/path-plan-groups`, { name: `B ${uuidv7()}` });
    expectOk(theirs, 201);
    for (const id of [theirs.json.pathPlanGroupId, uuidv7()]) {
      expectError(
        await a.post(`/api/companies/${ka.companyId}/path-plan-groups/summary`, { pathPlanGroupIds: [id] }),
        404,
        'NOT_FOUND',
      );
    }
    const machine = await b.post('/api/equipment', {
      companyId: kb.companyId,
      name: `M ${uuidv7()}`,
      type: 'tractor',
      swathWidth: 6,
    });
    expectOk(machine, 201);
    for (const id of [machine.json.equipmentId, uuidv7()]) {
      expectError(
        await a.post('/api/operators', { companyId: ka.companyId, name: `O ${uuidv7()}`, equipmentId: id }),
        404,
        'NOT_FOUND',
      );
    }
  });

  it('refuses a bulk job over another company’s or unknown boundaries with 404 before queueing', async () => {
    const theirs = await addBoundary(kb.companyId, 10.6);
    for (const id of [theirs.boundaryId, uuidv7()]) {
      expectError(
        await a.post('/api/bulk-guidance/normalized', { boundaryIds: [id], request: REQUEST }),
        404,
        'NOT_FOUND',
      );
    }
  });
});

describe('a partner user without company access', () => {
  it('gets 403 from plan upsert and bulk guidance, never a database error', async () => {
    const partnerKey = await testKey({ partnerAdmin: true });
    const partner = client(srv.url, { key: partnerKey.key });
    const made = await partner.post('/api/partner/users', {
      partnerUserId: `p-${uuidv7()}`,
      email: `partner-${uuidv7()}@example.org`,
      firstName: 'Pat',
      lastName: 'Partner',
    });
    expectOk(made, 201);
    const launch = await partner.post('/api/partner/launch', { userId: made.json.partnerUserId });
    expectOk(launch);
    const ex = await call(srv.url, '/api/partner/launch/exchange', {
      body: { code: launch.json.code, userId: made.json.userId },
    });
    expectOk(ex);
    const u = client(srv.url, { bearer: ex.json.accessToken });
    expectError(
      await u.post('/api/path-plans/upsert', { plan: { ...model, pathPlanId: uuidv7() } }),
      403,
      'NotAuthorized',
    );
    expectError(
      await u.post('/api/bulk-guidance/normalized', { boundaryIds: [uuidv7()], request: REQUEST }),
      403,
      'NotAuthorized',
    );
    // No endpoint answers such a user with a 5xx.
    const doc = (await a.get('/api/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    const failures: string[] = [];
    let calls = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const method of Object.keys(ops)) {
        if (!['post', 'put', 'delete'].includes(method)) continue;
        const url = path.replace(/\{[^}]+\}/g, () => uuidv7());
        for (const body of [{}, { plan: model, boundaryIds: [uuidv7()], request: REQUEST, name: 'x' }]) {
          const ans = await u.call(url, { method: method.toUpperCase(), body });
          calls++;
          if (ans.status >= 500) failures.push(`${method.toUpperCase()} ${path}: ${ans.status} ${ans.text}`);
        }
      }
    }
    expect(calls).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  });
});
