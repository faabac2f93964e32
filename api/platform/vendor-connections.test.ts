/**
 * Vendor links and transmissions end to end, over real HTTP: a local
 * authorization server (authorization code with PKCE S256, refresh tokens)
 * and a local vendor-a portal (formats/export/fake-portal.ts: token check,
 * organizations, upload, status polls). A company links its account, reads
 * its organizations, plans a field, exports it in the vendor-a layout and
 * transmits it; what the portal received is the export byte for byte and
 * reads back with the isoxml parser. A 503 interrupting the upload ends in
 * one transfer; an expiring token is refreshed first; tokens appear in no
 * answer and are stored encrypted; another company reaches none of it.
 */
import { ISOXMLManager } from 'isoxml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePortal, startFakePortal } from '../../formats/export/fake-portal.ts';
import { vendorConnections } from '../../store/schema.ts';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import {
  authorizeAtVendor,
  type FakeAuthServer,
  startFakeAuthServer,
  vendorSettings,
} from '../vendor-testing.ts';
import { type Client, client, expectError, expectOk, waitForJob } from './client.ts';

const CLIENT_ID = 'tramline-test-client';
const CLIENT_SECRET = 'client-secret-not-for-answers';

let srv: TestServer;
let portal: FakePortal;
let auth: FakeAuthServer;
const portalTokens: string[] = [];
let a: { c: Client; key: string; companyId: string };
let b: { c: Client; key: string; companyId: string };

const link = (who: { c: Client; companyId: string }) => authorizeAtVendor(who.c, who.companyId);

async function exportBatch(
  who: { c: Client; key: string },
  planId: string,
): Promise<{ batchId: string; zip: Uint8Array }> {
  const post = await who.c.post('/api/path-plans-export', { pathPlanIds: [planId], format: 'vendor-a' });
  expectOk(post, 202);
  const done = await waitForJob(who.c, `/api/path-plans-export/jobs/${post.json.jobId}`);
  const file = await fetch(`${srv.url}/api/path-plans-export/${done.batchId}/file`, {
    headers: { 'x-api-key': who.key },
  });
  return { batchId: done.batchId, zip: new Uint8Array(await file.arrayBuffer()) };
}

let planId: string;

beforeAll(async () => {
  portal = await startFakePortal({
    tokens: portalTokens,
    retryAfter: 0,
    organizations: [{ id: 'org-7', name: 'Hansen Farms' }],
  });
  auth = await startFakeAuthServer({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    onAccessToken: (t) => portalTokens.push(t),
  });
  srv = await startTestServer({
    rateLimitPerMin: 100_000,
    vendors: {
      vendors: vendorSettings(auth, portal.url, { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }),
      portalPollMs: 20,
      portalBackoffMs: 20,
    },
  });
  const ka = await testKey({ credits: 100 });
  const kb = await testKey({ credits: 100 });
  a = { c: client(srv.url, { key: ka.key }), key: ka.key, companyId: ka.companyId };
  b = { c: client(srv.url, { key: kb.key }), key: kb.key, companyId: kb.companyId };
  const g = await a.c.post(`/api/companies/${a.companyId}/growers`, { name: 'Hansen' });
  const f = await a.c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'North' });
  const saved = await a.c.post('/api/fields/save', {
    farmId: f.json.farmId,
    name: 'Big field',
    boundary: rectangleField(6, 10.5, 56.2).coordinates,
  });
  const plan = await a.c.post('/api/bulk-guidance/normalized', {
    boundaryIds: [saved.json.vBoundary.boundaryId],
    request: { equipment: { swathWidth: 6 }, exteriorHeadlandPasses: 1 },
  });
  planId = (await waitForJob(a.c, `/api/bulk-guidance/normalized/jobs/${plan.json.jobId}`)).pathPlanIds[0];
});
afterAll(async () => {
  await srv?.close();
  await portal?.close();
  await auth?.close();
});

describe('vendor links', () => {
  it('links an account with OAuth 2.0 + PKCE; tokens are stored encrypted and answered nowhere', async () => {
    const { code, state } = await link(a);
    // Another company cannot finish A's authorization, nor use A's state for itself.
    expectError(
      await b.c.post(`/api/companies/${a.companyId}/vendor-connections/vendor-a/callback`, { code, state }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.c.post(`/api/companies/${b.companyId}/vendor-connections/vendor-a/callback`, { code, state }),
      400,
      'INVALID_STATE',
    );
    const done = await a.c.post(`/api/companies/${a.companyId}/vendor-connections/vendor-a/callback`, {
      code,
      state,
    });
    expectOk(done, 201);
    expect(done.json).toMatchObject({ companyId: a.companyId, vendor: 'vendor-a', scope: 'files org' });
    // The state is used once.
    expectError(
      await a.c.post(`/api/companies/${a.companyId}/vendor-connections/vendor-a/callback`, { code, state }),
      400,
      'INVALID_STATE',
    );
    const list = await a.c.get(`/api/companies/${a.companyId}/vendor-connections`);
    expectOk(list);
    expect(list.json.connections).toHaveLength(1);
    for (const text of [done.text, list.text]) {
      expect(text).not.toMatch(/access-\d+-secret|refresh-\d+-secret/);
      expect(text).not.toContain(CLIENT_SECRET);
    }
    const [row] = await (await testStore()).db.select().from(vendorConnections);
    const stored = JSON.stringify(
      (await (await testStore()).db.select().from(vendorConnections)).filter(
        (r) => r.companyId === a.companyId,
      ),
    );
    expect(row).toBeDefined();
    expect(stored).not.toMatch(/access-\d+-secret|refresh-\d+-secret/);
    expect(stored).toMatch(/v1\.[\w-]+\.[\w-]+\.[\w-]+/);
    expectError(await b.c.get(`/api/companies/${a.companyId}/vendor-connections`), 404, 'NOT_FOUND');
  });

  it('reads the organizations the account granted', async () => {
    const res = await a.c.post('/api/vendor-a/update-connected-orgs', { companyId: a.companyId });
    expectOk(res);
    expect(res.json.organizations).toEqual([{ id: 'org-7', name: 'Hansen Farms' }]);
    expectError(
      await b.c.post('/api/vendor-a/update-connected-orgs', { companyId: a.companyId }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.c.post('/api/vendor-a/update-connected-orgs', { companyId: b.companyId }),
      409,
      'VENDOR_NOT_CONNECTED',
    );
  });
});

describe('transmission to the vendor portal', () => {
  it('sends the export byte for byte; it reads back with the isoxml parser', async () => {
    const { batchId, zip } = await exportBatch(a, planId);
    const before = portal.uploads.length;
    const post = await a.c.post(`/api/path-plans-export/${batchId}/transmit`, { vendor: 'vendor-a' });
    expectOk(post, 202);
    const done = await waitForJob(a.c, `/api/path-plans-export/transmissions/${post.json.jobId}`);
    expect(done.status).toBe('completed');
    expect(done.files).toEqual([
      {
        fileName: expect.stringMatching(/\.zip$/),
        status: 'accepted',
        transferId: expect.any(String),
        message: null,
      },
    ]);
    expect(portal.uploads.length).toBe(before + 1);
    const up = portal.uploads.at(-1)!;
    expect(up.transferId).toBe(done.files[0].transferId);
    expect(Buffer.from(up.zip).equals(Buffer.from(zip))).toBe(true);
    expect(up.entries).toContain('Boundaries/Hansen_North_Big_field.shp');
    const m = new ISOXMLManager({ rootFolder: 'TASKDATA' });
    await m.parseISOXMLFile(up.zip, 'application/zip');
    const root = m.rootElement.attributes as { Customer?: { attributes: { CustomerLastName: string } }[] };
    expect(root.Customer?.[0]?.attributes.CustomerLastName).toBe('Hansen');

    // Another company reaches neither the batch nor the job.
    expectError(
      await b.c.post(`/api/path-plans-export/${batchId}/transmit`, { vendor: 'vendor-a' }),
      404,
      'NOT_FOUND',
    );
    expectError(await b.c.get(`/api/path-plans-export/transmissions/${post.json.jobId}`), 404, 'NOT_FOUND');
  });

  it('delivers an export job to the linked portal beside the zip download (transmitTo)', async () => {
    const before = portal.uploads.length;
    const post = await a.c.post('/api/path-plans-export', {
      pathPlanIds: [planId],
      format: 'vendor-a',
      transmitTo: 'vendor-a',
    });
    expectOk(post, 202);
    const done = await waitForJob(a.c, `/api/path-plans-export/jobs/${post.json.jobId}`);
    expect(done.status).toBe('completed');
    expect(done.transmissionJobId).toEqual(expect.any(String));
    const sent = await waitForJob(a.c, `/api/path-plans-export/transmissions/${done.transmissionJobId}`);
    expect(sent).toMatchObject({ status: 'completed', batchId: done.batchId, vendor: 'vendor-a' });
    expect(sent.files[0].status).toBe('accepted');
    expect(portal.uploads.length).toBe(before + 1);
    const file = await fetch(`${srv.url}/api/path-plans-export/${done.batchId}/file`, {
      headers: { 'x-api-key': a.key },
    });
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(portal.uploads.at(-1)!.zip))).toBe(true);
    const mismatch = await a.c.post('/api/path-plans-export', {
      pathPlanIds: [planId],
      format: 'isoxml',
      transmitTo: 'vendor-a',
    });
    expectError(mismatch, 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(mismatch.json.errors)).toContain('/transmitTo');
  });

  it('completes once when 503s interrupt the upload, within the connector and across a retried job', async () => {
    const { batchId } = await exportBatch(a, planId);
    for (const faults of [1, 6]) {
      const before = portal.uploads.length;
      for (let i = 0; i < faults; i++) portal.faults.push({ status: 503 });
      const post = await a.c.post(`/api/path-plans-export/${batchId}/transmit`, { vendor: 'vendor-a' });
      const done = await waitForJob(a.c, `/api/path-plans-export/transmissions/${post.json.jobId}`);
      expect(done.status, JSON.stringify(done)).toBe('completed');
      expect(done.files[0].status).toBe('accepted');
      expect(portal.uploads.length).toBe(before + 1);
      expect(portal.faults).toHaveLength(0);
    }
  });

  it('refreshes an access token about to expire before sending', async () => {
    auth.expiresIn = 30;
    const { code, state } = await link(a);
    expectOk(
      await a.c.post(`/api/companies/${a.companyId}/vendor-connections/vendor-a/callback`, { code, state }),
      201,
    );
    auth.expiresIn = 3600;
    const refreshes = auth.grants.filter((g) => g === 'refresh_token').length;
    const { batchId } = await exportBatch(a, planId);
    const post = await a.c.post(`/api/path-plans-export/${batchId}/transmit`, { vendor: 'vendor-a' });
    const done = await waitForJob(a.c, `/api/path-plans-export/transmissions/${post.json.jobId}`);
    expect(done.status).toBe('completed');
    expect(auth.grants.filter((g) => g === 'refresh_token').length).toBe(refreshes + 1);
  });

  it('refuses a company without a link (409) and vendors that are not configured (422)', async () => {
    const g = await b.c.post(`/api/companies/${b.companyId}/growers`, { name: 'B' });
    expectOk(g, 201);
    expectError(
      await b.c.post(`/api/companies/${b.companyId}/vendor-connections/vendor-b/authorize`, {
        redirectUri: 'https://app.example/cb',
      }),
      422,
      'VENDOR_NOT_CONFIGURED',
    );
    expectError(
      await b.c.post(`/api/companies/${b.companyId}/vendor-connections/vendor-x/authorize`, {
        redirectUri: 'https://app.example/cb',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectOk(await a.c.del(`/api/companies/${a.companyId}/vendor-connections/vendor-a`), 204);
    const { batchId } = await exportBatch(a, planId);
    expectError(
      await a.c.post(`/api/path-plans-export/${batchId}/transmit`, { vendor: 'vendor-a' }),
      409,
      'VENDOR_NOT_CONNECTED',
    );
    expectError(
      await a.c.post('/api/path-plans-export', {
        pathPlanIds: [planId],
        format: 'vendor-a',
        transmitTo: 'vendor-a',
      }),
      409,
      'VENDOR_NOT_CONNECTED',
    );
  });
});
