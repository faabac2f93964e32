/**
 * A TypeScript client made from the published document: the types of the
 * document a listening server serves are generated (openapi-typescript),
 * the client in api/client is type-checked against them (tsc) and then,
 * with openapi-fetch, plans a field directly, stores it under a grower,
 * farm and field, plans the stored boundary as a job and exports both
 * plans as a zip, against that server.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import { clientTypes } from './client-types.ts';

const run = promisify(execFile);

/** What this test reads of api/client/flow.ts (typed there against the generated schema). */
interface ClientFlow {
  tramlineClient(baseUrl: string, apiKey: string): unknown;
  planStoreExport(
    client: unknown,
    input: Record<string, unknown>,
  ): Promise<{
    plan: { pathPlanId: string; zones: unknown[]; stats: { trackCount: number; totalDistance: number } };
    stored: { pathPlanId: string; fieldId: string };
    storedModel: { stats: { totalDistance: number } };
    fieldId: string;
    guidanceJob: { status: string; pathPlanIds: string[] };
    exportJob: { status: string; pathPlanIds: string[] };
    zip: Uint8Array;
  }>;
}
const CLIENT_DIR = join(import.meta.dirname, '../client');

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});

afterAll(async () => {
  await srv?.close();
});

describe('a client generated from the OpenAPI document', () => {
  it('type-checks against the generated types', async () => {
    const doc = await (await fetch(`${srv.url}/api/openapi.json`)).json();
    const types = await clientTypes(doc);
    expect(types).toContain('PathPlanNormalizedModel: {');
    expect(types).toContain('"/api/path-plans/direct": {');
    writeFileSync(join(CLIENT_DIR, 'schema.ts'), types);
    const tsc = join(process.cwd(), 'node_modules/.bin/tsc');
    const out = await run(tsc, ['--noEmit', '-p', join(CLIENT_DIR, 'tsconfig.json')]).catch(
      (e: { stdout?: string; stderr?: string; code?: number }) => e,
    );
    expect(`${out.stdout ?? ''}${out.stderr ?? ''}`, 'tsc reports nothing').toBe('');
  });

  it('plans a field, stores it, plans the stored boundary as a job and exports both plans', async () => {
    const { key } = await testKey({ credits: 10 });
    // Types only come from schema.ts, so the client runs without it too. The
    // module is named through a variable: the project's own type check leaves
    // api/client out (its types are generated), the test above checks it.
    const flowModule = '../client/flow.ts';
    const { planStoreExport, tramlineClient } = (await import(flowModule)) as ClientFlow;
    const r = await planStoreExport(tramlineClient(srv.url, key), {
      rings: rectangleField(6).coordinates,
      equipment: { swathWidth: 12, minTurningRadius: 7 },
      exteriorHeadlandPasses: 1,
      format: 'geojson',
      pollMs: 100,
      timeoutMs: 60_000,
    });
    expect(r.plan.zones.length).toBe(1);
    expect(r.plan.stats.trackCount).toBeGreaterThan(0);
    expect(r.stored.pathPlanId).toBe(r.plan.pathPlanId);
    expect(r.stored.fieldId).toBe(r.fieldId);
    expect(r.storedModel.stats.totalDistance).toBe(r.plan.stats.totalDistance);
    expect(r.guidanceJob.status).toBe('completed');
    expect(r.guidanceJob.pathPlanIds).toHaveLength(1);
    expect(r.exportJob.status).toBe('completed');
    expect(r.exportJob.pathPlanIds.sort()).toEqual([r.plan.pathPlanId, ...r.guidanceJob.pathPlanIds].sort());
    // A zip with a GeoJSON FeatureCollection per plan.
    expect([...r.zip.subarray(0, 2)]).toEqual([0x50, 0x4b]);
    const files = unzipSync(r.zip);
    const geojson = Object.keys(files).filter((f) => f.endsWith('.geojson'));
    expect(geojson.length).toBe(2);
    for (const f of geojson) {
      expect(JSON.parse(new TextDecoder().decode(files[f])).type).toBe('FeatureCollection');
    }
  });
});
