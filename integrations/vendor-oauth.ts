/**
 * OAuth 2.0 authorization code flow with PKCE (RFC 6749, RFC 7636, S256)
 * against a vendor's authorization server, and the vendor settings it needs.
 *
 * Settings per vendor come from the environment (VENDOR = A, B or C):
 *   TRAMLINE_VENDOR_<VENDOR>_AUTHORIZE_URL   the authorization endpoint
 *   TRAMLINE_VENDOR_<VENDOR>_TOKEN_URL       the token endpoint
 *   TRAMLINE_VENDOR_<VENDOR>_API_URL         the vendor's API base (organizations, file transfers)
 *   TRAMLINE_VENDOR_<VENDOR>_CLIENT_ID, TRAMLINE_VENDOR_<VENDOR>_CLIENT_SECRET
 *   TRAMLINE_VENDOR_<VENDOR>_SCOPE           optional, space-separated
 * A vendor without all of the first five is not offered.
 *
 * The client authenticates at the token endpoint with HTTP Basic (client
 * id and secret); secrets and tokens are never logged or answered.
 */
import { createHash, randomBytes } from 'node:crypto';

export const VENDORS = ['vendor-a', 'vendor-b', 'vendor-c'] as const;
export type Vendor = (typeof VENDORS)[number];

export interface VendorSettings {
  authorizeUrl: string;
  tokenUrl: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
}

export type VendorSettingsMap = Partial<Record<Vendor, VendorSettings>>;

export function vendorSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): VendorSettingsMap {
  const out: VendorSettingsMap = {};
  for (const v of VENDORS) {
    const p = `TRAMLINE_VENDOR_${v.slice(-1).toUpperCase()}_`;
    const s = {
      authorizeUrl: env[`${p}AUTHORIZE_URL`],
      tokenUrl: env[`${p}TOKEN_URL`],
      apiUrl: env[`${p}API_URL`],
      clientId: env[`${p}CLIENT_ID`],
      clientSecret: env[`${p}CLIENT_SECRET`],
    };
    if (Object.values(s).every((x) => typeof x === 'string' && x.length > 0)) {
      out[v] = { ...(s as Omit<VendorSettings, 'scope'>), scope: env[`${p}SCOPE`] || undefined };
    }
  }
  return out;
}

/** A PKCE verifier (43 characters of base64url) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizationUrl(
  s: VendorSettings,
  p: { state: string; challenge: string; redirectUri: string },
): string {
  const u = new URL(s.authorizeUrl);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('client_id', s.clientId);
  u.searchParams.set('redirect_uri', p.redirectUri);
  u.searchParams.set('state', p.state);
  u.searchParams.set('code_challenge', p.challenge);
  u.searchParams.set('code_challenge_method', 'S256');
  if (s.scope) u.searchParams.set('scope', s.scope);
  return u.toString();
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  /** When the access token expires; null when the server did not say. */
  expiresAt: Date | null;
  scope: string | null;
}

export class VendorAuthError extends Error {
  readonly code: 'VENDOR_AUTH_REFUSED' | 'VENDOR_UNAVAILABLE';
  constructor(code: VendorAuthError['code'], message: string) {
    super(message);
    this.name = 'VendorAuthError';
    this.code = code;
  }
}

async function tokenRequest(
  s: VendorSettings,
  form: Record<string, string>,
  doFetch: typeof fetch,
  now: number,
): Promise<TokenSet> {
  let res: Response;
  try {
    res = await doFetch(s.tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(s.clientId)}:${encodeURIComponent(s.clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (e) {
    throw new VendorAuthError(
      'VENDOR_UNAVAILABLE',
      `The vendor's token endpoint did not answer (${(e as Error).name}).`,
    );
  }
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    body = {};
  }
  if (!res.ok || typeof body.access_token !== 'string') {
    if (res.status >= 500 || res.status === 429) {
      throw new VendorAuthError('VENDOR_UNAVAILABLE', `The vendor's token endpoint answered ${res.status}.`);
    }
    // The OAuth error code only: descriptions may echo what was sent.
    const code = typeof body.error === 'string' ? body.error.slice(0, 60) : `HTTP ${res.status}`;
    throw new VendorAuthError('VENDOR_AUTH_REFUSED', `The vendor refused the authorization (${code}).`);
  }
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(now + expiresIn * 1000) : null,
    scope: typeof body.scope === 'string' ? body.scope : null,
  };
}

export function exchangeCode(
  s: VendorSettings,
  p: { code: string; verifier: string; redirectUri: string },
  doFetch: typeof fetch = fetch,
  now = Date.now(),
): Promise<TokenSet> {
  return tokenRequest(
    s,
    {
      grant_type: 'authorization_code',
      code: p.code,
      redirect_uri: p.redirectUri,
      code_verifier: p.verifier,
    },
    doFetch,
    now,
  );
}

export async function refreshTokens(
  s: VendorSettings,
  refreshToken: string,
  doFetch: typeof fetch = fetch,
  now = Date.now(),
): Promise<TokenSet> {
  const t = await tokenRequest(s, { grant_type: 'refresh_token', refresh_token: refreshToken }, doFetch, now);
  // A server that does not rotate refresh tokens keeps the old one valid.
  return { ...t, refreshToken: t.refreshToken ?? refreshToken };
}
