/**
 * Company roles against a really listening server: the role matrix over
 * every write route of the OpenAPI document (a viewer is refused each one,
 * an editor every access management route), and the way of one user from
 * viewer to editor to no access.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  boundaries,
  descriptors,
  equipment,
  equipmentScenarioDetails,
  equipmentScenarios,
  exportBatches,
  farms,
  fieldOperations,
  fields,
  growers,
  jobs,
  operators,
  pathPlanGroups,
  pathPlans,
  settings,
  shares,
  userFiles,
  userLabels,
} from '../../store/schema.ts';
import { uuidv7 } from '../../store/uuidv7.ts';
import { ADMIN_ROUTES, ID_NAMES, routeAccess } from '../auth/company-roles.ts';
import { startTestServer, type TestServer, testKey, testStore } from '../testing.ts';
import { call, client, expectError, expectOk } from './client.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 1_000_000 });
});
afterAll(async () => {
  await srv?.close();
});

const RING = [
  [10, 55],
  [10.01, 55],
  [10.01, 55.01],
  [10, 55.01],
  [10, 55],
];

/** One stored object of every kind in the company, written straight to the database. */
async function objectsOf(companyId: string, userId: string) {
  const { db } = await testStore();
  const id = () => uuidv7();
  const o = {
    growerId: id(),
    farmId: id(),
    fieldId: id(),
    boundaryId: id(),
    pathPlanGroupId: id(),
    pathPlanId: id(),
    equipmentId: id(),
    operatorId: id(),
    settingId: id(),
    userFileId: id(),
    userLabelId: id(),
    jobId: id(),
    shareIdOrCode: id(),
    batchId: id(),
    descriptorId: id(),
    fieldOpId: id(),
    equipmentScenarioId: id(),
    equipmentScenarioDetailsId: id(),
  };
  await db.insert(growers).values({ id: o.growerId, companyId, name: 'G' });
  await db.insert(farms).values({ id: o.farmId, companyId, growerId: o.growerId, name: 'F' });
  await db.insert(fields).values({ id: o.fieldId, companyId, farmId: o.farmId, name: 'Field' });
  await db
    .insert(boundaries)
    .values({ id: o.boundaryId, companyId, fieldId: o.fieldId, rings: [RING], area: 700_000, active: true });
  await db.insert(pathPlanGroups).values({ id: o.pathPlanGroupId, companyId, name: 'Group' });
  await db.insert(pathPlans).values({ id: o.pathPlanId, companyId, name: 'Plan', boundaryId: o.boundaryId });
  await db
    .insert(equipment)
    .values({ id: o.equipmentId, companyId, name: 'Sprayer', type: 'sprayer', swathWidth: 24 });
  await db.insert(operators).values({ id: o.operatorId, companyId, name: 'Op' });
  await db.insert(settings).values({ id: o.settingId, companyId, name: 'language', value: 'en' });
  await db.insert(userFiles).values({
    id: o.userFileId,
    companyId,
    fileName: 'a.wkt',
    kind: 'wkt',
    mediaType: 'text/plain',
    size: 1,
    sha256: '0'.repeat(64),
    content: Buffer.from('x'),
  });
  await db.insert(userLabels).values({ id: o.userLabelId, companyId, name: 'Label' });
  await db.insert(jobs).values({ id: o.jobId, companyId, userId, kind: 'guidance', request: {}, total: 1 });
  await db.insert(shares).values({
    id: o.shareIdOrCode,
    codeHash: randomUUID(),
    companyId,
    pathPlanId: o.pathPlanId,
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  await db
    .insert(exportBatches)
    .values({ id: o.batchId, companyId, format: 'zip', fileName: 'a.zip', content: '' });
  await db.insert(descriptors).values({
    id: o.descriptorId,
    companyId,
    objectType: 'field',
    objectId: o.fieldId,
    name: 'crop',
    valueType: 'text',
    value: 'wheat',
  });
  await db.insert(fieldOperations).values({
    id: o.fieldOpId,
    companyId,
    fieldId: o.fieldId,
    boundaryId: o.boundaryId,
    operationType: 'spraying',
    swathWidth: 24,
    startedAt: new Date(),
  });
  await db
    .insert(equipmentScenarios)
    .values({ id: o.equipmentScenarioId, companyId, name: 'S', jobId: o.jobId, boundaryIds: [o.boundaryId] });
  await db.insert(equipmentScenarioDetails).values({
    id: o.equipmentScenarioDetailsId,
    scenarioId: o.equipmentScenarioId,
    companyId,
    position: 0,
    name: 'Machine',
    request: {},
  });
  return o;
}

interface WriteRoute {
  method: string;
  path: string;
  /** The Fastify pattern (`:param`). */
  url: string;
  jsonBody: boolean;
  bodyProps: string[];
}

/** Every POST, PUT, PATCH and DELETE of the OpenAPI document the running app publishes. */
function writeRoutes(): WriteRoute[] {
  // biome-ignore lint/suspicious/noExplicitAny: the generated document is walked freely
  const doc = srv.app.swagger() as any;
  const schemas = doc.components?.schemas ?? {};
  // biome-ignore lint/suspicious/noExplicitAny: JSON Schema walked freely
  const props = (s: any, depth = 0): string[] => {
    if (!s || depth > 4) return [];
    if (s.$ref) return props(schemas[s.$ref.split('/').pop()], depth + 1);
    const out = Object.keys(s.properties ?? {});
    for (const k of ['allOf', 'anyOf', 'oneOf']) for (const x of s[k] ?? []) out.push(...props(x, depth + 1));
    if (s.items) out.push(...props(s.items, depth + 1));
    return out;
  };
  const out: WriteRoute[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    // biome-ignore lint/suspicious/noExplicitAny: see above
    for (const [m, op] of Object.entries(ops as Record<string, any>)) {
      const method = m.toUpperCase();
      if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) continue;
      const json = op.requestBody?.content?.['application/json']?.schema;
      out.push({
        method,
        path,
        url: path.replace(/\{([^}]+)\}/g, ':$1'),
        jsonBody: Boolean(json),
        bodyProps: [...new Set(props(json))],
      });
    }
  }
  return out;
}

/** The request for a route, its ids filled from `ids` (random UUIDs for ids of no known object). */
function requestOf(r: WriteRoute, ids: Record<string, string>) {
  // `{id}` of a descriptor route is a descriptor's id (elsewhere the company access's).
  const byName = r.path.startsWith('/api/descriptors/')
    ? { ...ids, id: ids.descriptorId ?? randomUUID() }
    : ids;
  const path = r.path.replace(/\{([^}]+)\}/g, (_m, name: string) => byName[name] ?? randomUUID());
  if (!r.jsonBody) return { path, body: undefined };
  const body: Record<string, unknown> = {};
  for (const p of r.bodyProps) {
    const kind = ID_NAMES[p];
    if (!kind) continue;
    const single = ids[p] ?? ids[p.replace(/s$/, '')];
    if (single) body[p] = p.endsWith('Ids') ? [single] : single;
  }
  return { path, body };
}

describe('the role matrix over every write route', () => {
  it('refuses a viewer every company write (403 NotAuthorized) and an editor every access management route', async () => {
    const store = await testStore();
    const admin = await testKey();
    const viewer = await testKey();
    const editor = await testKey();
    const companyId = admin.companyId;
    const ca = client(srv.url, { key: admin.key });
    expectOk(
      await ca.post('/api/company-accesses', { companyId, userId: viewer.userId, role: 'viewer' }),
      201,
    );
    const e = await ca.post('/api/company-accesses', { companyId, userId: editor.userId, role: 'editor' });
    expectOk(e, 201);
    // The viewer's second key bills the company they only view.
    const viewerKeyHere = (await store.apiKeys.create({ userId: viewer.userId, companyId })).key;
    const ids = {
      ...(await objectsOf(companyId, admin.userId)),
      companyId,
      id: e.json.id,
      userId: viewer.userId,
    };

    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThan(60);
    const company = routes.filter(
      (r) => routeAccess(r.method, r.url) === 'write' || routeAccess(r.method, r.url) === 'admin',
    );
    const refused: string[] = [];
    let namingIds = 0;
    for (const r of company) {
      const req = requestOf(r, ids);
      const what = `${r.method} ${r.path}`;
      // Whatever the body, with credentials billing the viewed company.
      const a = await call(srv.url, req.path, { method: r.method, key: viewerKeyHere, body: req.body });
      expect(a.status, `${what}: ${a.text}`).toBe(403);
      expectError(a, 403, 'NotAuthorized');
      // With credentials of a company where the viewer is admin: the named ids decide.
      const named = r.path.includes('{') || Object.keys(req.body ?? {}).length > 0;
      const knownIds =
        Object.entries(req.body ?? {}).length > 0 ||
        [...r.path.matchAll(/\{([^}]+)\}/g)].some((m) => ids[m[1] as keyof typeof ids] && m[1] !== 'userId');
      if (named && knownIds) {
        namingIds++;
        const b = await call(srv.url, req.path, { method: r.method, key: viewer.key, body: req.body });
        expect(b.status, `${what} (own key): ${b.text}`).toBe(403);
        expect(b.json.errorCode).toBe('NotAuthorized');
      }
      refused.push(what);
    }
    console.log(
      `role matrix: ${company.length} company write routes refused to a viewer, ${namingIds} also by the ids they name`,
    );
    expect(refused.length).toBe(company.length);
    expect(namingIds).toBeGreaterThan(40);

    // What is the viewer's own, and reading, stays open to them.
    const cv = client(srv.url, { key: viewerKeyHere });
    expectOk(await cv.post('/api/user/accept-terms', { termsVersion: '1' }));
    expectOk(await cv.post('/api/user-settings', { name: 'language', value: 'de' }), 201);
    expectOk(await cv.post('/api/companies', { name: 'Their own' }), 201);
    expectOk(await cv.post('/api/companies/table', {}));
    expectOk(await cv.post('/api/companies/list-summary', {}));
    expectOk(await cv.get(`/api/growers/${ids.growerId}`));

    // Nothing of the company changed.
    const g = await ca.get(`/api/growers/${ids.growerId}`);
    expectOk(g);
    expect((await ca.get(`/api/companies/${companyId}/summary`)).json.counts).toMatchObject({
      growers: 1,
      farms: 1,
      fields: 1,
      boundaries: 1,
    });

    // Editors: every access management route is refused.
    const admins = routes.filter((r) => routeAccess(r.method, r.url) === 'admin');
    expect(admins.map((r) => `${r.method} ${r.url}`).sort()).toEqual([...ADMIN_ROUTES].sort());
    for (const r of admins) {
      const req = requestOf(r, { ...ids, userId: viewer.userId });
      const a = await call(srv.url, req.path, {
        method: r.method,
        key: editor.key,
        body: req.body && { ...req.body, userId: viewer.userId, role: 'editor' },
      });
      expectError(a, 403, 'NotAuthorized');
    }
  });

  it('lists only routes of the caller’s own user as outside company roles', () => {
    for (const r of writeRoutes()) {
      if (routeAccess(r.method, r.url) !== 'user') continue;
      expect(r.url, `${r.method} ${r.url}`).not.toMatch(
        /:companyId|:growerId|:farmId|:fieldId|:boundaryId|:pathPlanId/,
      );
    }
  });
});

describe('from viewer to editor to no access', () => {
  it('a viewer fails to write, made editor writes, loses access and gets 404', async () => {
    const admin = await testKey();
    const user = await testKey();
    const companyId = admin.companyId;
    const ca = client(srv.url, { key: admin.key });
    const cu = client(srv.url, { key: user.key });

    // Before any access: the company and its objects are unknown to the user.
    expectError(await cu.get(`/api/companies/${companyId}`), 404, 'NOT_FOUND');
    const g0 = await ca.post(`/api/companies/${companyId}/growers`, {
      name: 'Grower A',
      source: 'api',
      archived: false,
    });
    expectOk(g0, 201);
    const growerId = g0.json.growerId;
    expectError(await cu.get(`/api/growers/${growerId}`), 404, 'NOT_FOUND');

    // Viewer: reads, does not write.
    const v = await ca.post('/api/company-accesses', {
      companyId,
      email: (await emailOf(user.userId))!,
      role: 'viewer',
    });
    expectOk(v, 201);
    expect(v.json).toMatchObject({ userId: user.userId, companyId, role: 'viewer', created: true });
    expect((await cu.get(`/api/companies/${companyId}`)).json.role).toBe('viewer');
    expectOk(await cu.get(`/api/growers/${growerId}`));
    expectError(
      await cu.post(`/api/companies/${companyId}/growers`, { name: 'Nope', source: 'api', archived: false }),
      403,
      'NotAuthorized',
    );
    expectError(await cu.put(`/api/growers/${growerId}`, { name: 'Renamed' }), 403, 'NotAuthorized');
    expectError(await cu.del(`/api/growers/${growerId}`), 403, 'NotAuthorized');
    expectError(
      await cu.post('/api/company-accesses', { companyId, userId: user.userId, role: 'admin' }),
      403,
      'NotAuthorized',
    );

    // Editor: writes, but does not manage access.
    const ed = await ca.post('/api/company-accesses', { companyId, userId: user.userId, role: 'editor' });
    expectOk(ed, 200);
    expect(ed.json).toMatchObject({ id: v.json.id, role: 'editor', created: false });
    const made = await cu.post(`/api/companies/${companyId}/growers`, {
      name: 'By the editor',
      source: 'api',
      archived: false,
    });
    expectOk(made, 201);
    expectError(
      await cu.post('/api/company-accesses', { companyId, userId: user.userId, role: 'admin' }),
      403,
      'NotAuthorized',
    );
    expectError(await cu.del(`/api/company-accesses/${v.json.id}`), 403, 'NotAuthorized');
    expectError(await cu.del(`/api/companies/${companyId}`), 403, 'NotAuthorized');

    // The log tells who made it, in which batch.
    const events = await ca.get(`/api/company-events/${companyId}`);
    expectOk(events);
    const mine = events.json.items.find((x: { objectId: string }) => x.objectId === made.json.growerId);
    expect(mine).toMatchObject({
      companyId,
      userId: user.userId,
      action: 'create',
      method: 'POST',
      route: '/api/companies/{companyId}/growers',
      status: 201,
      batchId: made.headers.get('x-correlation-id'),
    });
    const batch = await ca.get(`/api/company-events/${mine.batchId}/company`);
    expectOk(batch);
    expect(batch.json.items.map((x: { eventId: string }) => x.eventId)).toEqual([mine.eventId]);

    // Accesses as the admin and the user see them.
    const list = await ca.get(`/api/users/${user.userId}/company-accesses`);
    expect(list.json.items.map((a: { companyId: string; role: string }) => [a.companyId, a.role])).toEqual([
      [companyId, 'editor'],
    ]);
    expectOk(await cu.get(`/api/company-accesses/${v.json.id}`));
    const u = await ca.get(`/api/company-accesses/${user.userId}/user`);
    expect(u.json.companyAccesses).toHaveLength(1);

    // No access: everything of the company is 404 again, for reads and writes.
    expectOk(await ca.del(`/api/company-accesses/${v.json.id}`), 204);
    expectError(await cu.get(`/api/companies/${companyId}`), 404, 'NOT_FOUND');
    expectError(await cu.get(`/api/growers/${growerId}`), 404, 'NOT_FOUND');
    expectError(await cu.put(`/api/growers/${growerId}`, { name: 'Gone' }), 404, 'NOT_FOUND');
    expectError(
      await cu.post(`/api/companies/${companyId}/growers`, { name: 'No', source: 'api', archived: false }),
      404,
      'NOT_FOUND',
    );
    expectError(await cu.get(`/api/company-events/${companyId}`), 404, 'NOT_FOUND');
    expectError(await cu.get(`/api/company-accesses/${v.json.id}`), 404, 'NOT_FOUND');
    expectError(await ca.get(`/api/company-accesses/${user.userId}/user`), 404, 'NOT_FOUND');
  });

  it('keeps one admin: the last admin can be neither demoted nor removed', async () => {
    const admin = await testKey();
    const ca = client(srv.url, { key: admin.key });
    const mine = await ca.get(`/api/users/${admin.userId}/company-accesses`);
    const own = mine.json.items.find((a: { companyId: string }) => a.companyId === admin.companyId);
    expect(own.role).toBe('admin');
    expectError(
      await ca.post('/api/company-accesses', {
        companyId: admin.companyId,
        userId: admin.userId,
        role: 'editor',
      }),
      409,
      'LAST_ADMIN',
    );
    expectError(await ca.del(`/api/company-accesses/${own.id}`), 409, 'LAST_ADMIN');

    // Two admins demoting each other at once: one of them stays admin.
    const second = await testKey();
    const made = await ca.post('/api/company-accesses', {
      companyId: admin.companyId,
      userId: second.userId,
      role: 'admin',
    });
    expectOk(made, 201);
    const c2 = client(srv.url, { key: second.key });
    const [x, y] = await Promise.all([
      ca.post('/api/company-accesses', { companyId: admin.companyId, userId: second.userId, role: 'viewer' }),
      c2.post('/api/company-accesses', { companyId: admin.companyId, userId: admin.userId, role: 'viewer' }),
    ]);
    expect([x.status, y.status].sort()).toContain(200);
    const roles = (await (await testStore()).companyAccess.ofCompany(admin.companyId)).map((a) => a.role);
    expect(roles).toContain('admin');
    // Whichever demotion won, its author is the admin left.
    const left = x.status === 200 ? ca : c2;
    expectError(
      await left.post('/api/company-accesses', {
        companyId: admin.companyId,
        email: 'nobody-here@example.org',
        role: 'viewer',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await left.post('/api/company-accesses', { companyId: admin.companyId, role: 'viewer' }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

async function emailOf(userId: string): Promise<string | null> {
  return (await (await testStore()).accounts.findUserById(userId))?.email ?? null;
}
