/**
 * An external OpenID Connect identity provider (a company's single sign-on,
 * say), configured by its discovery URL, a client id and secret:
 *   TRAMLINE_OIDC_DISCOVERY_URL   the issuer (or its /.well-known/openid-configuration URL)
 *   TRAMLINE_OIDC_CLIENT_ID       this service's client id there
 *   TRAMLINE_OIDC_CLIENT_SECRET   and secret
 *   TRAMLINE_OIDC_PROVIDER_NAME   the name clients use for it (default `oidc`)
 * The service is a confidential client of the provider (openid-client):
 * authorization code flow with PKCE and nonce, the code exchanged on the
 * server; ID tokens of native apps are verified against the provider's
 * keys. Discovery happens on first use and is retried after a failure, so
 * the provider may come up after the service. Plain http is accepted only
 * for a provider on a loopback address (development and tests).
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { ConfigError } from '../config.ts';

export interface ExternalIdpOptions {
  name: string;
  discoveryUrl: string;
  clientId: string;
  clientSecret: string;
}

/** What the provider says about the person. */
export interface ExternalClaims {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
}

export function externalIdpFromEnv(env: NodeJS.ProcessEnv = process.env): ExternalIdpOptions | undefined {
  const discoveryUrl = env.TRAMLINE_OIDC_DISCOVERY_URL || undefined;
  if (!discoveryUrl) return undefined;
  const clientId = env.TRAMLINE_OIDC_CLIENT_ID || '';
  const clientSecret = env.TRAMLINE_OIDC_CLIENT_SECRET || '';
  if (!clientId || !clientSecret)
    throw new ConfigError(
      'TRAMLINE_OIDC_DISCOVERY_URL is set: TRAMLINE_OIDC_CLIENT_ID and TRAMLINE_OIDC_CLIENT_SECRET are needed too.',
    );
  try {
    new URL(discoveryUrl);
  } catch {
    throw new ConfigError(`TRAMLINE_OIDC_DISCOVERY_URL must be a URL; found "${discoveryUrl}".`);
  }
  const name = env.TRAMLINE_OIDC_PROVIDER_NAME || 'oidc';
  if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(name))
    throw new ConfigError(
      `TRAMLINE_OIDC_PROVIDER_NAME must be 1 to 40 lower-case letters, digits and -; found "${name}".`,
    );
  return { name, discoveryUrl, clientId, clientSecret };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface ExternalIdp {
  name: string;
  /** The provider's authorization URL for a sign-in returning to `redirectUri`. */
  authorizationUrl(p: {
    redirectUri: string;
    state: string;
    nonce: string;
    codeVerifier: string;
  }): Promise<URL>;
  /** Exchanges the code of the callback URL; the person's claims from the verified ID token. */
  finish(
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<ExternalClaims>;
  /** Verifies an ID token issued to this service's client (signature, issuer, audience, expiry). */
  verifyIdToken(idToken: string): Promise<ExternalClaims>;
}

function claimsOf(c: Record<string, unknown>): ExternalClaims {
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
  return {
    subject: String(c.sub),
    email: str(c.email)?.toLowerCase() ?? null,
    emailVerified: c.email_verified === true,
    firstName: str(c.given_name),
    lastName: str(c.family_name),
  };
}

export function createExternalIdp(opts: ExternalIdpOptions): ExternalIdp {
  let config: Promise<oidc.Configuration> | undefined;
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const discoveryUrl = new URL(opts.discoveryUrl);
  const insecure = discoveryUrl.protocol === 'http:' && LOOPBACK.has(discoveryUrl.hostname);
  const configuration = (): Promise<oidc.Configuration> => {
    config ??= oidc
      .discovery(
        discoveryUrl,
        opts.clientId,
        { client_secret: opts.clientSecret },
        oidc.ClientSecretPost(opts.clientSecret),
        insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((err) => {
        config = undefined; // try again next time
        throw err;
      });
    return config;
  };

  return {
    name: opts.name,
    async authorizationUrl(p) {
      return oidc.buildAuthorizationUrl(await configuration(), {
        redirect_uri: p.redirectUri,
        scope: 'openid email profile',
        state: p.state,
        nonce: p.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(p.codeVerifier),
        code_challenge_method: 'S256',
      });
    },
    async finish(callbackUrl, checks) {
      const tokens = await oidc.authorizationCodeGrant(await configuration(), callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('the provider answered no ID token');
      // The userinfo endpoint may know more (e-mail, names) than the ID token.
      let extra: Record<string, unknown> = {};
      try {
        extra = await oidc.fetchUserInfo(await configuration(), tokens.access_token, claims.sub);
      } catch {
        extra = {};
      }
      return claimsOf({ ...extra, ...claims });
    },
    async verifyIdToken(idToken) {
      const meta = (await configuration()).serverMetadata();
      if (!meta.jwks_uri) throw new Error('the provider publishes no jwks_uri');
      jwks ??= createRemoteJWKSet(new URL(meta.jwks_uri));
      const { payload } = await jwtVerify(idToken, jwks, {
        issuer: meta.issuer,
        audience: opts.clientId,
      });
      return claimsOf(payload as Record<string, unknown>);
    },
  };
}
