/**
 * Calls to a vendor on a company's behalf: the access token of its link,
 * refreshed shortly before it expires (and stored again, sealed), and the
 * organizations the account granted.
 *
 * Vendor API (relative to the vendor's API base URL):
 *   GET /organizations   Authorization: Bearer <token>
 *     -> 200 { organizations: [{ id, name }] }   (or a bare array)
 */
import type { VendorConnectionsRepository } from '../store/repositories/vendor-connections.ts';
import { refreshTokens, type Vendor, VendorAuthError, type VendorSettingsMap } from './vendor-oauth.ts';

/** Refresh when the access token has less than this left [ms]. */
export const REFRESH_MARGIN_MS = 120_000;

export class VendorNotConnectedError extends Error {
  readonly code = 'VENDOR_NOT_CONNECTED';
  constructor(vendor: string, companyId: string) {
    super(`Company ${companyId} has no ${vendor} account linked; link one first.`);
    this.name = 'VendorNotConnectedError';
  }
}

export function createVendorAccounts(opts: {
  connections: VendorConnectionsRepository;
  vendors: VendorSettingsMap;
  fetch?: typeof fetch;
  now?: () => number;
}) {
  const doFetch = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;

  const settingsOf = (vendor: Vendor) => {
    const s = opts.vendors[vendor];
    if (!s) throw new VendorAuthError('VENDOR_AUTH_REFUSED', `${vendor} is not configured on this server.`);
    return s;
  };

  return {
    /** A valid access token of the company's link, refreshed first when it is about to expire. */
    async accessToken(companyId: string, vendor: Vendor): Promise<string> {
      const t = await opts.connections.tokens(companyId, vendor);
      if (!t) throw new VendorNotConnectedError(vendor, companyId);
      if (t.expiresAt === null || t.expiresAt.getTime() - now() > REFRESH_MARGIN_MS) return t.accessToken;
      if (!t.refreshToken) {
        if (t.expiresAt.getTime() > now()) return t.accessToken;
        throw new VendorAuthError(
          'VENDOR_AUTH_REFUSED',
          `The ${vendor} link has expired; link the account again.`,
        );
      }
      const fresh = await refreshTokens(settingsOf(vendor), t.refreshToken, doFetch, now());
      await opts.connections.updateTokens(companyId, vendor, fresh);
      return fresh.accessToken;
    },

    /** The vendor's organizations the account granted. */
    async organizations(companyId: string, vendor: Vendor): Promise<{ id: string; name: string }[]> {
      const token = await this.accessToken(companyId, vendor);
      const base = settingsOf(vendor).apiUrl.replace(/\/+$/, '');
      let res: Response;
      try {
        res = await doFetch(`${base}/organizations`, {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
          signal: AbortSignal.timeout(15_000),
        });
      } catch (e) {
        throw new VendorAuthError('VENDOR_UNAVAILABLE', `${vendor} did not answer (${(e as Error).name}).`);
      }
      if (res.status === 401 || res.status === 403) {
        throw new VendorAuthError(
          'VENDOR_AUTH_REFUSED',
          `${vendor} refused the access token (${res.status}).`,
        );
      }
      if (!res.ok) throw new VendorAuthError('VENDOR_UNAVAILABLE', `${vendor} answered ${res.status}.`);
      const body = (await res.json().catch(() => null)) as unknown;
      const list = Array.isArray(body) ? body : (body as { organizations?: unknown })?.organizations;
      if (!Array.isArray(list)) return [];
      return list.flatMap((o) => {
        const r = o as { id?: unknown; name?: unknown };
        return typeof r.id === 'string' || typeof r.id === 'number'
          ? [{ id: String(r.id), name: typeof r.name === 'string' ? r.name : String(r.id) }]
          : [];
      });
    },
  };
}

export type VendorAccounts = ReturnType<typeof createVendorAccounts>;
