/**
 * Users against a really listening server: terms, the app start, contact,
 * process and feedback logs, the user directory of a company admin, the
 * company last worked in, and deleting a user (anonymised, company data
 * kept).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactMessages } from '../../store/schema.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
});
afterAll(async () => {
  await srv?.close();
});

describe('the user themself', () => {
  it('accepts terms, starts the app, writes to the operator and logs processes and feedback', async () => {
    const me = await testKey();
    const other = await testKey();
    const c = client(srv.url, { key: me.key });

    const t = await c.post('/api/user/accept-terms', { termsVersion: '2026-01' });
    expectOk(t);
    expect(t.json).toMatchObject({ userId: me.userId, termsVersion: '2026-01' });
    expectError(await c.post('/api/user/accept-terms', { termsVersion: '' }), 400, 'VALIDATION_ERROR');
    expectOk(await c.post('/api/user-settings', { name: 'language', value: 'da' }), 201);

    const app = await c.get(`/api/user/app/${me.userId}`);
    expectOk(app);
    expect(app.json).toMatchObject({
      userId: me.userId,
      terms: { termsVersion: '2026-01' },
      companies: [{ companyId: me.companyId, role: 'admin' }],
      lastEngagedCompanyId: null,
      settings: { language: 'da' },
    });
    expectError(await c.get(`/api/user/app/${other.userId}`), 404, 'NOT_FOUND');

    const sent = await c.post('/api/contact', { subject: 'Headlands', message: 'Two passes\nplease.' });
    expectOk(sent, 202);
    expect(sent.json.status).toBe('queued');
    const { db } = await testStore();
    const { eq } = await import('drizzle-orm');
    const [row] = await db.select().from(contactMessages).where(eq(contactMessages.id, sent.json.contactId));
    expect(row).toMatchObject({
      userId: me.userId,
      subject: 'Headlands',
      message: 'Two passes\nplease.',
      mailedAt: null,
    });

    expectOk(
      await c.post('/api/account/log-user-process', {
        process: 'onboarding',
        step: 'company',
        status: 'completed',
      }),
      201,
    );
    expectOk(
      await c.post('/api/account/log-user-process', {
        process: 'boundary-import',
        status: 'started',
        details: { files: 2 },
      }),
      201,
    );
    const fb = await c.post('/api/account/log-user-feedback', {
      process: 'onboarding',
      rating: 4,
      message: 'Smooth',
    });
    expectOk(fb, 201);
    expect(fb.json).toMatchObject({ kind: 'feedback', rating: 4, message: 'Smooth', process: 'onboarding' });
    expectError(
      await c.post('/api/account/log-user-feedback', { process: 'onboarding' }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await c.post('/api/account/log-user-feedback', { rating: 6 }), 400, 'VALIDATION_ERROR');

    const log = await c.get(`/api/account/${me.userId}/logged-user-process?process=onboarding`);
    expectOk(log);
    expect(log.json.items.map((e: { kind: string }) => e.kind)).toEqual(['feedback', 'process']);
    const all = await c.get(`/api/account/${me.userId}/logged-user-process`);
    expect(all.json.items).toHaveLength(3);
    expect(all.json.items[1].details).toEqual({ files: 2 });
    expectError(
      await client(srv.url, { key: other.key }).get(`/api/account/${me.userId}/logged-user-process`),
      404,
      'NOT_FOUND',
    );
  });
});

describe('the user directory of a company admin', () => {
  it('lists, pages, sorts and filters the users of the companies one administers; summaries and last company', async () => {
    const admin = await testKey();
    const editor = await testKey();
    const viewer = await testKey();
    const stranger = await testKey();
    const ca = client(srv.url, { key: admin.key });
    const cid = admin.companyId;
    expectOk(
      await ca.post('/api/company-accesses', { companyId: cid, userId: editor.userId, role: 'editor' }),
      201,
    );
    expectOk(
      await ca.post('/api/company-accesses', { companyId: cid, userId: viewer.userId, role: 'viewer' }),
      201,
    );

    const table = await ca.post('/api/users/table', { sort: { field: 'createdAt' } });
    expectOk(table);
    expect(table.json.total).toBe(3);
    expect(table.json.items.map((u: { userId: string }) => u.userId)).toEqual([
      admin.userId,
      editor.userId,
      viewer.userId,
    ]);
    const paged = await ca.post('/api/users/table', {
      sort: { field: 'createdAt', direction: 'desc' },
      limit: 1,
      offset: 1,
    });
    expect(paged.json).toMatchObject({ total: 3, offset: 1, limit: 1 });
    expect(paged.json.items[0].userId).toBe(editor.userId);
    const viewers = await ca.post('/api/users/table', { companyId: cid, roles: ['viewer'] });
    expect(viewers.json.items.map((u: { userId: string }) => u.userId)).toEqual([viewer.userId]);
    const email = (await (await testStore()).accounts.findUserById(editor.userId))!.email!;
    const found = await ca.post('/api/users/list', { search: email.slice(0, 12) });
    expect(found.json.items.map((u: { userId: string }) => u.userId)).toEqual([editor.userId]);
    expect(
      (await ca.post('/api/users/list', { search: (await emailOf(stranger.userId)).slice(0, 12) })).json
        .items,
    ).toEqual([]);

    const sum = await ca.post('/api/users/list-summary', { companyId: cid });
    expectOk(sum);
    expect(sum.json).toMatchObject({
      users: 3,
      byRole: { admin: 1, editor: 1, viewer: 1 },
      // The admin, by giving access.
      engagedLast30Days: 1,
    });

    // The editor changes something: their last company.
    const ce = client(srv.url, { key: editor.key });
    expectOk(await ce.post(`/api/companies/${cid}/growers`, { name: 'By the editor' }), 201);
    const last = await ca.get(`/api/users/${editor.userId}/last-engaged-company`);
    expectOk(last);
    expect(last.json).toMatchObject({ userId: editor.userId, companyId: cid });
    const s = await ca.get(`/api/users/${editor.userId}/summary`);
    expectOk(s);
    expect(s.json).toMatchObject({
      userId: editor.userId,
      companies: { admin: 1, editor: 1, viewer: 0 },
      changes: 1,
      lastEngagedCompanyId: cid,
    });
    expect((await ca.post('/api/users/list-summary', { companyId: cid })).json.engagedLast30Days).toBe(2);

    // Editors and viewers administer nobody here (they see themselves only); strangers are 404.
    const own = await ce.post('/api/users/table', { companyId: cid });
    expect(own.json.items.map((u: { userId: string }) => u.userId)).toEqual([editor.userId]);
    expectError(
      await client(srv.url, { key: stranger.key }).get(`/api/users/${editor.userId}/summary`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await client(srv.url, { key: stranger.key }).post('/api/users/table', { companyId: cid }),
      404,
      'NOT_FOUND',
    );
    expectError(await ca.post('/api/users/table', { sort: { field: 'password' } }), 400, 'VALIDATION_ERROR');
  });
});

describe('contact mail', () => {
  it('hands the message to outgoing mail when the app has it, and keeps it queued when mail fails', async () => {
    const mails: unknown[] = [];
    let fail = false;
    const mailing = await startTestServer({
      rateLimitPerMin: 100_000,
      contactMail: async (m) => {
        if (fail) throw new Error('smtp down');
        mails.push(m);
      },
    });
    try {
      const me = await testKey();
      const c = client(mailing.url, { key: me.key });
      const sent = await c.post('/api/contact', { subject: 'Help', message: 'Where are my plans?' });
      expectOk(sent, 202);
      expect(sent.json.status).toBe('sent');
      expect(mails).toEqual([
        {
          contactId: sent.json.contactId,
          userId: me.userId,
          replyTo: await emailOf(me.userId),
          subject: 'Help',
          text: 'Where are my plans?',
        },
      ]);
      fail = true;
      const queued = await c.post('/api/contact', { subject: 'Again', message: 'Still nothing' });
      expect(queued.json.status).toBe('queued');
      const { db } = await testStore();
      const { eq } = await import('drizzle-orm');
      const rows = await db.select().from(contactMessages).where(eq(contactMessages.userId, me.userId));
      expect(rows.map((r) => [r.subject, r.mailedAt === null])).toEqual(
        expect.arrayContaining([
          ['Help', false],
          ['Again', true],
        ]),
      );
    } finally {
      await mailing.close();
    }
  });
});

describe('admin countries', () => {
  it('tells the countries of the fields of the companies a user administers', async () => {
    const admin = await testKey();
    const ca = client(srv.url, { key: admin.key });
    const g = await ca.post(`/api/companies/${admin.companyId}/growers`, { name: 'G' });
    const f = await ca.post(`/api/growers/${g.json.growerId}/farms`, { name: 'F' });
    const square = (lon: number, lat: number) => [
      [
        [lon, lat],
        [lon + 0.01, lat],
        [lon + 0.01, lat + 0.01],
        [lon, lat + 0.01],
        [lon, lat],
      ],
    ];
    // Two fields in Jutland, one near Paris.
    for (const [name, lon, lat] of [
      ['Vejle', 9.5, 55.7],
      ['Horsens', 9.8, 55.85],
      ['Brie', 2.9, 48.7],
    ] as const) {
      expectOk(
        await ca.post('/api/fields/save', { farmId: f.json.farmId, name, boundary: square(lon, lat) }),
        201,
      );
    }
    const c = await ca.get(`/api/users/${admin.userId}/admin-countries`);
    expectOk(c);
    expect(c.json).toEqual({
      userId: admin.userId,
      items: [
        { code: 'DK', name: 'Denmark', companies: 1, fields: 2 },
        { code: 'FR', name: 'France', companies: 1, fields: 1 },
      ],
      unlocated: 0,
    });
    const stranger = client(srv.url, { key: (await testKey()).key });
    expectError(await stranger.get(`/api/users/${admin.userId}/admin-countries`), 404, 'NOT_FOUND');
  });
});

describe('deleting a user', () => {
  it('anonymises the user, ends their credentials and keeps the company data and its log', async () => {
    const admin = await testKey();
    const leaver = await testKey();
    const ca = client(srv.url, { key: admin.key });
    const cl = client(srv.url, { key: leaver.key });
    const cid = admin.companyId;
    expectOk(
      await ca.post('/api/company-accesses', { companyId: cid, userId: leaver.userId, role: 'editor' }),
      201,
    );
    const g = await cl.post(`/api/companies/${cid}/growers`, { name: 'Kept' });
    expectOk(g, 201);
    expectOk(await cl.post('/api/account/log-user-process', { process: 'onboarding' }), 201);

    // The admin is the only admin of a company the leaver uses: not before handing over.
    expectError(await ca.del(`/api/users/${admin.userId}`), 409, 'SOLE_ADMIN');
    // Nobody deletes someone else.
    expectError(await ca.del(`/api/users/${leaver.userId}`), 404, 'NOT_FOUND');

    expectOk(await cl.del(`/api/users/${leaver.userId}`), 204);
    expect((await call(srv.url, '/api/user/current', { key: leaver.key })).status).toBe(401);

    const store = await testStore();
    const user = await store.accounts.findUserById(leaver.userId);
    expect(user).toMatchObject({ email: null, firstName: null, lastName: null, passwordHash: null });
    expect(await store.accounts.listAccesses(leaver.userId)).toEqual([]);
    expect(await store.userRecords.logs(leaver.userId, { limit: 10 })).toEqual([]);

    expectOk(await ca.get(`/api/growers/${g.json.growerId}`));
    const events = await ca.get(`/api/company-events/${cid}`);
    const made = events.json.items.find((e: { objectId: string }) => e.objectId === g.json.growerId);
    expect(made).toMatchObject({ userId: leaver.userId, userEmail: null, action: 'create' });
    expect(
      (await ca.post('/api/users/table', {})).json.items.map((u: { userId: string }) => u.userId),
    ).toEqual([admin.userId]);
    expectError(await ca.get(`/api/users/${leaver.userId}/summary`), 404, 'NOT_FOUND');
  });
});

async function emailOf(userId: string): Promise<string> {
  return (await (await testStore()).accounts.findUserById(userId))!.email!;
}
