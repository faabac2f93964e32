/**
 * External boundaries against a really listening server: a directory with
 * a fiboa GeoParquet file (licence from its fiboa metadata), a GeoJSON file
 * with a sidecar licence, and files that are not boundary data; the real
 * corpus (../shared/fields) as a provider where present, with the time a
 * 10 km box takes; a field made from an external boundary keeps its source
 * and licence, and another company cannot use the farm.
 */

import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { geojsonToWkb, parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBoundaryCatalog } from '../../integrations/external-boundaries.ts';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectError, expectOk } from './client.ts';

const CORPUS = resolve(import.meta.dirname, '../../../shared/fields');
const hasCorpus = existsSync(join(CORPUS, 'README.md'));

let dir: string;
let srv: TestServer;
let a: { c: Client; companyId: string };
let b: { c: Client; companyId: string };

const square = (lon: number, lat: number, d = 0.002) => ({
  type: 'Polygon' as const,
  coordinates: [
    [
      [lon, lat],
      [lon + d, lat],
      [lon + d, lat + d],
      [lon, lat + d],
      [lon, lat],
    ],
  ],
});

async function writeFixture(to: string): Promise<void> {
  const geoms = [square(10.0, 55.0), square(10.01, 55.0), square(10.5, 55.5)];
  const geo = {
    version: '1.1.0',
    primary_column: 'geometry',
    columns: { geometry: { encoding: 'WKB', geometry_types: ['Polygon'] } },
  };
  const fiboa = {
    fiboa_version: '0.2.0',
    license: 'CC-BY-4.0',
    providers: [{ name: 'Agency of Fixtures', roles: ['producer'] }],
  };
  const parquet = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: ['p1', 'p2', 'p3'], type: 'STRING' },
      { name: 'area', data: [4.5, 4.5, 4.5], type: 'DOUBLE' },
      { name: 'geometry', data: geoms.map((g) => geojsonToWkb(g)), type: 'BYTE_ARRAY' },
    ],
    kvMetadata: [
      { key: 'geo', value: JSON.stringify(geo) },
      { key: 'fiboa', value: JSON.stringify(fiboa) },
    ],
  });
  await writeFile(join(to, 'parcels.parquet'), new Uint8Array(parquet));
  const fc = {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', id: 'g1', properties: { crop: 'wheat' }, geometry: square(10.005, 55.0005, 0.001) },
      {
        type: 'Feature',
        id: 'g2',
        properties: {},
        geometry: {
          type: 'MultiPolygon',
          coordinates: [square(11, 56).coordinates, square(11.01, 56).coordinates],
        },
      },
    ],
  };
  await writeFile(join(to, 'local-survey.geojson'), JSON.stringify(fc));
  await writeFile(
    join(to, 'local-survey.json'),
    JSON.stringify({ licence: 'CC0-1.0', attribution: 'Local survey office' }),
  );
  await writeFile(join(to, 'README.md'), '# not boundaries');
  await writeFile(join(to, 'index.json'), JSON.stringify({ sources: ['a', 'b'] }));
  await writeFile(join(to, 'points.geojson'), JSON.stringify({ type: 'FeatureCollection', features: [] }));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tramline-boundaries-'));
  await writeFixture(dir);
  srv = await startTestServer({ rateLimitPerMin: 100_000, boundarySources: dir });
  const ka = await testKey({ credits: 10 });
  const kb = await testKey({ credits: 10 });
  a = { c: client(srv.url, { key: ka.key }), companyId: ka.companyId };
  b = { c: client(srv.url, { key: kb.key }), companyId: kb.companyId };
});
afterAll(async () => {
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('external boundary providers', () => {
  it('lists one provider per boundary file, licence from fiboa metadata or the sidecar; other files skipped', async () => {
    const res = await a.c.get('/api/external-boundaries/providers');
    expectOk(res);
    expect(res.json.providers.map((p: { providerId: string }) => p.providerId)).toEqual([
      'local-survey',
      'parcels',
    ]);
    expect(res.json.providers[1]).toMatchObject({
      format: 'geoparquet',
      licence: 'CC-BY-4.0',
      attribution: 'Agency of Fixtures',
      boundaryCount: 3,
    });
    expect(res.json.providers[0]).toMatchObject({
      format: 'geojson',
      licence: 'CC0-1.0',
      attribution: 'Local survey office',
      boundaryCount: 2,
    });
  });

  it('answers the boundaries in a box as a paged FeatureCollection, optionally of some providers', async () => {
    const box = '9.99,54.99,10.02,55.01';
    const all = await a.c.get(`/api/external-boundaries/boundaries?bbox=${box}`);
    expectOk(all);
    expect(all.json.type).toBe('FeatureCollection');
    expect(all.json.total).toBe(3);
    expect(all.json.features.map((f: { id: string }) => f.id).sort()).toEqual([
      'local-survey/g1',
      'parcels/p1',
      'parcels/p2',
    ]);
    const p1 = all.json.features.find((f: { id: string }) => f.id === 'parcels/p1');
    expect(p1.geometry).toEqual(square(10.0, 55.0));
    expect(p1.properties).toMatchObject({ provider: 'parcels', boundaryId: 'p1', licence: 'CC-BY-4.0' });
    expect(p1.properties.attributes).toMatchObject({ id: 'p1', area: 4.5 });

    const page1 = await a.c.get(`/api/external-boundaries/boundaries?bbox=${box}&limit=2`);
    expect(page1.json.features).toHaveLength(2);
    expect(page1.json.nextOffset).toBe(2);
    const page2 = await a.c.get(`/api/external-boundaries/boundaries?bbox=${box}&limit=2&offset=2`);
    expect(page2.json.features).toHaveLength(1);
    expect(page2.json.nextOffset).toBeNull();
    const ids = [...page1.json.features, ...page2.json.features].map((f: { id: string }) => f.id).sort();
    expect(ids).toEqual(all.json.features.map((f: { id: string }) => f.id).sort());

    const one = await a.c.get(`/api/external-boundaries/boundaries?bbox=${box}&providers=local-survey`);
    expect(one.json.features.map((f: { id: string }) => f.id)).toEqual(['local-survey/g1']);
  });

  it('refuses bad boxes, unknown providers and page sizes over the cap with 400 naming the member', async () => {
    for (const q of ['bbox=1,2,3', 'bbox=a,b,c,d', 'bbox=10,55,9,56', 'bbox=0,0,190,10']) {
      const res = await a.c.get(`/api/external-boundaries/boundaries?${q}`);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json.message).toContain('bbox');
    }
    const unknown = await a.c.get('/api/external-boundaries/boundaries?bbox=0,0,1,1&providers=nowhere');
    expectError(unknown, 400, 'UNKNOWN_PROVIDER');
    expect(unknown.json.message).toContain('nowhere');
    expectError(
      await a.c.get('/api/external-boundaries/boundaries?bbox=0,0,1,1&limit=1001'),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await a.c.get('/api/external-boundaries/boundaries'), 400, 'VALIDATION_ERROR');
  });

  it('tells which providers cover a box', async () => {
    const res = await a.c.get('/api/external-boundaries/coverage?bbox=10.4,55.4,11.5,56.5');
    expectOk(res);
    expect(res.json.covered).toBe(true);
    expect(res.json.providers).toEqual([
      expect.objectContaining({ providerId: 'local-survey', boundaryCount: 1 }),
      expect.objectContaining({ providerId: 'parcels', boundaryCount: 1 }),
    ]);
    const none = await a.c.get('/api/external-boundaries/coverage?bbox=-60,-10,-59,-9');
    expect(none.json).toMatchObject({ covered: false, providers: [] });
  });
});

describe('fields from external boundaries', () => {
  it('creates a field in one call keeping provider, id and licence; another company cannot use the farm', async () => {
    const g = await a.c.post(`/api/companies/${a.companyId}/growers`, { name: 'Hansen' });
    const f = await a.c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'North' });
    const farmId = f.json.farmId;
    const made = await a.c.post('/api/external-boundaries/fields', {
      farmId,
      provider: 'parcels',
      boundaryId: 'p2',
    });
    expectOk(made, 201);
    expect(made.json.origin).toEqual({
      provider: 'parcels',
      externalId: 'p2',
      licence: 'CC-BY-4.0',
      attribution: 'Agency of Fixtures',
    });
    expect(made.json.field).toMatchObject({ farmId, name: 'p2' });
    expect(made.json.vBoundary.boundary).toEqual(square(10.01, 55.0).coordinates);
    const read = await a.c.get(`/api/vboundary/${made.json.vBoundary.boundaryId}`);
    expectOk(read);

    expectError(
      await b.c.post('/api/external-boundaries/fields', { farmId, provider: 'parcels', boundaryId: 'p2' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await a.c.post('/api/external-boundaries/fields', { farmId, provider: 'parcels', boundaryId: 'nope' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await a.c.post('/api/external-boundaries/fields', {
        farmId,
        provider: 'local-survey',
        boundaryId: 'g2',
      }),
      422,
      'EXTERNAL_BOUNDARY_MULTIPART',
    );
    expectError(
      await a.c.post('/api/external-boundaries/fields', { farmId, provider: 'parcels' }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe.runIf(hasCorpus)('the boundary corpus as a provider', () => {
  it('skips its README and index files, and answers a 10 km box in under 200 ms', async () => {
    const t0 = performance.now();
    const catalog = await loadBoundaryCatalog(CORPUS);
    const loadMs = performance.now() - t0;
    const files = readFileSync(join(CORPUS, 'README.md'), 'utf8');
    expect(files).toContain('GeoJSON');
    const providers = catalog.providers();
    expect(providers.map((p) => p.providerId)).not.toContain('index');
    expect(providers.map((p) => p.providerId)).not.toContain('benchmark_selection');
    const dk = catalog.provider('fiboa-dk')!;
    expect(dk.licence).toContain('CC0-1.0');
    expect(providers.reduce((n, p) => n + p.boundaryCount, 0)).toBeGreaterThan(3000);

    const corpus = await startTestServer({ rateLimitPerMin: 100_000, boundarySources: catalog });
    try {
      const k = await testKey({ credits: 1 });
      const c = client(corpus.url, { key: k.key });
      // The 10 km box (centred on a boundary) that holds the most boundaries of the corpus.
      const boxAround = (b: readonly number[]): [number, number, number, number] => {
        const lon = (b[0]! + b[2]!) / 2;
        const lat = (b[1]! + b[3]!) / 2;
        const dLat = 5_000 / 111_195;
        const dLon = 5_000 / (111_195 * Math.cos((lat * Math.PI) / 180));
        return [lon - dLon, lat - dLat, lon + dLon, lat + dLat];
      };
      const everything = catalog.search([-180, -90, 180, 90], { limit: 1e6 }).boundaries;
      let densest = boxAround(everything[0]!.bbox);
      for (const e of everything) {
        const candidate = boxAround(e.bbox);
        if (catalog.search(candidate).total > catalog.search(densest).total) densest = candidate;
      }
      const box = densest.map((v) => v.toFixed(5)).join(',');
      const times: number[] = [];
      let total = 0;
      for (let i = 0; i < 15; i++) {
        const s = performance.now();
        const res = await c.get(`/api/external-boundaries/boundaries?bbox=${box}&limit=1000`);
        times.push(performance.now() - s);
        expectOk(res);
        total = res.json.total;
      }
      times.sort((x, y) => x - y);
      const median = times[Math.floor(times.length / 2)]!;
      console.log(
        `external boundaries: corpus loaded in ${loadMs.toFixed(0)} ms; 10 km box, ${total} boundaries: median ${median.toFixed(1)} ms, worst ${times.at(-1)!.toFixed(1)} ms`,
      );
      expect(total).toBeGreaterThan(0);
      expect(median).toBeLessThan(200);
    } finally {
      await corpus.close();
    }
  });
});
