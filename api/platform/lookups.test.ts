/**
 * Lookups over HTTP (PGlite and PostgreSQL): countries (ISO 3166-1) and
 * currencies (ISO 4217) from their packages, sorted, unpaged, cacheable
 * (ETag, Cache-Control, 304), and in the OpenAPI document as named schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  a = client(srv.url, { key: (await testKey()).key });
});
afterAll(async () => {
  await srv?.close();
});

describe('countries', () => {
  it('lists every ISO 3166-1 country as { code, name }, sorted by name, unpaged', async () => {
    const ans = await a.get('/api/countries');
    expectOk(ans);
    const list = ans.json as { code: string; name: string }[];
    expect(list.length).toBeGreaterThanOrEqual(245);
    expect(list.length).toBeLessThanOrEqual(260);
    for (const c of list) {
      expect(Object.keys(c).sort()).toEqual(['code', 'name']);
      expect(c.code).toMatch(/^[A-Z]{2}$/);
    }
    expect(new Set(list.map((c) => c.code)).size).toBe(list.length);
    const names = list.map((c) => c.name);
    expect(names).toEqual([...names].sort((x, y) => x.localeCompare(y, 'en')));
    expect(list).toContainEqual({ code: 'DK', name: 'Denmark' });
    expect(list).toContainEqual({ code: 'DE', name: 'Germany' });
    // User-assigned codes are not ISO 3166-1.
    expect(list.some((c) => c.code === 'XK')).toBe(false);
  });

  it('details currencies, calling codes, continent and native name', async () => {
    const ans = await a.get('/api/countries/detailed');
    expectOk(ans);
    const list = ans.json as Array<{ code: string; currencies: string[]; callingCodes: string[] }>;
    expect(list.map((c) => c.code)).toEqual(
      ((await a.get('/api/countries')).json as { code: string }[]).map((c) => c.code),
    );
    const dk = list.find((c) => c.code === 'DK');
    expect(dk).toMatchObject({
      name: 'Denmark',
      nativeName: 'Danmark',
      continent: { code: 'EU', name: 'Europe' },
      currencies: ['DKK'],
      callingCodes: ['+45'],
    });
    const us = list.find((c) => c.code === 'US')!;
    expect(us.currencies[0]).toBe('USD');
    expect(us.callingCodes).toEqual(['+1']);
    expect(list.find((c) => c.code === 'FR')).toMatchObject({ currencies: ['EUR'] });
  });
});

describe('currencies', () => {
  it('answers the featured currencies with ISO 4217 name, numeric code and minor units', async () => {
    const ans = await a.get('/api/currencies/featured');
    expectOk(ans);
    const list = ans.json as { code: string }[];
    expect(list.slice(0, 2)).toEqual([
      { code: 'EUR', name: 'Euro', numericCode: '978', minorUnits: 2 },
      { code: 'USD', name: 'US Dollar', numericCode: '840', minorUnits: 2 },
    ]);
    expect(list.length).toBeGreaterThan(5);
  });

  it('lists all ISO 4217 currencies sorted by code', async () => {
    const ans = await a.get('/api/currencies');
    expectOk(ans);
    const list = ans.json as { code: string; minorUnits: number }[];
    expect(list.length).toBeGreaterThan(150);
    const codes = list.map((c) => c.code);
    expect(codes).toEqual([...codes].sort());
    expect(list.find((c) => c.code === 'JPY')?.minorUnits).toBe(0);
    expect(list.find((c) => c.code === 'KWD')?.minorUnits).toBe(3);
  });
});

describe('caching', () => {
  it('answers a strong ETag and Cache-Control, and 304 to If-None-Match with it', async () => {
    for (const path of [
      '/api/countries',
      '/api/countries/detailed',
      '/api/currencies',
      '/api/currencies/featured',
    ]) {
      const first = await a.get(path);
      expectOk(first);
      const etag = first.headers.get('etag');
      expect(etag, path).toMatch(/^"[^"]+"$/);
      expect(first.headers.get('cache-control')).toMatch(/max-age=\d+/);
      const again = await a.get(path, { headers: { 'if-none-match': etag! } });
      expect(again.status, path).toBe(304);
      expect(again.text).toBe('');
      const other = await a.get(path, { headers: { 'if-none-match': '"something-else"' } });
      expect(other.status).toBe(200);
      expect(other.headers.get('etag')).toBe(etag);
    }
    expect((await a.get('/api/countries')).headers.get('etag')).not.toBe(
      (await a.get('/api/countries/detailed')).headers.get('etag'),
    );
  });

  it('needs an API key like every other endpoint', async () => {
    const anon = client(srv.url, {});
    expect((await anon.get('/api/countries')).status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('publishes the lookups with named schemas', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of ['Country', 'CountryDetailed', 'Currency', 'CountryList', 'CurrencyList']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    const op = doc.paths['/api/currencies/featured'].get;
    expect(op.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/CurrencyList',
    );
    expect(doc.paths['/api/countries/detailed'].get).toBeDefined();
  });
});
