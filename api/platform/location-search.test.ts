/**
 * Map location search against a really listening server: places of the
 * bundled gazetteer ranked by match and population ("Aarhus" finds Århus,
 * Denmark first), the company's own growers, farms and fields (and not
 * another company's), an external geocoder over real HTTP, bad input, and
 * the time a search takes once the gazetteer is built.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGazetteer, searchPlaces } from '../../integrations/gazetteer.ts';
import { createLocationSearch, type LocationSearch } from '../../integrations/location-search.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let search: LocationSearch;
let geocoder: Server;
let geocoderQueries: string[] = [];
let a: { c: Client; companyId: string };
let b: { c: Client; companyId: string };

beforeAll(async () => {
  geocoder = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
    geocoderQueries.push(q);
    res.setHeader('content-type', 'application/geo+json');
    res.end(
      JSON.stringify({
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [10.2039, 56.1567] },
            properties: { name: `${q} Street 1`, city: 'Aarhus', country: 'Denmark' },
          },
          {
            type: 'Feature',
            geometry: { type: 'LineString', coordinates: [] },
            properties: { name: 'not a point' },
          },
        ],
      }),
    );
  });
  await new Promise<void>((r) => geocoder.listen(0, '127.0.0.1', r));
  const port = (geocoder.address() as AddressInfo).port;
  loadGazetteer();
  search = createLocationSearch({ geocoderUrl: `http://127.0.0.1:${port}/api?limit={limit}` });
  // The gazetteer is built in its own thread.
  expect(await search.warm()).toBeGreaterThan(100_000);
  srv = await startTestServer({ rateLimitPerMin: 100_000, locationSearch: search });
  const ka = await testKey({ credits: 10 });
  const kb = await testKey({ credits: 10 });
  a = { c: client(srv.url, { key: ka.key }), companyId: ka.companyId };
  b = { c: client(srv.url, { key: kb.key }), companyId: kb.companyId };
  const g = await a.c.post(`/api/companies/${a.companyId}/growers`, { name: 'Hansen Agro' });
  const f = await a.c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'North' });
  const saved = await a.c.post('/api/fields/save', {
    farmId: f.json.farmId,
    name: 'Hansen meadow',
    boundary: rectangleField(4, 10.1, 56.1).coordinates,
  });
  expectOk(saved, 201);
});
afterAll(async () => {
  await search?.close();
  await srv?.close();
  await new Promise((r) => geocoder?.close(r));
});

describe('location search', () => {
  it('lists the embedded provider and the configured geocoder', async () => {
    const res = await a.c.get('/api/map-location-search/providers');
    expectOk(res);
    expect(res.json.providers.map((p: { providerId: string }) => p.providerId)).toEqual([
      'embedded',
      'external',
    ]);
    expect(res.json.providers[0].kinds).toEqual(['grower', 'farm', 'field', 'place']);
  });

  it('"Aarhus" finds Aarhus, Denmark first', async () => {
    const res = await a.c.get('/api/map-location-search/search?q=Aarhus&providers=embedded');
    expectOk(res);
    expect(res.json.type).toBe('FeatureCollection');
    const first = res.json.features[0];
    expect(first.geometry.type).toBe('Point');
    expect(first.properties).toMatchObject({
      name: 'Århus',
      kind: 'place',
      provider: 'embedded',
      country: 'DK',
    });
    expect(first.properties.label).toBe('Århus, Denmark');
    const [lon, lat] = first.geometry.coordinates;
    expect(Math.abs(lon - 10.21)).toBeLessThan(0.1);
    expect(Math.abs(lat - 56.16)).toBeLessThan(0.1);
    // Larger places first among equal matches.
    const paris = await a.c.get('/api/map-location-search/search?q=paris&providers=embedded&limit=3');
    expect(paris.json.features[0].properties).toMatchObject({ name: 'Paris', country: 'FR' });
    const pops = paris.json.features.map(
      (x: { properties: { population: number } }) => x.properties.population,
    );
    expect(pops).toEqual([...pops].sort((x: number, y: number) => y - x));
  });

  it('autocompletes the start of a name', async () => {
    const res = await a.c.get('/api/map-location-search/autocomplete?q=Aarh');
    expectOk(res);
    expect(res.json.features.length).toBeLessThanOrEqual(5);
    expect(res.json.features[0].properties.name).toBe('Århus');
    expect(
      res.json.features.every(
        (f: { properties: { provider: string } }) => f.properties.provider === 'embedded',
      ),
    ).toBe(true);
  });

  it("finds the company's own growers, farms and fields first; another company does not see them", async () => {
    const res = await a.c.get('/api/map-location-search/search?q=hansen&providers=embedded');
    expectOk(res);
    const own = res.json.features.filter(
      (f: { properties: { kind: string } }) => f.properties.kind !== 'place',
    );
    expect(
      own
        .map(
          (f: { properties: { kind: string; name: string } }) => `${f.properties.kind}:${f.properties.name}`,
        )
        .sort(),
    ).toEqual(['field:Hansen meadow', 'grower:Hansen Agro']);
    // A place named exactly "Hansen" comes first; own records come before places that match as well.
    const firstPrefixPlace = res.json.features.findIndex(
      (f: { properties: { kind: string; name: string } }) =>
        f.properties.kind === 'place' && f.properties.name.toLowerCase() !== 'hansen',
    );
    const lastOwn = res.json.features.findLastIndex(
      (f: { properties: { kind: string } }) => f.properties.kind !== 'place',
    );
    if (firstPrefixPlace >= 0) expect(lastOwn).toBeLessThan(firstPrefixPlace);
    const exact = await a.c.get('/api/map-location-search/autocomplete?q=Hansen%20mea');
    expect(exact.json.features[0].properties).toMatchObject({
      kind: 'field',
      name: 'Hansen meadow',
      provider: 'embedded',
    });
    expect(own[0].properties.companyId).toBe(a.companyId);
    const [lon, lat] = own[0].geometry.coordinates;
    expect(lon).toBeGreaterThan(10.1);
    expect(lat).toBeGreaterThan(56.1);

    const other = await b.c.get('/api/map-location-search/search?q=hansen&providers=embedded');
    expect(
      other.json.features.some((f: { properties: { kind: string } }) => f.properties.kind !== 'place'),
    ).toBe(false);
    const asked = await b.c.get(
      `/api/map-location-search/search?q=hansen&providers=embedded&companyId=${a.companyId}`,
    );
    expect(
      asked.json.features.some((f: { properties: { kind: string } }) => f.properties.kind !== 'place'),
    ).toBe(false);
  });

  it('adds the external geocoder’s points on search, not on autocomplete unless asked', async () => {
    geocoderQueries = [];
    const res = await a.c.get('/api/map-location-search/search?q=Aarhus&limit=4');
    expectOk(res);
    const ext = res.json.features.filter(
      (f: { properties: { provider: string } }) => f.properties.provider === 'external',
    );
    expect(ext).toHaveLength(1);
    expect(ext[0].properties).toMatchObject({ name: 'Aarhus Street 1', kind: 'address' });
    expect(res.json.features[0].properties.name).toBe('Århus');
    expect(geocoderQueries).toEqual(['Aarhus']);
    await a.c.get('/api/map-location-search/autocomplete?q=Aarhus');
    expect(geocoderQueries).toEqual(['Aarhus']);
  });

  it('refuses a missing text, unknown providers and a limit over 50 with 400', async () => {
    expectError(await a.c.get('/api/map-location-search/search'), 400, 'VALIDATION_ERROR');
    expectError(await a.c.get('/api/map-location-search/search?q=%20'), 400, 'VALIDATION_ERROR');
    expectError(await a.c.get('/api/map-location-search/search?q=x&limit=51'), 400, 'VALIDATION_ERROR');
    const u = await a.c.get('/api/map-location-search/autocomplete?q=x&providers=nowhere');
    expectError(u, 400, 'UNKNOWN_PROVIDER');
    expect(u.json.message).toContain('nowhere');
  });

  it('answers a search in under 50 ms', async () => {
    const QUERIES = [
      'Aarhus',
      'a',
      'san',
      'New',
      'Koeln',
      'hansen',
      'Paris',
      'st',
      'Lon',
      'Århus',
      'x',
      'Ber',
    ];
    const median = (t: number[]) => [...t].sort((x, y) => x - y)[Math.floor(t.length / 2)]!;
    // The search itself (gazetteer and ranking), in process, once warmed up.
    for (const q of QUERIES) searchPlaces(q, 10);
    const own = QUERIES.map((q) => {
      const s = performance.now();
      searchPlaces(q, 10);
      return performance.now() - s;
    });
    // Over HTTP, each search beside a request of about the least work an authenticated call does (the
    // caller's account), back to back: on a loaded machine both slow down alike.
    const search: number[] = [];
    const base: number[] = [];
    for (const q of QUERIES) {
      let s = performance.now();
      expectOk(
        await a.c.get(`/api/map-location-search/search?q=${encodeURIComponent(q)}&providers=embedded`),
      );
      search.push(performance.now() - s);
      s = performance.now();
      expectOk(await a.c.get('/api/user/current'));
      base.push(performance.now() - s);
    }
    console.log(
      `location search: in process median ${median(own).toFixed(2)} ms, worst ${Math.max(...own).toFixed(2)} ms; ` +
        `over HTTP median ${median(search).toFixed(1)} ms (worst ${Math.max(...search).toFixed(1)} ms) ` +
        `against ${median(base).toFixed(1)} ms for GET /api/user/current, ${QUERIES.length} searches`,
    );
    expect(median(own)).toBeLessThan(50);
    expect(median(search)).toBeLessThan(Math.max(50, 4 * median(base)));
  });
});
