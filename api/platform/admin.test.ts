/**
 * Admin endpoints against a really listening server: only platform admins
 * may use them; the admin role is granted and revoked by e-mail or id; a
 * company is deep-copied (hierarchy, plans, settings) by a job into a new
 * company the admin can read, the source left as it was; a boundary is
 * decomposed with its cells and timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, client, expectError, expectOk, waitForJob } from './client.ts';

let srv: TestServer;
let admin: { c: Client; userId: string; companyId: string };
let owner: { c: Client; userId: string; companyId: string };

async function account(credits = 100) {
  const k = await testKey({ credits });
  return { c: client(srv.url, { key: k.key }), userId: k.userId, companyId: k.companyId };
}

/** An L-shaped field of about 30 ha near (lon, lat). */
function lField(lon = 10.3, lat = 56.2) {
  const dx = 0.008;
  const dy = 0.004;
  return {
    type: 'Polygon' as const,
    coordinates: [
      [
        [lon, lat],
        [lon + dx, lat],
        [lon + dx, lat + dy / 2],
        [lon + dx / 4, lat + dy / 2],
        [lon + dx / 4, lat + dy * 1.5],
        [lon, lat + dy * 1.5],
        [lon, lat],
      ],
    ],
  };
}

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  admin = await account();
  owner = await account();
  await (await testStore()).platformAdmins.grant(admin.userId, null);
});
afterAll(async () => {
  await srv?.close();
});

describe('admin', () => {
  it('refuses everyone but platform admins (403)', async () => {
    for (const [path, body] of [
      ['/api/admin/admin-user', { userId: owner.userId, admin: true }],
      ['/api/admin/copy-company', { sourceCompanyId: owner.companyId }],
      ['/api/admin/test-field-decomposition', { boundary: lField(), equipment: { swathWidth: 12 } }],
    ] as const) {
      expectError(await owner.c.post(path, body), 403, 'NotAuthorized');
    }
    expectError(
      await owner.c.get(`/api/admin/copy-company/jobs/${crypto.randomUUID()}`),
      403,
      'NotAuthorized',
    );
  });

  it('grants and revokes the platform admin role', async () => {
    const other = await account();
    const granted = await admin.c.post('/api/admin/admin-user', { userId: other.userId, admin: true });
    expectOk(granted);
    expect(granted.json).toMatchObject({ userId: other.userId, platformAdmin: true });
    // The new admin may now use the admin endpoints, and revoke the role again.
    const revoked = await other.c.post('/api/admin/admin-user', { email: granted.json.email, admin: false });
    expectOk(revoked);
    expect(revoked.json.platformAdmin).toBe(false);
    expectError(
      await other.c.post('/api/admin/admin-user', { userId: other.userId, admin: true }),
      403,
      'NotAuthorized',
    );
    expectError(await admin.c.post('/api/admin/admin-user', { admin: true }), 400, 'VALIDATION_ERROR');
    expectError(
      await admin.c.post('/api/admin/admin-user', { userId: crypto.randomUUID(), admin: true }),
      404,
      'NOT_FOUND',
    );
  });

  it('decomposes a boundary and answers its cells with timing', async () => {
    const res = await admin.c.post('/api/admin/test-field-decomposition', {
      boundary: lField(),
      equipment: { swathWidth: 12 },
      exteriorHeadlandPasses: 1,
    });
    expectOk(res);
    expect(res.json.zones.type).toBe('FeatureCollection');
    expect(res.json.cellCount).toBe(
      res.json.zones.features.filter((f: { properties: { role: string } }) => f.properties.role === 'cell')
        .length,
    );
    expect(res.json.decomposed).toBe(res.json.cellCount > 0);
    const t = res.json.timing;
    expect(t.prepareMs).toBeGreaterThanOrEqual(0);
    expect(t.decomposeMs).toBeGreaterThan(0);
    expect(t.totalMs).toBeCloseTo(t.prepareMs + t.decomposeMs, 1);
    expectError(
      await admin.c.post('/api/admin/test-field-decomposition', { boundary: lField(), equipment: {} }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('copies a company with its hierarchy, plans and settings into a new company, as a job', async () => {
    const g = await owner.c.post(`/api/companies/${owner.companyId}/growers`, { name: 'Hansen' });
    const f = await owner.c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'North' });
    const saved = await owner.c.post('/api/fields/save', {
      farmId: f.json.farmId,
      name: 'Big field',
      boundary: rectangleField(5, 10.4, 56.3).coordinates,
    });
    expectOk(saved, 201);
    const plan = await owner.c.post('/api/bulk-guidance/normalized', {
      boundaryIds: [saved.json.vBoundary.boundaryId],
      request: { equipment: { swathWidth: 6 } },
    });
    const planned = await waitForJob(owner.c, `/api/bulk-guidance/normalized/jobs/${plan.json.jobId}`);
    expect(planned.pathPlanIds).toHaveLength(1);

    const post = await admin.c.post('/api/admin/copy-company', {
      sourceCompanyId: owner.companyId,
      name: 'Hansen copy',
    });
    expectOk(post, 202);
    const target = post.json.targetCompanyId;
    const done = await waitForJob(admin.c, `/api/admin/copy-company/jobs/${post.json.jobId}`);
    expect(done.status).toBe('completed');
    expect(done.copied).toMatchObject({ growers: 1, farms: 1, fields: 1, boundaries: 1, pathPlans: 1 });

    const fields = await admin.c.get(`/api/companies/${target}/fields`);
    expectOk(fields);
    const copied = (fields.json.items ?? fields.json) as { fieldId: string; name: string }[];
    expect(copied.map((x) => x.name)).toEqual(['Big field']);
    expect(copied[0]!.fieldId).not.toBe(saved.json.field.fieldId);
    const plans = await admin.c.get(`/api/fields/${copied[0]!.fieldId}/path-plans`);
    expectOk(plans);
    const planIds = JSON.stringify(plans.json).match(/[0-9a-f]{8}-[0-9a-f-]{27}/g) ?? [];
    expect(planIds).not.toContain(planned.pathPlanIds[0]);
    // The source is as it was, and still its owner's alone.
    expectError(await owner.c.get(`/api/companies/${target}/fields`), 404, 'NOT_FOUND');
    const src = await owner.c.get(`/api/companies/${owner.companyId}/fields`);
    expect(((src.json.items ?? src.json) as unknown[]).length).toBe(1);

    expectError(
      await admin.c.post('/api/admin/copy-company', { sourceCompanyId: crypto.randomUUID() }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await admin.c.post('/api/admin/copy-company', {
        sourceCompanyId: owner.companyId,
        targetCompanyId: owner.companyId,
      }),
      400,
      'VALIDATION_ERROR',
    );
  });
});
