/** Test support for the platform interface: a small fetch client with key or bearer credentials. */
import { expect } from 'vitest';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are inspected freely
  json: any;
}

export interface CallOptions {
  method?: string;
  key?: string | null;
  bearer?: string | null;
  body?: unknown;
  raw?: string | Uint8Array;
  type?: string;
  headers?: Record<string, string>;
}

export async function call(base: string, path: string, opts: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  let body: string | Uint8Array | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const res = await fetch(base + path, {
    method: opts.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body: body as BodyInit | undefined,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A client bound to a server and credentials. */
export function client(base: string, creds: { key?: string; bearer?: string }) {
  const c = (path: string, opts: CallOptions = {}) => call(base, path, { ...creds, ...opts });
  return {
    get: (path: string, opts: CallOptions = {}) => c(path, { ...opts, method: 'GET' }),
    post: (path: string, body?: unknown, opts: CallOptions = {}) =>
      c(path, { ...opts, method: 'POST', body }),
    put: (path: string, body?: unknown, opts: CallOptions = {}) => c(path, { ...opts, method: 'PUT', body }),
    del: (path: string, opts: CallOptions = {}) => c(path, { ...opts, method: 'DELETE' }),
    call: c,
  };
}

export type Client = ReturnType<typeof client>;

/** The events the request answered with `a` wrote in a company (its batch is the correlation id), as `reader` sees them. */
// biome-ignore lint/suspicious/noExplicitAny: test answers are inspected freely
export async function eventsOfRequest(reader: Client, companyId: string, a: Answer): Promise<any[]> {
  const batch = a.headers.get('x-correlation-id');
  expect(batch).toBeTruthy();
  const log = await reader.get(`/api/company-events/${companyId}`);
  expectOk(log);
  return log.json.items.filter((e: { batchId: string }) => e.batchId === batch);
}

export function expectError(a: Answer, status: number, errorCode: string): void {
  expect(a.status, a.text).toBe(status);
  expect(a.json?.errorCode, a.text).toBe(errorCode);
  expect(a.json.correlationId).toBe(a.headers.get('x-correlation-id'));
  expect(typeof a.json.message).toBe('string');
}

export function expectOk(a: Answer, status = 200): void {
  expect(a.status, a.text).toBe(status);
}

/** Uploads `data` as a user file of the company under `name`; the new file's id. */
export async function uploadFile(
  c: Client,
  companyId: string,
  data: Uint8Array | string,
  name: string,
): Promise<string> {
  const r = await c.call(`/api/companies/${companyId}/user-files/file-upload?fileName=${name}`, {
    method: 'POST',
    raw: data,
    type: 'application/octet-stream',
  });
  expectOk(r, 201);
  return r.json.userFileId;
}

/** A grower, farm and field with `rings` as its boundary, in the company; the boundary's id. */
export async function makeBoundary(
  c: Client,
  companyId: string,
  rings: number[][][],
  name = 'Field',
): Promise<string> {
  const g = await c.post(`/api/companies/${companyId}/growers`, { name: 'Grower' });
  const f = await c.post(`/api/growers/${g.json.growerId}/farms`, { name: 'Farm' });
  const s = await c.post('/api/fields/save', { farmId: f.json.farmId, name, boundary: rings });
  expectOk(s, 201);
  return s.json.vBoundary.boundaryId;
}

/** Polls a job until it has ended (neither queued nor running); its last answer's body. */
export async function waitForJob(c: Client, path: string, pollMs = 100): Promise<Record<string, any>> {
  for (let i = 0; i < 1200; i++) {
    const a = await c.get(path);
    expectOk(a);
    if (a.json.status !== 'queued' && a.json.status !== 'running') return a.json;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`job ${path} did not finish`);
}
