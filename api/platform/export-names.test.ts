/**
 * Exports name the stored hierarchy: a plan of field "Big field" on farm
 * "North" of grower "Hansen" is exported under those names in every
 * format (ISOXML CTR/FRM/PFD, shapefile paths and attributes, KML folders,
 * GPX metadata, GeoJSON properties, the vendor layouts), never the
 * "Tramline" default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzip } from '../../formats/export/testing.ts';
import { EXPORT_FORMATS } from '../../formats/export/types.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Client, client, expectOk, waitForJob } from './client.ts';

let srv: TestServer;
let c: Client;
let key: string;
let planId: string;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  const k = await testKey({ credits: 100 });
  key = k.key;
  c = client(srv.url, { key });
  const g = await c.post(`/api/companies/${k.companyId}/growers`, { name: 'Hansen' });
  const f = await c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'North' });
  const rings = rectangleField(6, 10.2, 56.1).coordinates;
  const saved = await c.post('/api/fields/save', {
    farmId: f.json.farmId,
    name: 'Big field',
    boundary: rings,
  });
  expectOk(saved, 201);
  const post = await c.post('/api/bulk-guidance/normalized', {
    boundaryIds: [saved.json.vBoundary.boundaryId],
    request: { equipment: { swathWidth: 6, minTurningRadius: 6 }, exteriorHeadlandPasses: 1 },
  });
  expectOk(post, 202);
  const done = await waitForJob(c, `/api/bulk-guidance/normalized/jobs/${post.json.jobId}`);
  planId = done.pathPlanIds[0];
});
afterAll(async () => {
  await srv?.close();
});

async function exported(format: string): Promise<Record<string, string>> {
  const post = await c.post('/api/path-plans-export', { pathPlanIds: [planId], format });
  expectOk(post, 202);
  const done = await waitForJob(c, `/api/path-plans-export/jobs/${post.json.jobId}`);
  expect(done.status).toBe('completed');
  const res = await fetch(`${srv.url}/api/path-plans-export/${done.batchId}/file`, {
    headers: { 'x-api-key': key },
  });
  const files = unzip(new Uint8Array(await res.arrayBuffer()));
  const dec = new TextDecoder('latin1');
  return Object.fromEntries(Object.entries(files).map(([p, b]) => [p, dec.decode(b)]));
}

describe('exports name the stored grower, farm and field', () => {
  it.each(EXPORT_FORMATS)('%s', async (format) => {
    const files = await exported(format);
    const all = Object.entries(files)
      .map(([p, text]) => `${p}\n${text}`)
      .join('\n');
    expect(all).toContain('Hansen');
    expect(all).toContain('North');
    expect(all).toContain('Big');
    expect(all).not.toContain('Tramline / Tramline');
    const paths = Object.keys(files);
    if (format === 'isoxml' || format === 'isoxml-v3') {
      const xml = files['TASKDATA/TASKDATA.XML'] ?? '';
      expect(xml).toMatch(/<CTR [^>]*B="Hansen"/);
      expect(xml).toMatch(/<FRM [^>]*B="North"/);
      expect(xml).toMatch(/<PFD [^>]*C="Big field"/);
    }
    if (format === 'vendor-a') expect(paths).toContain('Boundaries/Hansen_North_Big_field.shp');
    if (format === 'kml') expect(all).toContain('Hansen / North / Big field');
    if (format === 'gpx') expect(all).toContain('Hansen / North / Big field');
    if (format === 'shapefile') {
      const dbf = paths.filter((p) => p.endsWith('.dbf')).map((p) => files[p]);
      expect(dbf.some((d) => d?.includes('Hansen') && d.includes('North'))).toBe(true);
    }
  });
});
