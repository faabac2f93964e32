/**
 * Test support: a real OpenID Connect provider (oidc-provider) in this
 * process, on an ephemeral port of 127.0.0.1, with one confidential client
 * and people the test adds. Its sign-in interaction signs in the person the
 * test chose (`signInAs`) and grants the scopes asked for, in place of the
 * provider's own login and consent forms; everything else (discovery, keys,
 * authorization codes, PKCE, tokens, userinfo) is the provider's.
 * `browse` follows redirects with cookies, as a browser would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface Person {
  sub: string;
  email?: string;
  emailVerified?: boolean;
  givenName?: string;
  familyName?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  provider: Provider;
  addPerson(p: Person): void;
  signInAs(sub: string): void;
  close(): Promise<void>;
}

export async function startOidcProvider(redirectUris: string[]): Promise<TestOidcProvider> {
  const people = new Map<string, Person>();
  let current: string | undefined;
  let provider: Provider | undefined;
  const server: Server = createServer((req, res) => {
    if (!provider) {
      res.statusCode = 503;
      res.end();
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      interact(provider, req, res).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'tramline';
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;

  async function interact(
    p: Provider,
    req: Parameters<Provider['interactionDetails']>[0],
    res: Parameters<Provider['interactionDetails']>[1],
  ) {
    const details = await p.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      if (!current) throw new Error('signInAs was not called');
      await p.interactionFinished(
        req,
        res,
        { login: { accountId: current } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    const grant = new p.Grant({
      accountId: details.session!.accountId,
      clientId: String(details.params.client_id),
    });
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await p.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-signing-key' };
  provider = new Provider(issuer, {
    jwks: { keys: [signingKey as never] },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    cookies: { keys: ['tramline-test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    features: { devInteractions: { enabled: false } },
    // The ID token carries the scopes' claims too (e-mail, names), as many providers do.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: {
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      AccessToken: 600,
      IdToken: 600,
      AuthorizationCode: 60,
    },
    async findAccount(_ctx, sub) {
      const person = people.get(sub);
      if (!person) return undefined;
      return {
        accountId: sub,
        async claims() {
          return {
            sub,
            ...(person.email ? { email: person.email, email_verified: person.emailVerified ?? false } : {}),
            ...(person.givenName ? { given_name: person.givenName } : {}),
            ...(person.familyName ? { family_name: person.familyName } : {}),
          };
        },
      };
    },
  });
  const p = provider;
  return {
    issuer,
    clientId,
    clientSecret,
    provider: p,
    addPerson: (person) => people.set(person.sub, person),
    signInAs: (sub) => {
      current = sub;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Follows redirects from `url` with a cookie jar until a URL on `until` (an origin and path prefix); that URL. */
export async function browse(url: string, until: string, maxSteps = 20): Promise<URL> {
  const jar = new Map<string, string>();
  let next = new URL(url);
  for (let i = 0; i < maxSteps; i++) {
    if (next.href.startsWith(until)) return next;
    const res = await fetch(next, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';', 1);
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location)
      throw new Error(`stopped at ${next.href}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    next = new URL(location, next);
  }
  throw new Error(`more than ${maxSteps} redirects`);
}
