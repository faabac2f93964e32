/**
 * Edges of the HTTP interface (PGlite and PostgreSQL): If-Match with a list
 * of ETags, CSV export cells that a spreadsheet would run as formulas, WKT
 * numbers that are not finite, URLs that do not decode, and error bodies
 * that tell nothing of the server's internals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../store/uuidv7.ts';
import { toApiError } from '../app.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let ka: Awaited<ReturnType<typeof testKey>>;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 }, (app) => {
    app.get('/api/test/null', async () => {
      const none = null as unknown as { id: string };
      return { id: none.id };
    });
  });
  ka = await testKey({ credits: 100 });
  a = client(srv.url, { key: ka.key });
});
afterAll(async () => {
  await srv?.close();
});

describe('If-Match with several ETags', () => {
  it('goes ahead when any listed ETag is the current one; * matches any; none matching is 412', async () => {
    const made = await a.post(`/api/companies/${ka.companyId}/growers`, { name: `G ${uuidv7()}` });
    expectOk(made, 201);
    const id = made.json.growerId;
    const put = (ifMatch: string, name: string) =>
      a.put(`/api/growers/${id}`, { name }, { headers: { 'if-match': ifMatch } });
    // At "1": the second tag of the list matches.
    const second = await put('"7", "1"', 'second');
    expectOk(second);
    expect(second.headers.get('etag')).toBe('"2"');
    // At "2": a list without "2" is stale.
    expectError(await put('"1", "3"', 'stale'), 412, 'PRECONDITION_FAILED');
    // A weak tag never matches If-Match.
    expectError(await put('W/"2"', 'weak'), 412, 'PRECONDITION_FAILED');
    const star = await put('*', 'any');
    expectOk(star);
    expect(star.json.name).toBe('any');
    // Deletes too.
    expectError(
      await a.del(`/api/growers/${id}`, { headers: { 'if-match': '"1", "2"' } }),
      412,
      'PRECONDITION_FAILED',
    );
    expectOk(await a.del(`/api/growers/${id}`, { headers: { 'if-match': '"1", "3"' } }), 204);
  });

  it('applies to settings and machines alike', async () => {
    const url = `/api/companies/${ka.companyId}/settings`;
    const made = await a.post(url, { name: 'defaultSwathWidth', value: 24 });
    expectOk(made, 201);
    const set = (ifMatch: string, value: number) =>
      a.post(url, { name: 'defaultSwathWidth', value }, { headers: { 'if-match': ifMatch } });
    expectOk(await set('"5", "1"', 27));
    expectError(await set('"1", "3"', 30), 412, 'PRECONDITION_FAILED');
    const m = await a.post('/api/equipment', {
      companyId: ka.companyId,
      name: `M ${uuidv7()}`,
      type: 'tractor',
      swathWidth: 6,
    });
    expectOk(m, 201);
    const del = (ifMatch: string) =>
      a.del(`/api/equipment/${m.json.equipmentId}`, { headers: { 'if-match': ifMatch } });
    expectError(await del('"2", "3"'), 412, 'PRECONDITION_FAILED');
    expect((await del('"2", "1"')).status).toBeLessThan(300);
    const c = await a.post('/api/companies', { name: `Empty ${uuidv7()}` });
    expectOk(c, 201);
    const delCompany = (ifMatch: string) =>
      a.del(`/api/companies/${c.json.companyId}`, { headers: { 'if-match': ifMatch } });
    expectError(await delCompany('"4", "5"'), 412, 'PRECONDITION_FAILED');
    expectOk(await delCompany('"4", "1"'), 204);
  });
});

describe('CSV export', () => {
  it('prefixes cells that start like a formula with a single quote', async () => {
    const direct = await a.post('/api/path-plans/direct', {
      boundary: rectangleField(2),
      equipment: { swathWidth: 6, minTurningRadius: 6 },
      routeOptions: { algorithm: 'boustrophedon' },
    });
    expectOk(direct);
    const name = '=HYPERLINK("https://evil.example/x","open")';
    const stored = await a.post('/api/path-plans/upsert', {
      plan: { ...direct.json, pathPlanName: name, operationType: '@SUM(A1)' },
    });
    expectOk(stored, 201);
    const csv = await a.post('/api/path-plans/csv', { pathPlanIds: [stored.json.pathPlanId] });
    expectOk(csv);
    const row = csv.text.split('\r\n')[1];
    expect(row).toContain(`"'=HYPERLINK(""https://evil.example/x"",""open"")"`);
    expect(row).toContain(",'@SUM(A1),");
    expect(row).not.toMatch(/(^|,)[=+\-@]/);
  });
});

describe('WKT numbers', () => {
  it('refuses a coordinate that is not finite (1e999) with 400 naming where', async () => {
    for (const path of [
      '/api/geometry-operations/convert-wkt-to-geojson',
      '/api/geometry-operations/wkt-change-crs-to-utm',
    ]) {
      const ans = await a.post(path, { wkt: 'POLYGON ((10 55, 1e999 55, 10.01 55.01, 10 55))' });
      expect(ans.status, ans.text).toBe(400);
      expect(ans.json.message).toContain('finite number');
      expect(ans.json.errors[0].path.startsWith('/wkt')).toBe(true);
    }
  });
});

describe('error bodies', () => {
  it('answers a URL that does not decode as 400 BAD_REQUEST with a correlation id, not a framework code', async () => {
    const ans = await call(srv.url, '/web/%ff', {});
    expectError(ans, 400, 'BAD_REQUEST');
    expect(ans.text).not.toContain('FST_');
  });

  it('answers an unexpected failure with a generic 500 body', async () => {
    const ans = await a.get('/api/test/null');
    expectError(ans, 500, 'INTERNAL_ERROR');
    expect(Object.keys(ans.json).sort()).toEqual(['correlationId', 'errorCode', 'message']);
    expect(ans.text).not.toMatch(/Cannot read|properties|null/);
  });

  it('maps Fastify’s and its plugins’ own 4xx codes to ours with plain messages', () => {
    const forbidden = toApiError(
      Object.assign(new Error('Forbidden path: /web/../x'), {
        code: 'FST_STATIC_FORBIDDEN_PATH',
        statusCode: 403,
      }),
    );
    expect(forbidden).toMatchObject({ statusCode: 403, errorCode: 'FORBIDDEN' });
    expect(forbidden.message).not.toMatch(/FST_|\/web/);
    const method = toApiError(Object.assign(new Error('x'), { code: 'FST_ERR_SOMETHING', statusCode: 405 }));
    expect(method).toMatchObject({ statusCode: 405, errorCode: 'METHOD_NOT_ALLOWED' });
    // A failure that carries a 4xx status keeps its status, not its message.
    const leaky = toApiError(
      Object.assign(new TypeError("Cannot read properties of null (reading 'x')"), { statusCode: 400 }),
    );
    expect(leaky).toMatchObject({ statusCode: 400, errorCode: 'BAD_REQUEST' });
    expect(leaky.message).not.toContain('Cannot');
    const internal = toApiError(new TypeError("Cannot read properties of null (reading 'id')"));
    expect(internal).toMatchObject({ statusCode: 500, errorCode: 'INTERNAL_ERROR' });
    expect(internal.message).not.toContain('Cannot');
  });
});
