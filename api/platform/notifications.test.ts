/**
 * Notifications and analytics events over HTTP (PGlite and PostgreSQL):
 * a finished job, an opened share and a granted access notify the user
 * concerned; lists are unread first and paged; markRead and delete; a
 * failed job notifies too; another user's notifications answer 404;
 * analytics events are stored, bounded in size and rate limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBoundaries } from '../../bench/seed-boundaries.ts';
import { createJobsRepository } from '../../store/repositories/jobs.ts';
import { createNotificationsRepository } from '../../store/repositories/notifications.ts';
import { rectangleField, startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { type Client, call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
let a: Client;
let b: Client;
let ka: Awaited<ReturnType<typeof testKey>>;
let kb: Awaited<ReturnType<typeof testKey>>;
let planId: string;
let jobId: string;

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000, analyticsPerMin: 5 });
  ka = await testKey({ credits: 1000 });
  kb = await testKey({ credits: 1000 });
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  const [boundary] = await seedBoundaries(await testStore(), ka.companyId, [
    { name: 'North', geometry: rectangleField(4, 11, 55) },
  ]);
  const post = await a.post('/api/guidance', {
    boundaryId: boundary!.boundaryId,
    request: { equipment: { swathWidth: 6, minTurningRadius: 6 } },
  });
  expectOk(post, 202);
  jobId = post.json.jobId;
  for (let i = 0; i < 600; i++) {
    const j = await a.get(`/api/guidance/jobs/${jobId}`);
    if (j.json.status === 'completed') {
      planId = j.json.pathPlanIds[0];
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(planId).toBeDefined();
});
afterAll(async () => {
  await srv?.close();
});

const kinds = (page: { items: { kind: string }[] }) => page.items.map((n) => n.kind);

describe('notifications', () => {
  it('tells the user their job finished', async () => {
    const page = (await a.get('/api/notifications')).json;
    const n = page.items.find((x: { kind: string }) => x.kind === 'jobCompleted');
    expect(n).toMatchObject({ read: false, companyId: ka.companyId, data: { jobId, jobKind: 'guidance' } });
    expect(n.message).toContain(jobId);
    expect((await b.get('/api/notifications')).json.total).toBe(0);
  });

  it('tells the sharer their share was opened, once until read', async () => {
    const share = await a.post('/api/shares/path-plan', { pathPlanId: planId });
    expectOk(share, 201);
    const code = share.json.code as string;
    expectOk(await call(srv.url, `/api/shares/${code}`));
    expectOk(await call(srv.url, `/api/shares/${code}/path-plans-normalized/${planId}`));
    let page = (await a.get('/api/notifications')).json;
    expect(kinds(page).filter((k: string) => k === 'shareOpened')).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ kind: 'shareOpened', data: { pathPlanId: planId } });
    // Read: the next opening notifies again, unread ones come first.
    const read = await a.get('/api/notifications?markRead=true');
    expect(read.json.unread).toBe(2);
    expect(read.json.items.every((n: { read: boolean }) => !n.read)).toBe(true);
    expect((await a.get('/api/notifications')).json.unread).toBe(0);
    expectOk(await call(srv.url, `/api/shares/${code}`));
    page = (await a.get('/api/notifications')).json;
    expect(page).toMatchObject({ total: 3, unread: 1 });
    expect(page.items[0]).toMatchObject({ kind: 'shareOpened', read: false });
    expect(page.items.slice(1).every((n: { read: boolean }) => n.read)).toBe(true);
    const second = (await a.get('/api/notifications?offset=1&limit=1')).json;
    expect(second.items).toHaveLength(1);
    expect(second.items[0].notificationId).toBe(page.items[1].notificationId);
  });

  it('tells a user a job failed and that access was granted', async () => {
    const store = await testStore();
    const jobs = createJobsRepository(store.db);
    const job = await jobs.create({
      companyId: kb.companyId,
      userId: kb.userId,
      kind: 'export',
      request: {},
      total: 1,
    });
    expect(await jobs.finish(job.id, 'failed')).toBe(true);
    expect(await jobs.finish(job.id, 'failed')).toBe(false);
    const page = (await b.get('/api/notifications')).json;
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ kind: 'jobFailed', data: { jobId: job.id } });

    const pk = await testKey({ partnerAdmin: true });
    const partner = client(srv.url, { key: pk.key });
    const user = await partner.post('/api/partner/users', {
      partnerUserId: `u-${Date.now()}`,
      email: `granted-${Date.now()}@example.org`,
      firstName: 'Ada',
      lastName: 'Grant',
    });
    expectOk(user, 201);
    const company = await partner.post('/api/partner/companies', {
      partnerCompanyId: `c-${Date.now()}`,
      name: 'Hopper Farms',
    });
    const grant = { partnerUserId: user.json.partnerUserId, partnerCompanyId: company.json.partnerCompanyId };
    expectOk(await partner.post('/api/partner/company-accesses', grant), 201);
    expectOk(await partner.post('/api/partner/company-accesses', grant), 200);
    const theirs = await createNotificationsRepository(store.db).list(user.json.userId, {
      offset: 0,
      limit: 10,
    });
    expect(theirs.items.map((n) => n.kind)).toEqual(['accessGranted']);
    expect(theirs.items[0].message).toContain('Hopper Farms');
  });

  it('deletes only the caller’s own notifications', async () => {
    const id = (await a.get('/api/notifications')).json.items[0].notificationId as string;
    expectError(await b.del(`/api/notifications/${id}`), 404, 'NOT_FOUND');
    expectOk(await a.del(`/api/notifications/${id}`), 204);
    expectError(await a.del(`/api/notifications/${id}`), 404, 'NOT_FOUND');
    expectError(await a.get('/api/notifications?limit=0'), 400, 'VALIDATION_ERROR');
  });
});

describe('analytics events', () => {
  it('stores events, refuses oversized or malformed ones and limits the rate', async () => {
    const ok = await a.post('/api/analytics-events', {
      events: [
        { name: 'plan.viewed', properties: { pathPlanId: planId }, occurredAt: new Date().toISOString() },
        { name: 'map.zoomed' },
      ],
    });
    expectOk(ok, 202);
    expect(ok.json.accepted).toBe(2);
    const stored = await createNotificationsRepository((await testStore()).db).eventsOf(ka.userId);
    expect(stored.map((e) => e.name).sort()).toEqual(['map.zoomed', 'plan.viewed']);
    expect(stored.find((e) => e.name === 'plan.viewed')!.companyId).toBe(ka.companyId);

    const big = await a.post('/api/analytics-events', {
      events: [
        { name: 'x' },
        {
          name: 'big',
          properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, 'x'.repeat(20)])),
        },
      ],
    });
    expectError(big, 413, 'EVENT_TOO_LARGE');
    expect(big.json.message).toContain('/events/1/properties');
    expectError(await a.post('/api/analytics-events', { events: [] }), 400, 'VALIDATION_ERROR');
    expectError(
      await a.post('/api/analytics-events', { events: [{ name: 'has space' }] }),
      400,
      'VALIDATION_ERROR',
    );
    const many = Array.from({ length: 51 }, () => ({ name: 'e' }));
    expectError(await a.post('/api/analytics-events', { events: many }), 400, 'VALIDATION_ERROR');

    // 5 calls a minute per user: the limit is reached within this minute.
    let limited = null;
    for (let i = 0; i < 6 && !limited; i++) {
      const r = await b.post('/api/analytics-events', { events: [{ name: 'tick' }] });
      if (r.status === 429) limited = r;
      else expectOk(r, 202);
    }
    expect(limited).not.toBeNull();
    expectError(limited!, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('is in the OpenAPI document with named schemas', async () => {
    const doc = (await a.get('/api/openapi.json')).json;
    for (const name of [
      'Notification',
      'NotificationPage',
      'AnalyticsEventsRequest',
      'AnalyticsEventsAccepted',
    ])
      expect(doc.components.schemas[name], name).toBeDefined();
    expect(doc.paths['/api/notifications'].get).toBeDefined();
    expect(doc.paths['/api/notifications/{id}'].delete).toBeDefined();
    expect(doc.paths['/api/analytics-events'].post).toBeDefined();
  });
});
