/**
 * Transmission of exports to vendor portals (the farm-software clouds that
 * pass files on to the displays): a connector uploads a zip with an auth
 * token and polls the transfer until the portal has taken or refused it.
 *
 * HTTP contract (both portals; paths relative to the portal's base URL):
 *
 *   POST /files                          upload
 *     Authorization: Bearer <token>
 *     Content-Type: application/zip
 *     X-File-Name: <file name of the zip>
 *     X-Export-Format: vendor-a | vendor-b        (the layout inside the zip)
 *     X-Organization-Id: <id>                     (when the connector has one)
 *     body: the zip
 *     -> 201 or 202 { transferId, status, message? }   (Location: /files/<transferId>)
 *
 *   GET /files/{transferId}             poll
 *     Authorization: Bearer <token>
 *     -> 200 { transferId, status, message? }     Retry-After: <seconds> (optional)
 *
 *   status: queued | processing | completed | failed
 *     (completed: the portal has the file for the organization's displays;
 *      failed: refused, `message` says why)
 *
 *   Errors: 401/403 -> PORTAL_UNAUTHORIZED (token missing, wrong or expired);
 *   413 -> PORTAL_FILE_TOO_LARGE; 429 and 5xx -> retried with the
 *   Retry-After delay or exponential backoff (at most `retries` times), then
 *   PORTAL_UNAVAILABLE; other 4xx -> PORTAL_REJECTED with the portal's message;
 *   no answer -> PORTAL_UNAVAILABLE; polling past `timeoutMs` -> PORTAL_TIMEOUT.
 *
 * Connectors use the global fetch (Node 18+, browsers); nothing here touches
 * the store.
 */
import { exportPlans } from './index.ts';
import type { ExportPlan } from './types.ts';

export const PORTALS = ['vendor-a', 'vendor-b'] as const;
export type PortalId = (typeof PORTALS)[number];

export const PORTAL_NAMES: Record<PortalId, string> = {
  'vendor-a': 'John Deere Operations Center',
  'vendor-b': 'CNH (Case IH AFS Connect / New Holland)',
};

export type TransferStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface PortalTransfer {
  portal: PortalId;
  transferId: string;
  status: TransferStatus;
  /** The portal's words, for failures. */
  message?: string;
  fileName: string;
}

export type PortalErrorCode =
  | 'PORTAL_UNAUTHORIZED'
  | 'PORTAL_FILE_TOO_LARGE'
  | 'PORTAL_REJECTED'
  | 'PORTAL_UNAVAILABLE'
  | 'PORTAL_TIMEOUT'
  | 'PORTAL_BAD_RESPONSE';

export class PortalError extends Error {
  readonly code: PortalErrorCode;
  /** HTTP status of the portal's answer, when there was one. */
  readonly status?: number;
  constructor(code: PortalErrorCode, message: string, status?: number) {
    super(message);
    this.name = 'PortalError';
    this.code = code;
    if (status !== undefined) this.status = status;
  }
}

export interface PortalConfig {
  /** Base URL of the portal's file API, e.g. https://portal.example/api/v1 (no trailing slash needed). */
  baseUrl: string;
  /** The user's or organization's access token. */
  token: string;
  organizationId?: string;
  /** Polling interval when the portal gives no Retry-After [ms]; default 5000 (the interval the spec asks of pollers). */
  pollIntervalMs?: number;
  /** Give up polling after [ms]; default 10 minutes. */
  timeoutMs?: number;
  /** Retries of 429 and 5xx answers; default 4. */
  retries?: number;
  /** First backoff delay [ms], doubled per retry; default 1000. */
  backoffMs?: number;
  /** For tests and other runtimes. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

export interface PortalConnector {
  readonly portal: PortalId;
  /** Uploads a zip; resolves when the portal has accepted it for processing. */
  upload(file: { fileName: string; zip: Uint8Array }): Promise<PortalTransfer>;
  /** The transfer's status now. */
  status(transferId: string, fileName?: string): Promise<PortalTransfer>;
  /** Polls until completed or failed (resolves either way; throws on timeout or errors). */
  waitUntilDone(transfer: PortalTransfer): Promise<PortalTransfer>;
}

const STATUSES: readonly TransferStatus[] = ['queued', 'processing', 'completed', 'failed'];

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Seconds of a Retry-After header (a number or an HTTP date), in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const s = Number(value);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const t = Date.parse(value);
  return Number.isFinite(t) ? Math.max(0, t - now) : undefined;
}

export function createPortalConnector(portal: PortalId, config: PortalConfig): PortalConnector {
  const base = config.baseUrl.replace(/\/+$/, '');
  const doFetch = config.fetch ?? fetch;
  const sleep = config.sleep ?? defaultSleep;
  const retries = config.retries ?? 4;
  const backoff = config.backoffMs ?? 1000;
  const pollInterval = config.pollIntervalMs ?? 5000;
  const timeout = config.timeoutMs ?? 600_000;
  const name = PORTAL_NAMES[portal];
  /** Retry-After of the last poll per transfer (the next poll waits that long). */
  const lastRetryAfter = new Map<string, number>();

  async function request(method: 'GET' | 'POST', path: string, init: RequestInit): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await doFetch(`${base}${path}`, { ...init, method });
      } catch (e) {
        if (attempt >= retries) {
          throw new PortalError('PORTAL_UNAVAILABLE', `${name} did not answer: ${(e as Error).message}`);
        }
        await sleep(backoff * 2 ** attempt);
        continue;
      }
      if (res.status === 429 || res.status >= 500) {
        if (attempt >= retries) {
          throw new PortalError(
            'PORTAL_UNAVAILABLE',
            `${name} answered ${res.status} ${await detail(res)} after ${retries + 1} attempts`,
            res.status,
          );
        }
        await res.body?.cancel();
        await sleep(retryAfterMs(res.headers.get('retry-after')) ?? backoff * 2 ** attempt);
        continue;
      }
      if (res.status === 401 || res.status === 403) {
        throw new PortalError(
          'PORTAL_UNAUTHORIZED',
          `${name} refused the access token (${res.status}): ${await detail(res)}`,
          res.status,
        );
      }
      if (res.status === 413) {
        throw new PortalError('PORTAL_FILE_TOO_LARGE', `${name} refused the file as too large`, 413);
      }
      if (res.status >= 400) {
        throw new PortalError(
          'PORTAL_REJECTED',
          `${name} refused the request (${res.status}): ${await detail(res)}`,
          res.status,
        );
      }
      return res;
    }
  }

  async function transfer(res: Response, fileName: string): Promise<PortalTransfer> {
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new PortalError(
        'PORTAL_BAD_RESPONSE',
        `${name} answered ${res.status} without a JSON body`,
        res.status,
      );
    }
    const b = body as { transferId?: unknown; status?: unknown; message?: unknown };
    if (typeof b.transferId !== 'string' || !b.transferId || !STATUSES.includes(b.status as TransferStatus)) {
      throw new PortalError(
        'PORTAL_BAD_RESPONSE',
        `${name} answered without a transferId and a status of ${STATUSES.join(', ')}: ${JSON.stringify(body).slice(0, 200)}`,
        res.status,
      );
    }
    const t: PortalTransfer = {
      portal,
      transferId: b.transferId,
      status: b.status as TransferStatus,
      fileName,
    };
    if (typeof b.message === 'string') t.message = b.message;
    return t;
  }

  const auth = { authorization: `Bearer ${config.token}` };

  return {
    portal,
    async upload(file) {
      const headers: Record<string, string> = {
        ...auth,
        'content-type': 'application/zip',
        'x-file-name': encodeURIComponent(file.fileName),
        'x-export-format': portal,
      };
      if (config.organizationId) headers['x-organization-id'] = config.organizationId;
      // A Blob over the bytes: fetch takes it whatever buffer the array views.
      const body = new Blob([file.zip as Uint8Array<ArrayBuffer>], { type: 'application/zip' });
      const res = await request('POST', '/files', { headers, body });
      return transfer(res, file.fileName);
    },
    async status(transferId, fileName = '') {
      const res = await request('GET', `/files/${encodeURIComponent(transferId)}`, { headers: auth });
      const t = await transfer(res, fileName);
      const wait = retryAfterMs(res.headers.get('retry-after'));
      if (wait !== undefined) lastRetryAfter.set(transferId, wait);
      return t;
    },
    async waitUntilDone(t) {
      let current = t;
      let waited = 0;
      while (current.status === 'queued' || current.status === 'processing') {
        const wait = lastRetryAfter.get(current.transferId) ?? pollInterval;
        if (waited + wait > timeout) {
          throw new PortalError(
            'PORTAL_TIMEOUT',
            `${name} had not finished transfer ${current.transferId} after ${Math.round(waited / 1000)} s (status ${current.status})`,
          );
        }
        await sleep(wait);
        waited += wait;
        current = await this.status(current.transferId, current.fileName);
      }
      lastRetryAfter.delete(current.transferId);
      return current;
    },
  };
}

async function detail(res: Response): Promise<string> {
  try {
    const text = await res.text();
    try {
      const j = JSON.parse(text) as { message?: unknown; error?: unknown };
      if (typeof j.message === 'string') return j.message;
      if (typeof j.error === 'string') return j.error;
    } catch {
      // not JSON
    }
    return text.slice(0, 200) || res.statusText;
  } catch {
    return res.statusText;
  }
}

/** Exports the plans in the portal's layout, uploads the zip and waits for the portal's verdict. */
export async function transmitPlans(
  plans: ExportPlan[],
  portal: PortalId,
  config: PortalConfig,
): Promise<PortalTransfer> {
  const file = await exportPlans(plans, portal);
  const connector = createPortalConnector(portal, config);
  return connector.waitUntilDone(await connector.upload(file));
}
