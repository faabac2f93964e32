/**
 * POST /api/vendor-a-connections against a really listening server: a
 * client that ran the vendor's OAuth flow itself hands over the tokens; the
 * link is the company's vendor-a link (the same as one made through
 * /authorize), its tokens sealed at rest and never answered back.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vendorConnections } from '../../store/schema.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { client, expectError, expectOk } from './client.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
});
afterAll(async () => {
  await srv?.close();
});

describe('vendor-a connections from tokens', () => {
  it('links the company, seals the tokens, answers none, and replaces them when posted again', async () => {
    const k = await testKey();
    const c = client(srv.url, { key: k.key });
    const access = `vendor-access-${randomBytes(12).toString('hex')}`;
    const refresh = `vendor-refresh-${randomBytes(12).toString('hex')}`;
    const made = await c.post('/api/vendor-a-connections', {
      companyId: k.companyId,
      accessToken: access,
      refreshToken: refresh,
      expiresIn: 3600,
      scope: 'ag1 eq1',
    });
    expectOk(made, 201);
    expect(made.json).toMatchObject({ vendor: 'vendor-a', companyId: k.companyId, scope: 'ag1 eq1' });
    expect(Date.parse(made.json.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
    expect(made.text).not.toContain(access);
    expect(made.text).not.toContain(refresh);

    const rows = await (await testStore()).db
      .select()
      .from(vendorConnections)
      .where(eq(vendorConnections.companyId, k.companyId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.accessTokenEnc).not.toContain(access);
    expect(rows[0]!.refreshTokenEnc).not.toContain(refresh);

    const listed = await c.get(`/api/companies/${k.companyId}/vendor-connections`);
    expectOk(listed);
    expect(listed.json.connections.map((x: { vendor: string }) => x.vendor)).toEqual(['vendor-a']);

    const again = await c.post('/api/vendor-a-connections', { companyId: k.companyId, accessToken: 'newer' });
    expectOk(again, 200);
    expect(again.json.connectionId).toBe(made.json.connectionId);
    expect(again.json.expiresAt).toBeNull();
  });

  it("refuses another company's id (404) and a body without a company (400 naming it)", async () => {
    const a = await testKey();
    const b = await testKey();
    const c = client(srv.url, { key: a.key });
    expectError(
      await c.post('/api/vendor-a-connections', { companyId: b.companyId, accessToken: 't' }),
      404,
      'NOT_FOUND',
    );
    const bad = await c.post('/api/vendor-a-connections', { accessToken: 't' });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.text).toContain('companyId');
  });
});
