/**
 * Company sync end to end, over real HTTP: a company links its vendor-a
 * account (local authorization server), syncs its organization's fields
 * from the local portal, plans them in bulk, exports ISOXML in the vendor-a
 * layout and transmits it; the transmitted file reads back with the isoxml
 * parser and names the synced grower, farm and fields. A second sync is
 * idempotent on the vendor's ids (unchanged, updated, conflicting), a bad
 * boundary is reported as failed, and another company reaches none of it.
 */
import { Writable } from 'node:stream';
import { ISOXMLManager } from 'isoxml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePortal, startFakePortal } from '../../formats/export/fake-portal.ts';
import { rectangleField, startTestServer, type TestServer, testKey } from '../testing.ts';
import {
  authorizeAtVendor,
  type FakeAuthServer,
  startFakeAuthServer,
  vendorSettings,
} from '../vendor-testing.ts';
import { type Client, client, expectError, expectOk, waitForJob } from './client.ts';

const CLIENT_ID = 'sync-client';
const CLIENT_SECRET = 'sync-client-secret';

let srv: TestServer;
let portal: FakePortal;
let auth: FakeAuthServer;
const tokens: string[] = [];
const logLines: string[] = [];
const orgFields: Record<string, unknown[]> = {};
let a: { c: Client; key: string; companyId: string; userId: string };
let b: { c: Client; key: string; companyId: string; userId: string };

const vendorField = (id: string, name: string, lon: number, ha = 5) => ({
  id,
  name,
  grower: { id: 'g-1', name: 'Hansen' },
  farm: { id: 'f-1', name: 'North' },
  boundary: rectangleField(ha, lon, 56.3),
});

async function sync(who: { c: Client; companyId: string }) {
  const post = await who.c.post('/api/external/companies/sync', {
    companyId: who.companyId,
    vendor: 'vendor-a',
    organizationId: 'org-7',
  });
  expectOk(post, 202);
  return {
    jobId: post.json.jobId as string,
    job: await waitForJob(who.c, `/api/companies-sync/jobs/${post.json.jobId}`),
  };
}

beforeAll(async () => {
  orgFields['org-7'] = [vendorField('vf-1', 'Big field', 10.6), vendorField('vf-2', 'Small field', 10.61, 3)];
  portal = await startFakePortal({
    tokens,
    organizations: [{ id: 'org-7', name: 'Hansen Farms' }],
    fields: orgFields,
  });
  auth = await startFakeAuthServer({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    onAccessToken: (t) => tokens.push(t),
  });
  srv = await startTestServer({
    rateLimitPerMin: 100_000,
    logger: {
      level: 'debug',
      stream: new Writable({
        write(chunk, _enc, done) {
          logLines.push(String(chunk));
          done();
        },
      }),
    },
    vendors: {
      vendors: vendorSettings(auth, portal.url, { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, [
        'vendor-a',
        'vendor-b',
        'vendor-c',
      ]),
      portalPollMs: 20,
      portalBackoffMs: 20,
    },
  });
  const ka = await testKey({ credits: 100 });
  const kb = await testKey({ credits: 100 });
  a = { c: client(srv.url, { key: ka.key }), key: ka.key, companyId: ka.companyId, userId: ka.userId };
  b = { c: client(srv.url, { key: kb.key }), key: kb.key, companyId: kb.companyId, userId: kb.userId };
  const { code, state } = await authorizeAtVendor(a.c, a.companyId);
  expectOk(
    await a.c.post(`/api/companies/${a.companyId}/vendor-connections/vendor-a/callback`, { code, state }),
    201,
  );
  expectOk(await a.c.post('/api/vendor-a/update-connected-orgs', { companyId: a.companyId }));
});
afterAll(async () => {
  await srv?.close();
  await portal?.close();
  await auth?.close();
});

describe('company sync', () => {
  it('connects, syncs, plans in bulk, exports ISOXML and transmits it; the portal reads it back', async () => {
    const { jobId, job } = await sync(a);
    expect(job.status).toBe('completed');
    expect(job).toMatchObject({
      created: 4,
      updated: 0,
      conflicting: 0,
      failed: 0,
      vendor: 'vendor-a',
      organizationId: 'org-7',
    });
    expect(job.items.map((i: { kind: string; name: string }) => `${i.kind}:${i.name}`)).toEqual([
      'grower:Hansen',
      'farm:North',
      'field:Big field',
      'field:Small field',
    ]);
    expectError(await b.c.get(`/api/companies-sync/jobs/${jobId}`), 404, 'NOT_FOUND');

    const fields = await a.c.get(`/api/companies/${a.companyId}/fields`);
    const list = (fields.json.items ?? fields.json) as { activeBoundaryId: string; name: string }[];
    expect(list.map((f) => f.name).sort()).toEqual(['Big field', 'Small field']);
    const bulk = await a.c.post('/api/bulk-guidance/normalized', {
      boundaryIds: list.map((f) => f.activeBoundaryId),
      request: { equipment: { swathWidth: 6 }, exteriorHeadlandPasses: 1 },
    });
    const planned = await waitForJob(a.c, `/api/bulk-guidance/normalized/jobs/${bulk.json.jobId}`);
    expect(planned.pathPlanIds).toHaveLength(2);

    const exp = await a.c.post('/api/path-plans-export', {
      pathPlanIds: planned.pathPlanIds,
      format: 'vendor-a',
    });
    const exported = await waitForJob(a.c, `/api/path-plans-export/jobs/${exp.json.jobId}`);
    const send = await a.c.post(`/api/path-plans-export/${exported.batchId}/transmit`, {
      vendor: 'vendor-a',
    });
    const sent = await waitForJob(a.c, `/api/path-plans-export/transmissions/${send.json.jobId}`);
    expect(sent.status).toBe('completed');
    expect(sent.files[0].status).toBe('accepted');
    const up = portal.uploads.at(-1)!;
    const m = new ISOXMLManager({ rootFolder: 'TASKDATA' });
    await m.parseISOXMLFile(up.zip, 'application/zip');
    const root = m.rootElement.attributes as {
      Customer?: { attributes: { CustomerLastName: string } }[];
      Farm?: { attributes: { FarmDesignator: string } }[];
      Partfield?: { attributes: { PartfieldDesignator: string } }[];
    };
    expect(root.Customer?.map((c) => c.attributes.CustomerLastName)).toEqual(['Hansen']);
    expect(root.Farm?.map((f) => f.attributes.FarmDesignator)).toEqual(['North']);
    expect(root.Partfield?.map((p) => p.attributes.PartfieldDesignator).sort()).toEqual([
      'Big field',
      'Small field',
    ]);
  });

  it('syncs again idempotently on the vendor ids: unchanged, updated, conflicting and failed items', async () => {
    const again = await sync(a);
    expect(again.job).toMatchObject({ created: 0, updated: 0, unchanged: 4, conflicting: 0 });

    // Here: Small field renamed by a user. At the vendor: Big field reshaped, a new field, one unreadable.
    const fields = await a.c.get(`/api/companies/${a.companyId}/fields`);
    const small = ((fields.json.items ?? fields.json) as { fieldId: string; name: string }[]).find(
      (f) => f.name === 'Small field',
    )!;
    expectOk(await a.c.put(`/api/fields/${small.fieldId}`, { name: 'Small field (ours)' }));
    orgFields['org-7'] = [
      vendorField('vf-1', 'Big field', 10.6, 7),
      vendorField('vf-2', 'Small field renamed there', 10.61, 3),
      vendorField('vf-3', 'New field', 10.62, 4),
      { ...vendorField('vf-4', 'Broken', 10.63), boundary: { type: 'Polygon', coordinates: [[[0, 0]]] } },
    ];
    const third = await sync(a);
    expect(third.job).toMatchObject({ created: 1, updated: 1, conflicting: 1, failed: 1, unchanged: 2 });
    const byName = Object.fromEntries(
      third.job.items.map((i: { externalId: string; outcome: string }) => [i.externalId, i.outcome]),
    );
    expect(byName).toMatchObject({
      'vf-1': 'updated',
      'vf-2': 'conflicting',
      'vf-3': 'created',
      'vf-4': 'failed',
    });
    const after = await a.c.get(`/api/companies/${a.companyId}/fields`);
    const names = ((after.json.items ?? after.json) as { name: string }[]).map((f) => f.name).sort();
    expect(names).toEqual(['Big field', 'New field', 'Small field (ours)']);
  });

  it('keeps error notifications on ended jobs; refuses unlinked companies and ungranted organizations', async () => {
    const { jobId } = await sync(a);
    const note = await a.c.post(`/api/companies-sync/error-notification/${jobId}`, {
      message: 'Field vf-4 has a broken boundary at the vendor',
      errorCode: 'VENDOR_DATA',
    });
    expectOk(note);
    expect(note.json.errorNotifications).toEqual([
      expect.objectContaining({
        errorCode: 'VENDOR_DATA',
        message: 'Field vf-4 has a broken boundary at the vendor',
      }),
    ]);
    expectError(
      await b.c.post(`/api/companies-sync/error-notification/${jobId}`, { message: 'x' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await b.c.post('/api/external/companies/sync', {
        companyId: b.companyId,
        vendor: 'vendor-a',
        organizationId: 'org-7',
      }),
      409,
      'VENDOR_NOT_CONNECTED',
    );
    expectError(
      await b.c.post('/api/external/companies/sync', {
        companyId: a.companyId,
        vendor: 'vendor-a',
        organizationId: 'org-7',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await a.c.post('/api/external/companies/sync', {
        companyId: a.companyId,
        vendor: 'vendor-a',
        organizationId: 'org-8',
      }),
      422,
      'ORGANIZATION_NOT_GRANTED',
    );
  });

  it('answers the company a user linked at vendor-b and the users of a company with its vendor-c link', async () => {
    expectError(await a.c.get(`/api/vendor-b/${a.userId}/company`), 404, 'NOT_FOUND');
    for (const vendor of ['vendor-b', 'vendor-c']) {
      const { code, state } = await authorizeAtVendor(a.c, a.companyId, vendor);
      expectOk(
        await a.c.post(`/api/companies/${a.companyId}/vendor-connections/${vendor}/callback`, {
          code,
          state,
        }),
        201,
      );
    }
    const linked = await a.c.get(`/api/vendor-b/${a.userId}/company`);
    expectOk(linked);
    expect(linked.json).toMatchObject({
      userId: a.userId,
      companyId: a.companyId,
      connection: { vendor: 'vendor-b' },
    });
    expect(linked.text).not.toMatch(/access-\d+-secret/);
    expectError(await b.c.get(`/api/vendor-b/${a.userId}/company`), 404, 'NOT_FOUND');

    const users = await a.c.get(`/api/vendor-c/companies/${a.companyId}/users`);
    expectOk(users);
    expect(users.json).toMatchObject({ companyId: a.companyId, vendor: 'vendor-c', connected: true });
    expect(users.json.users).toEqual([
      expect.objectContaining({ userId: a.userId, role: 'admin', linked: true }),
    ]);
    expectError(await b.c.get(`/api/vendor-c/companies/${a.companyId}/users`), 404, 'NOT_FOUND');
    const none = await b.c.get(`/api/vendor-c/companies/${b.companyId}/users`);
    expect(none.json.connected).toBe(false);
  });

  it('logged no token, authorization code or client secret on the way', () => {
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    expect(tokens.length).toBeGreaterThan(0);
    for (const t of tokens) expect(log).not.toContain(t);
    expect(log).not.toMatch(/refresh-\d+-secret|code-\d+\b/);
    expect(log).not.toContain(CLIENT_SECRET);
  });
});
