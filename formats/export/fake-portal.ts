/**
 * A vendor portal for tests: a real HTTP server on 127.0.0.1 that speaks the
 * contract of portals.ts. It checks the token, takes the zip, checks the
 * layout the export format promises, and moves each transfer from queued to
 * processing to completed (or failed, saying why) on successive polls.
 * Faults can be queued: the next requests answer with a given status.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unzipSync } from 'fflate';

export interface FakePortalUpload {
  transferId: string;
  fileName: string;
  format: string;
  organizationId?: string;
  zip: Uint8Array;
  /** Paths inside the zip. */
  entries: string[];
}

export interface FakePortal {
  url: string;
  uploads: FakePortalUpload[];
  /** Requests seen, as "METHOD path". */
  requests: string[];
  /** The next requests answer with these statuses (and Retry-After seconds) instead. */
  faults: { status: number; retryAfter?: number }[];
  close(): Promise<void>;
}

export interface FakePortalOptions {
  tokens: string[];
  /** Largest zip taken [bytes]; default 50 MB. */
  maxBytes?: number;
  /** Retry-After [s] sent while a transfer is processing; default 0. */
  retryAfter?: number;
  /** What GET /organizations answers (the vendor organizations the token may use); default none. */
  organizations?: { id: string; name: string }[];
  /** What GET /organizations/{id}/fields answers per organization (company sync); changeable between requests. */
  fields?: Record<string, unknown[]>;
}

/** What a zip must hold for a format, by the layout each export format documents. */
function layoutProblem(format: string, entries: string[]): string | undefined {
  const has = (re: RegExp) => entries.some((e) => re.test(e));
  if (format === 'vendor-a') {
    if (!has(/^TASKDATA\/TASKDATA\.XML$/)) return 'no TASKDATA/TASKDATA.XML in the zip';
    if (!has(/^Boundaries\/[^/]+\.shp$/)) return 'no boundary shapefile under Boundaries/';
    return undefined;
  }
  if (format === 'vendor-b')
    return has(/^TASKDATA\/TASKDATA\.XML$/) ? undefined : 'no TASKDATA/TASKDATA.XML in the zip';
  return `export format "${format}" is not taken by this portal`;
}

export async function startFakePortal(options: FakePortalOptions): Promise<FakePortal> {
  const maxBytes = options.maxBytes ?? 50 * 1024 * 1024;
  const transfers = new Map<string, { polls: number; problem?: string }>();
  const portal: FakePortal = { url: '', uploads: [], requests: [], faults: [], close: async () => {} };
  let next = 1;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const readBody = (req: IncomingMessage): Promise<Uint8Array | 'too large'> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= maxBytes) chunks.push(c);
      });
      req.on('end', () => resolve(size > maxBytes ? 'too large' : new Uint8Array(Buffer.concat(chunks))));
      req.on('error', reject);
    });

  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://portal').pathname;
    portal.requests.push(`${req.method} ${path}`);
    const fault = portal.faults.shift();
    if (fault) {
      await readBody(req);
      send(
        res,
        fault.status,
        { message: `injected ${fault.status}` },
        fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) },
      );
      return;
    }
    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!options.tokens.includes(token)) {
      await readBody(req);
      send(res, 401, { message: token ? 'the access token is not valid' : 'an access token is required' });
      return;
    }
    if (req.method === 'GET' && path === '/organizations') {
      send(res, 200, { organizations: options.organizations ?? [] });
      return;
    }
    const orgFields = /^\/organizations\/([^/]+)\/fields$/.exec(path);
    if (req.method === 'GET' && orgFields) {
      const list = options.fields?.[decodeURIComponent(orgFields[1])];
      if (!list) send(res, 404, { message: `no organization ${orgFields[1]}` });
      else send(res, 200, { fields: list });
      return;
    }
    if (req.method === 'POST' && path === '/files') {
      if (req.headers['content-type'] !== 'application/zip') {
        await readBody(req);
        send(res, 415, { message: 'Content-Type must be application/zip' });
        return;
      }
      const body = await readBody(req);
      if (body === 'too large') {
        send(res, 413, { message: `files are limited to ${maxBytes} bytes` });
        return;
      }
      let entries: string[];
      try {
        entries = Object.keys(unzipSync(body));
      } catch {
        send(res, 400, { message: 'the body is not a zip file' });
        return;
      }
      const transferId = `t${next++}`;
      const format = String(req.headers['x-export-format'] ?? '');
      const upload: FakePortalUpload = {
        transferId,
        fileName: decodeURIComponent(String(req.headers['x-file-name'] ?? '')),
        format,
        zip: body,
        entries,
      };
      const org = req.headers['x-organization-id'];
      if (typeof org === 'string') upload.organizationId = org;
      portal.uploads.push(upload);
      const problem = layoutProblem(format, entries);
      transfers.set(transferId, problem === undefined ? { polls: 0 } : { polls: 0, problem });
      send(res, 202, { transferId, status: 'queued' }, { location: `/files/${transferId}` });
      return;
    }
    const m = /^\/files\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && m) {
      const t = transfers.get(decodeURIComponent(m[1]));
      if (!t) {
        send(res, 404, { message: `no transfer ${m[1]}` });
        return;
      }
      t.polls++;
      if (t.polls === 1) {
        send(
          res,
          200,
          { transferId: m[1], status: 'processing' },
          { 'retry-after': String(options.retryAfter ?? 0) },
        );
      } else if (t.problem) {
        send(res, 200, { transferId: m[1], status: 'failed', message: t.problem });
      } else {
        send(res, 200, { transferId: m[1], status: 'completed' });
      }
      return;
    }
    send(res, 404, { message: `no route ${req.method} ${path}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  portal.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  portal.close = () =>
    new Promise((resolve, reject) => {
      server.close((e) => (e ? reject(e) : resolve()));
      server.closeAllConnections();
    });
  return portal;
}
