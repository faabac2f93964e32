/**
 * Running hostile requests (api/hostile-cases.ts) against a listening
 * server, and judging what they did:
 *
 *   - every answer is a 4xx or a 2xx, never a 5xx or a dropped connection,
 *     and comes within `timeoutMs`; a request that names another company's
 *     id is never a 2xx;
 *   - `/api/healthz` answers 200 within `healthMs` between batches;
 *   - afterwards the other company's objects read exactly as before, and
 *     nothing the caller's company holds (nor any account registered on the
 *     way) contains a control character, a lone surrogate, a bidi override,
 *     a string longer than its schema allows, or an extreme number sent.
 *
 * Used by api/hostile.test.ts (a sample) and bench/hostile.bench.ts (all).
 */

import { type HostileCase, HUGE_LENGTH, type Ids, type OpenApiDocument, RINGS } from './hostile-cases.ts';
import { inlineReferences } from './openapi/inline-references.ts';

export interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  json: any;
  ms: number;
}

/** Node's default limit on a request's head (request line and headers). */
const MAX_HEADER_BYTES = 16 * 1024;
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

async function call(
  base: string,
  path: string,
  opts: {
    method?: string;
    key?: string;
    bearer?: string;
    body?: string;
    type?: string;
    timeoutMs?: number;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const t0 = performance.now();
  try {
    const res = await fetch(base + path, {
      method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
      headers,
      body: opts.body,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json, ms: performance.now() - t0 };
  } catch (e) {
    const code = ((e as Error).cause as { code?: string } | undefined)?.code;
    if (path.length > MAX_HEADER_BYTES && code && CLOSED_CODES.has(code)) {
      // Node's HTTP parser answers 431 to a head over its limit and closes the connection; a
      // client still writing the rest of the head may see the close before the answer.
      return {
        status: 431,
        text: `closed while sending an oversized head (${code})`,
        json: undefined,
        ms: performance.now() - t0,
      };
    }
    return {
      status: 0,
      text: String((e as Error).message ?? e),
      json: undefined,
      ms: performance.now() - t0,
    };
  }
}

async function must(a: Promise<Answer>, status: number, what: string): Promise<Answer> {
  const x = await a;
  if (x.status !== status)
    throw new Error(`${what}: expected ${status}, got ${x.status} ${x.text.slice(0, 300)}`);
  return x;
}

async function waitForJob(base: string, key: string, path: string): Promise<Answer> {
  for (let i = 0; i < 600; i++) {
    const x = await call(base, path, { key });
    if (x.json?.status !== 'queued' && x.json?.status !== 'running') return x;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${path} did not finish`);
}

const PLAN_REQUEST = {
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 1,
  routeOptions: { algorithm: 'boustrophedon' },
};

/**
 * One of everything a company holds, made through the API with its key:
 * grower, farm, field and boundary, a stored plan (by a guidance job) with
 * its zone, geometry group and route, a plan group, a share, machine,
 * operator, uploaded file, settings and a second API key.
 */
export async function makeCompanyObjects(
  base: string,
  k: { key: string; keyId: string; companyId: string; userId: string },
): Promise<Ids> {
  const key = k.key;
  const post = (path: string, body: unknown, status: number, type?: string) =>
    must(
      call(base, path, { key, body: typeof body === 'string' ? body : JSON.stringify(body), type }),
      status,
      path,
    );
  const ids: Ids = { companyId: k.companyId, userId: k.userId, id: k.keyId };
  ids.growerId = (
    await post(`/api/companies/${ids.companyId}/growers`, { name: 'Grower' }, 201)
  ).json.growerId;
  ids.farmId = (await post(`/api/growers/${ids.growerId}/farms`, { name: 'Farm' }, 201)).json.farmId;
  const saved = (await post('/api/fields/save', { farmId: ids.farmId, name: 'Field', boundary: RINGS }, 201))
    .json;
  ids.fieldId = saved.field.fieldId;
  ids.boundaryId = saved.vBoundary.boundaryId;
  const job = (await post('/api/guidance', { boundaryId: ids.boundaryId, request: PLAN_REQUEST }, 202)).json;
  ids.jobId = job.jobId;
  const done = await waitForJob(base, key, `/api/guidance/jobs/${ids.jobId}`);
  if (done.json?.status !== 'completed') throw new Error(`guidance job: ${done.text.slice(0, 300)}`);
  ids.pathPlanId = done.json.pathPlanIds[0];
  const model = (await must(call(base, `/api/path-plans-normalized/${ids.pathPlanId}`, { key }), 200, 'plan'))
    .json;
  ids.pathPlanZoneId = model.zones[0].zoneId;
  ids.geometryGroupId = model.zones[0].geometryGroups[0].geometryGroupId;
  ids.routeId = ids.geometryGroupId;
  ids.pathPlanGroupId = (
    await post('/api/path-plan-groups/group-plans', { name: 'Group', pathPlanIds: [ids.pathPlanId] }, 201)
  ).json.pathPlanGroupId;
  const exp = (
    await post('/api/path-plans-export', { pathPlanIds: [ids.pathPlanId], format: 'geojson' }, 202)
  ).json;
  const expDone = await waitForJob(base, key, `/api/path-plans-export/jobs/${exp.jobId}`);
  ids.batchId = expDone.json.batchId;
  const share = (await post('/api/shares/path-plan', { pathPlanId: ids.pathPlanId }, 201)).json;
  ids.shareId = share.shareId;
  ids.equipmentId = (
    await post(
      '/api/equipment',
      { companyId: ids.companyId, name: 'Sprayer', type: 'sprayer', swathWidth: 24, turningRadius: 7.5 },
      201,
    )
  ).json.equipmentId;
  ids.operatorId = (
    await post('/api/operators', { companyId: ids.companyId, name: 'Operator' }, 201)
  ).json.operatorId;
  ids.userFileId = (
    await post(
      `/api/companies/${ids.companyId}/user-files/file-upload?fileName=field.geojson`,
      JSON.stringify({ type: 'FeatureCollection', features: [] }),
      201,
      'application/geo+json',
    )
  ).json.userFileId;
  ids.settingId = (
    await post(`/api/companies/${ids.companyId}/settings`, { name: 'defaultSwathWidth', value: 24 }, 201)
  ).json.settingId;
  await post('/api/user-settings', { name: 'language', value: 'da' }, 201);
  return ids;
}

/** Reads of a company's objects with its key, for before/after comparison. */
export function companyReads(ids: Ids): string[] {
  return [
    '/api/user/current',
    '/api/user/current/companies',
    '/api/user-api-keys',
    `/api/companies/${ids.companyId}`,
    `/api/companies/${ids.companyId}/summary`,
    `/api/companies/${ids.companyId}/growers/detailed?archived=true`,
    `/api/companies/${ids.companyId}/farms`,
    `/api/companies/${ids.companyId}/fields-with-boundaries`,
    `/api/companies/${ids.companyId}/equipments?includeArchived=true`,
    `/api/companies/${ids.companyId}/operators?includeArchived=true`,
    `/api/companies/${ids.companyId}/user-files?includeHidden=true`,
    `/api/companies/${ids.companyId}/settings`,
    `/api/companies/${ids.companyId}/path-plan-groups/names`,
    `/api/users/${ids.userId}/settings`,
    `/api/fields/${ids.fieldId}`,
    `/api/fields/${ids.fieldId}/boundaries`,
    `/api/fields/${ids.fieldId}/path-plans/list?includeArchived=true`,
    `/api/path-plans/${ids.pathPlanId}/list-item`,
    `/api/path-plan-groups/${ids.pathPlanGroupId}`,
    `/api/shares/${ids.shareId}`,
    `/api/equipment/${ids.equipmentId}`,
    `/api/operators/${ids.operatorId}`,
    `/api/user-files/${ids.userFileId}/metadata`,
    `/api/settings/${ids.settingId}`,
  ];
}

/** What a company's key reads of its own objects (status and body per read). */
export async function snapshot(base: string, key: string, reads: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const p of reads) {
    const a = await call(base, p, { key });
    out[p] = { status: a.status, body: a.json ?? a.text };
  }
  return out;
}

/** Longest string a member of this name may hold anywhere in the document. */
export function maxLengths(doc: OpenApiDocument): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (s: unknown, name: string) => {
    if (!s || typeof s !== 'object') return;
    const o = s as Record<string, unknown>;
    if (o.type === 'string' && typeof o.maxLength === 'number' && name) {
      out.set(name, Math.max(out.get(name) ?? 0, o.maxLength));
    }
    for (const [k, v] of Object.entries(o)) {
      if (k === 'properties' && v && typeof v === 'object') {
        for (const [pk, pv] of Object.entries(v as Record<string, unknown>)) walk(pv, pk);
      } else if (k === 'parameters' && Array.isArray(v)) {
        for (const p of v as { name?: string; schema?: unknown }[]) walk(p.schema, p.name ?? '');
      } else if (typeof v === 'object') walk(v, k === 'items' || k === 'anyOf' || k === 'oneOf' ? name : '');
    }
  };
  walk(doc, '');
  return out;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const BIDI_RE = /[\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const EXTREMES = new Set([1e308, -1e308, 3e9]);
/** U+FFFD: what a lone surrogate becomes when it is encoded as UTF-8 on the way to the database. */
const REPLACEMENT = '\ufffd';

/** Stored junk in a read: each finding as `path: what`. */
export function junkIn(value: unknown, limits: Map<string, number>, where = ''): string[] {
  const out: string[] = [];
  const visit = (v: unknown, at: string, name: string) => {
    if (typeof v === 'string') {
      const max = limits.get(name);
      if (CONTROL_RE.test(v)) out.push(`${at}: control character in ${JSON.stringify(v.slice(0, 40))}`);
      const excerpt = JSON.stringify(v.slice(0, 40)).replace(
        /[\u202a-\u202e\u2066-\u2069]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16)}`,
      );
      if (LONE_SURROGATE_RE.test(v)) out.push(`${at}: lone surrogate in ${excerpt}`);
      if (v.includes(REPLACEMENT)) out.push(`${at}: U+FFFD (a lone surrogate stored replaced) in ${excerpt}`);
      if (BIDI_RE.test(v)) out.push(`${at}: bidi override in ${excerpt}`);
      if (v.length >= HUGE_LENGTH) out.push(`${at}: ${v.length} characters`);
      else if (max !== undefined && v.length > max) out.push(`${at}: ${v.length} characters, over ${max}`);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v) || EXTREMES.has(v)) out.push(`${at}: number ${v}`);
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => {
        visit(x, `${at}/${i}`, name);
      });
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) visit(x, `${at}/${k}`, k);
    }
  };
  visit(value, where, '');
  return out;
}

export interface Outcome {
  c: HostileCase;
  status: number;
  ms: number;
  text: string;
  /** Why the answer is wrong; undefined when it is fine. */
  failure?: string;
}

export interface RunOptions {
  base: string;
  key: string;
  /** A partner admin's key, for partner routes. */
  partnerKey?: string;
  /** Longest strings per member name (`maxLengths`). */
  limits?: Map<string, number>;
  /** Check health every this many requests (default 25). */
  batch?: number;
  timeoutMs?: number;
  healthMs?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface RunResult {
  outcomes: Outcome[];
  healthFailures: string[];
  /** Session tokens of accounts registered by the run (their stored names are checked too). */
  registered: string[];
}

/** Sends every case in order, judging each answer, with health checks between batches. */
export async function runCases(cases: HostileCase[], o: RunOptions): Promise<RunResult> {
  const outcomes: Outcome[] = [];
  const healthFailures: string[] = [];
  const registered: string[] = [];
  const batch = o.batch ?? 25;
  const timeoutMs = o.timeoutMs ?? 15_000;
  const healthMs = o.healthMs ?? 2_000;
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    const a = await call(o.base, c.url, {
      method: c.method,
      key: c.route.startsWith('POST /api/account/')
        ? undefined
        : c.asPartner
          ? (o.partnerKey ?? o.key)
          : o.key,
      body: c.body,
      type: c.contentType,
      timeoutMs: timeoutMs * 2,
    });
    let failure: string | undefined;
    if (a.status === 0) failure = `no answer: ${a.text}`;
    else if (a.status >= 500) failure = `${a.status}`;
    else if (a.status < 200 || (a.status >= 300 && a.status < 400)) failure = `unexpected ${a.status}`;
    else if (c.kind === 'cross' && a.status < 300) failure = `${a.status} for another company's id`;
    else if (a.ms > timeoutMs) failure = `answered after ${Math.round(a.ms)} ms`;
    else if (c.asPartner && c.kind === 'string' && a.status < 300) {
      // Partner records have no reads of their own: what the answer echoes is what was stored.
      const junk = junkIn(a.json, o.limits ?? new Map());
      if (junk.length) failure = `${a.status}, stored: ${junk.join('; ')}`;
    }
    if (a.status < 300 && typeof a.json?.accessToken === 'string') registered.push(a.json.accessToken);
    outcomes.push({ c, status: a.status, ms: a.ms, text: a.text.slice(0, 300), failure });
    if ((i + 1) % batch === 0 || i === cases.length - 1) {
      const h = await call(o.base, '/api/healthz', { timeoutMs: healthMs * 5 });
      if (h.status !== 200 || h.ms > healthMs) {
        healthFailures.push(
          `after request ${i + 1} (${c.route}): healthz ${h.status} in ${Math.round(h.ms)} ms`,
        );
      }
      o.onProgress?.(i + 1, cases.length);
    }
  }
  return { outcomes, healthFailures, registered };
}

/** Junk stored for the caller: in its company's objects and in accounts the run registered. */
export async function storedJunk(
  base: string,
  key: string,
  own: Ids,
  registered: string[],
  limits: Map<string, number>,
): Promise<string[]> {
  const out: string[] = [];
  const reads = companyReads(own);
  // Companies made by the run hold what was stored in them.
  const companies = await call(base, '/api/user/current/companies', { key });
  for (const c of Array.isArray(companies.json) ? companies.json : []) {
    const id = c?.companyId;
    if (typeof id === 'string' && id !== own.companyId) {
      reads.push(`/api/companies/${id}`, `/api/companies/${id}/growers/detailed?archived=true`);
    }
  }
  const growers = await call(base, `/api/companies/${own.companyId}/growers?archived=true`, { key });
  for (const g of Array.isArray(growers.json) ? growers.json : []) {
    if (typeof g?.growerId === 'string') reads.push(`/api/growers/${g.growerId}/fields-with-boundaries`);
  }
  for (const p of reads) {
    const a = await call(base, p, { key });
    if (a.status >= 500) out.push(`GET ${p}: ${a.status} ${a.text.slice(0, 200)}`);
    out.push(...junkIn(a.json, limits, `GET ${p}`));
  }
  for (const token of registered) {
    for (const p of ['/api/user/current', '/api/user/current/companies']) {
      const a = await call(base, p, { bearer: token });
      out.push(...junkIn(a.json, limits, `GET ${p} (registered account)`));
    }
  }
  return [...new Set(out)];
}

/** Counts per status class and per route, and the failures, as text. */
export function report(result: RunResult, extra: { storedJunk: string[]; otherChanged: string[] }): string {
  const byClass = new Map<string, number>();
  const byRoute = new Map<string, Map<string, number>>();
  for (const o of result.outcomes) {
    const cls = o.status === 0 ? 'none' : `${Math.floor(o.status / 100)}xx`;
    byClass.set(cls, (byClass.get(cls) ?? 0) + 1);
    const r = byRoute.get(o.c.route) ?? new Map<string, number>();
    r.set(cls, (r.get(cls) ?? 0) + 1);
    byRoute.set(o.c.route, r);
  }
  const lines: string[] = [];
  lines.push(`${result.outcomes.length} hostile requests over ${byRoute.size} routes`);
  lines.push(`by status class: ${[...byClass].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  lines.push('by route:');
  for (const [route, m] of [...byRoute].sort()) {
    lines.push(`  ${route.padEnd(80)} ${[...m].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  const failing = result.outcomes.filter((o) => o.failure);
  lines.push(`failing answers: ${failing.length}`);
  for (const o of failing) {
    lines.push(
      `  ${o.c.route} [${o.c.kind} ${o.c.slot} = ${o.c.value}]: ${o.failure} ${o.text.slice(0, 160)}`,
    );
  }
  lines.push(
    `health: ${result.healthFailures.length ? result.healthFailures.join('; ') : 'ok between every batch'}`,
  );
  lines.push(`stored junk: ${extra.storedJunk.length}`);
  for (const j of extra.storedJunk.slice(0, 200)) lines.push(`  ${j}`);
  lines.push(`other company changed: ${extra.otherChanged.length}`);
  for (const j of extra.otherChanged) lines.push(`  ${j}`);
  return lines.join('\n');
}

/** The reads of the other company that differ between two snapshots. */
export function changedReads(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys(before).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

export interface Prepared {
  doc: OpenApiDocument;
  a: { key: string; ids: Ids };
  b: { key: string; ids: Ids };
  /** A partner admin with a partner user and company named by the plain partner id. */
  partner: { key: string; partnerId: string };
  limits: Map<string, number>;
  /** The other company's reads before the run. */
  before: Record<string, unknown>;
}

/** Two companies with one of everything (A attacks, B is attacked), the document, and B's state. */
export async function prepare(
  base: string,
  makeKey: (opts?: {
    partnerAdmin?: boolean;
  }) => Promise<{ key: string; keyId: string; companyId: string; userId: string }>,
): Promise<Prepared> {
  // The generator walks schemas as plain trees: named components are inlined.
  const doc = inlineReferences(
    (await must(call(base, '/api/openapi.json'), 200, 'openapi')).json as OpenApiDocument,
  );
  const ka = await makeKey();
  const kb = await makeKey();
  const aIds = await makeCompanyObjects(base, ka);
  const bIds = await makeCompanyObjects(base, kb);
  const before = await snapshot(base, kb.key, companyReads(bIds));
  // The partner's user and company exist, so changes of one member at a time update them.
  const kp = await makeKey({ partnerAdmin: true });
  const partnerId = PARTNER_ID;
  const pPost = async (path: string, body: unknown) => {
    const a = await call(base, path, { key: kp.key, body: JSON.stringify(body) });
    if (a.status !== 200 && a.status !== 201) throw new Error(`${path}: ${a.status} ${a.text.slice(0, 300)}`);
  };
  await pPost('/api/partner/users', {
    partnerUserId: partnerId,
    email: `partner-${Date.now()}@example.org`,
    firstName: 'Partner',
    lastName: 'User',
  });
  await pPost('/api/partner/companies', { partnerCompanyId: partnerId, name: 'Partner farm' });
  await pPost('/api/partner/company-accesses', {
    partnerUserId: partnerId,
    partnerCompanyId: partnerId,
    role: 'admin',
  });
  return {
    doc,
    a: { key: ka.key, ids: aIds },
    b: { key: kb.key, ids: bIds },
    partner: { key: kp.key, partnerId },
    limits: maxLengths(doc),
    before,
  };
}

/** The partner id plain requests name (the first plain string the partner id pattern takes). */
const PARTNER_ID = 'Hostile test';

/** A session of the partner's user (launch and exchange), to read what partner routes stored. */
async function partnerUserSession(base: string, p: Prepared): Promise<string | null> {
  const l = await call(base, '/api/partner/launch', {
    key: p.partner.key,
    body: JSON.stringify({ userId: p.partner.partnerId }),
  });
  if (l.status >= 300) return null;
  const ex = await call(base, '/api/partner/launch/exchange', {
    body: JSON.stringify({ code: l.json.code, userId: l.json.userId }),
  });
  return ex.status < 300 ? ex.json.accessToken : null;
}

/** Runs cases and every check after it; `ok` when nothing failed. */
export async function runHostile(
  base: string,
  p: Prepared,
  cases: HostileCase[],
  onProgress?: (done: number, total: number) => void,
): Promise<{ result: RunResult; storedJunk: string[]; otherChanged: string[]; ok: boolean; text: string }> {
  const result = await runCases(cases, {
    base,
    key: p.a.key,
    partnerKey: p.partner.key,
    limits: p.limits,
    onProgress,
  });
  const partnerSession = await partnerUserSession(base, p);
  if (partnerSession) result.registered.push(partnerSession);
  const after = await snapshot(base, p.b.key, companyReads(p.b.ids));
  const otherChanged = changedReads(p.before, after).map(
    (k) => `${k}: ${JSON.stringify(p.before[k]).slice(0, 200)} -> ${JSON.stringify(after[k]).slice(0, 200)}`,
  );
  // Each finding names the request that stored it (by the tag in the hostile string).
  const byTag = new Map<string, HostileCase>();
  for (const c of cases) {
    const tag = /#(\d+)/.exec(c.value)?.[1];
    if (tag && !byTag.has(tag)) byTag.set(tag, c);
  }
  const junk = (await storedJunk(base, p.a.key, p.a.ids, result.registered, p.limits)).map((j) => {
    const c = byTag.get(/#(\d+)/.exec(j)?.[1] ?? '');
    return c ? `${j} <- ${c.route} ${c.slot}` : j;
  });
  const ok =
    result.outcomes.every((o) => !o.failure) &&
    result.healthFailures.length === 0 &&
    junk.length === 0 &&
    otherChanged.length === 0;
  return {
    result,
    storedJunk: junk,
    otherChanged,
    ok,
    text: report(result, { storedJunk: junk, otherChanged }),
  };
}
