/**
 * OAuth 2.0 (RFC 6749) for clients registered with the service
 * (api/account/oauth-clients.ts):
 *   GET  /oauth/authorize                  the consent page (sign-in first through /login)
 *   POST /api/oauth/initiate               (signed in) the user lets the client in: an authorization code
 *   POST /api/account/token                the token endpoint: authorization_code with PKCE S256 (RFC 7636),
 *                                          refresh_token (rotated; reuse ends the session), client_credentials
 *   GET  /api/oauth/users/{userId}/companies  companies of a user who let the calling client in (or yourself)
 *   GET  /api/oauth/users-companies        every user who let the calling client in, with their companies
 *   GET  /.well-known/oauth-authorization-server  the server metadata (RFC 8414)
 * Access tokens are the service's session tokens: send them as
 * `Authorization: Bearer` wherever an API key works. The token endpoint
 * speaks the wire format of RFC 6749 (form-encoded requests, snake_case
 * answers, `error` codes), so standard OAuth client libraries work.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { OAuthClient } from '../../store/repositories/oauth.ts';
import { type AccountContext, TOKEN_TTL } from '../account/context.ts';
import { verifyPassword } from '../auth/passwords.ts';
import { SESSION_TTL_SECONDS } from '../auth/tokens.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { withHeaders } from '../openapi/responses.ts';
import { refreshSession } from './account.ts';
import { sendPage } from './account-pages.ts';
import { answers, idParams, notFound, principalOf, Uuid } from './common.ts';
import { ownOrigins } from './web.ts';

/** Lifetime of a client_credentials token [s]; no refresh token comes with it. */
const CLIENT_TOKEN_TTL_SECONDS = 3600;

const oauthError = (status: number, error: string, description: string) =>
  new ApiError(status, error, description, { error, error_description: description });

const Str = (d: string, max = 2048) => Type.String({ minLength: 1, maxLength: max, description: d });

const TokenRequest = named(
  'OAuthTokenRequest',
  Type.Object(
    {
      grant_type: Type.Union(
        [
          Type.Literal('authorization_code'),
          Type.Literal('refresh_token'),
          Type.Literal('client_credentials'),
        ],
        { description: 'The grant.' },
      ),
      code: Type.Optional(Str('authorization_code: the code from the redirect.')),
      redirect_uri: Type.Optional(Str('authorization_code: the redirect URI of the authorization request.')),
      code_verifier: Type.Optional(
        Type.String({
          minLength: 43,
          maxLength: 128,
          pattern: '^[A-Za-z0-9._~-]+$',
          description:
            'authorization_code: the PKCE verifier whose S256 challenge the authorization request sent.',
        }),
      ),
      refresh_token: Type.Optional(Str('refresh_token: the refresh token of the last answer.', 512)),
      client_id: Type.Optional(Str('The client (or HTTP Basic authentication).', 200)),
      client_secret: Type.Optional(
        Str('A confidential client’s secret (or HTTP Basic authentication).', 200),
      ),
      scope: Type.Optional(Str('Ignored: a token can do what its user can.', 500)),
    },
    { additionalProperties: true },
  ),
);

const TokenResponse = named(
  'OAuthTokenResponse',
  Type.Object({
    access_token: Type.String({ description: 'Send as `Authorization: Bearer <access_token>`.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds the access token is valid.' }),
    refresh_token: Type.Optional(
      Type.String({ description: 'Single use; not given for client_credentials.' }),
    ),
    scope: Type.String(),
    user_id: Uuid('The user the token acts for.'),
  }),
);

const OAuthErrorResponse = named(
  'OAuthErrorResponse',
  Type.Object({
    error: Type.String({
      description:
        'RFC 6749 5.2: invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type.',
    }),
    error_description: Type.String(),
    correlationId: Type.String(),
    errorCode: Type.String({ description: 'The same as `error`.' }),
    message: Type.String({ description: 'The same as `error_description`.' }),
  }),
);

const InitiateRequest = named(
  'OAuthInitiateRequest',
  Type.Object(
    {
      clientId: Str('The registered client.', 200),
      redirectUri: Str('One of the client’s registered redirect URIs, exactly.'),
      codeChallenge: Type.String({
        minLength: 43,
        maxLength: 128,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'BASE64URL(SHA-256(code_verifier)) (RFC 7636).',
      }),
      codeChallengeMethod: Type.Literal('S256', { description: 'Only S256; plain is not accepted.' }),
      state: Type.Optional(Str('Handed back unchanged in the redirect.', 1024)),
      scope: Type.Optional(Str('Recorded with the grant.', 500)),
    },
    { additionalProperties: false },
  ),
);

const InitiateResponse = named(
  'OAuthInitiateResponse',
  Type.Object({
    code: Type.String({ description: 'The authorization code: once, for 2 minutes.' }),
    state: Type.Union([Type.String(), Type.Null()]),
    redirectUri: Type.String({
      description: 'Where to send the browser: the redirect URI with code and state.',
    }),
    expiresIn: Type.Integer(),
  }),
);

const CompanyOfUser = Type.Object({
  companyId: Uuid('The company.'),
  name: Type.String(),
  role: Type.String({ description: "The user's role in it." }),
});

const OAuthUserCompanies = named(
  'OAuthUserCompanies',
  Type.Object({
    userId: Uuid('The user.'),
    email: Type.Union([Type.String(), Type.Null()]),
    firstName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    companies: Type.Array(CompanyOfUser),
  }),
);

const OAuthUsersCompanies = named(
  'OAuthUsersCompanies',
  Type.Object({
    clientId: Type.Union([Type.String(), Type.Null()], {
      description: 'The client of the token; null for credentials of the user’s own.',
    }),
    users: Type.Array(OAuthUserCompanies),
  }),
);

const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Client credentials from HTTP Basic (RFC 6749 2.3.1) or the body. */
function clientCredentials(req: FastifyRequest, body: { client_id?: string; client_secret?: string }) {
  const h = req.headers.authorization;
  if (typeof h === 'string' && /^Basic /i.test(h)) {
    const raw = Buffer.from(h.slice(6).trim(), 'base64').toString('utf8');
    const i = raw.indexOf(':');
    if (i < 0)
      throw oauthError(401, 'invalid_client', 'HTTP Basic credentials must be client_id:client_secret.');
    return {
      clientId: decodeURIComponent(raw.slice(0, i)),
      secret: decodeURIComponent(raw.slice(i + 1)) as string | undefined,
    };
  }
  return { clientId: body.client_id, secret: body.client_secret };
}

export async function oauthRoutes(app: FastifyInstance, ctx: AccountContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store, tokens } = ctx;

  // RFC 6749 token requests are form-encoded (this plugin's routes only).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  /** The RFC 6749 answer: an access token of the session (and its refresh token, when there is one). */
  const tokenAnswer = async (
    sessionId: string,
    userId: string,
    refreshToken: string | undefined,
    scope: string,
  ) => {
    const t = await tokens.issue(sessionId, userId);
    return {
      access_token: t.accessToken,
      token_type: 'Bearer' as const,
      expires_in: t.expiresIn,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope,
      user_id: userId,
    };
  };

  /** The client, authenticated when it has a secret (or when `needSecret`). */
  const authenticateClient = async (
    req: FastifyRequest,
    body: { client_id?: string; client_secret?: string },
    needSecret: boolean,
  ): Promise<OAuthClient> => {
    const { clientId, secret } = clientCredentials(req, body);
    if (!clientId) throw oauthError(401, 'invalid_client', 'client_id is missing.');
    const client = await store.oauth.getClient(clientId);
    if (!client) throw oauthError(401, 'invalid_client', 'Unknown client.');
    if (client.secretHash || needSecret) {
      if (!secret || !(await verifyPassword(secret, client.secretHash)))
        throw oauthError(401, 'invalid_client', 'The client secret is missing or wrong.');
    }
    return client;
  };

  r.post(
    '/api/account/token',
    {
      schema: {
        tags: ['Account'],
        summary: 'OAuth 2.0 token endpoint',
        description:
          'RFC 6749 token requests, form-encoded (JSON also accepted), answered in the RFC’s snake_case. authorization_code: the code from POST /api/oauth/initiate with its redirect_uri, client_id and the PKCE code_verifier (S256); refresh_token: single use, rotated; a used one coming back ends the session; client_credentials: a confidential client’s id and secret (HTTP Basic or body), for a token of its service user, 1 hour, no refresh token. Errors: 400 with `error` invalid_request, invalid_grant or unauthorized_client; 401 invalid_client. No API key needed.',
        security: [],
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: TokenRequest,
        response: {
          ...answers({ 200: { schema: TokenResponse, description: 'Tokens.' } }),
          400: withHeaders(OAuthErrorResponse, 'invalid_request, invalid_grant or unauthorized_client.'),
          401: withHeaders(OAuthErrorResponse, 'invalid_client.'),
        } as Record<number, unknown>,
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const b = req.body;
      if (b.grant_type === 'authorization_code') {
        if (!b.code || !b.redirect_uri || !b.code_verifier)
          throw oauthError(400, 'invalid_request', 'code, redirect_uri and code_verifier are needed.');
        const client = await authenticateClient(req, b, false);
        const used = await store.userAccounts.useToken(b.code, 'oauth-code');
        const d = (used?.data ?? {}) as {
          clientId?: string;
          redirectUri?: string;
          codeChallenge?: string;
          scope?: string;
        };
        if (
          !used ||
          d.clientId !== client.clientId ||
          d.redirectUri !== b.redirect_uri ||
          typeof d.codeChallenge !== 'string' ||
          !sameText(s256(b.code_verifier), d.codeChallenge)
        )
          throw oauthError(
            400,
            'invalid_grant',
            'The code is unknown, used, expired, of another client or redirect URI, or the code_verifier does not match its challenge.',
          );
        const s = await store.sessions.create(used.userId, 'oauth', SESSION_TTL_SECONDS, (sid) =>
          tokens.newRefreshToken(sid),
        );
        await store.oauth.bindSession(s.sessionId, client.clientId);
        return tokenAnswer(s.sessionId, used.userId, s.refreshToken, d.scope ?? '');
      }
      if (b.grant_type === 'refresh_token') {
        if (!b.refresh_token) throw oauthError(400, 'invalid_request', 'refresh_token is needed.');
        const client = await authenticateClient(req, b, false);
        const sessionId = tokens.refreshTokenSession(b.refresh_token);
        if (!sessionId || (await store.oauth.clientOfSession(sessionId)) !== client.clientId)
          throw oauthError(400, 'invalid_grant', 'The refresh token is not one of this client.');
        const s = await refreshSession(store, tokens, b.refresh_token);
        if (s === 'reused') {
          req.log.warn({ clientId: client.clientId }, 'a used refresh token came back; the session is ended');
          throw oauthError(400, 'invalid_grant', 'The refresh token was used already; the session is ended.');
        }
        if (!s) throw oauthError(400, 'invalid_grant', 'The refresh token is unknown, expired or revoked.');
        return tokenAnswer(s.sessionId, s.userId, s.refreshToken, '');
      }
      const client = await authenticateClient(req, b, true);
      if (!client.serviceUserId)
        throw oauthError(400, 'unauthorized_client', 'This client has no service user to act as.');
      const s = await store.sessions.create(client.serviceUserId, 'client', CLIENT_TOKEN_TTL_SECONDS);
      await store.oauth.bindSession(s.sessionId, client.clientId);
      return tokenAnswer(s.sessionId, client.serviceUserId, undefined, '');
    },
  );

  /** The registered client and redirect URI of a request; null when either is not registered. */
  const registered = async (clientId: string, redirectUri: string) => {
    const client = await store.oauth.getClient(clientId);
    return client?.redirectUris.includes(redirectUri) ? client : null;
  };

  r.post(
    '/api/oauth/initiate',
    {
      schema: {
        tags: ['Account'],
        summary: 'Let an OAuth client act for you (authorization request)',
        description:
          'What the consent page (GET /oauth/authorize) sends when the signed-in user allows the client: answers an authorization code (once, 2 minutes) and the redirect URI to send the browser to, with code and state. The client exchanges the code at POST /api/account/token with its PKCE verifier. 400 INVALID_CLIENT for an unknown client or a redirect URI it did not register.',
        body: InitiateRequest,
        response: answers({ 200: { schema: InitiateResponse, description: 'Allowed.' } }, 400),
      },
    },
    async (req) => {
      const p = principalOf(req);
      const b = req.body;
      const client = await registered(b.clientId, b.redirectUri);
      if (!client)
        throw new ApiError(
          400,
          'INVALID_CLIENT',
          `No registered client ${b.clientId} with the redirect URI ${b.redirectUri}.`,
        );
      await store.oauth.grant(client.clientId, p.userId, b.scope ?? '');
      const made = await store.userAccounts.issueToken(p.userId, 'oauth-code', TOKEN_TTL.oauthCode, {
        data: {
          clientId: client.clientId,
          redirectUri: b.redirectUri,
          codeChallenge: b.codeChallenge,
          scope: b.scope ?? '',
        },
        keepOthers: true,
      });
      if (!made) throw new Error('a new authorization code clashed');
      const to = new URL(b.redirectUri);
      to.searchParams.set('code', made.token);
      if (b.state !== undefined) to.searchParams.set('state', b.state);
      return {
        code: made.token,
        state: b.state ?? null,
        redirectUri: to.href,
        expiresIn: TOKEN_TTL.oauthCode,
      };
    },
  );

  const userCompanies = async (userId: string) => {
    const u = await store.accounts.findUserById(userId);
    if (!u) return null;
    const companies = await store.accounts.listAccesses(userId);
    return {
      userId,
      email: u.email,
      firstName: u.firstName,
      lastName: u.lastName,
      companies: companies.map((c) => ({ companyId: c.companyId, name: c.companyName, role: c.role })),
    };
  };

  /** The OAuth client the request's token was issued to (null: the user's own credentials). */
  const callerClient = async (req: FastifyRequest) => {
    const p = principalOf(req);
    return p.kind === 'session' ? store.oauth.clientOfSession(p.keyId) : null;
  };

  r.get(
    '/api/oauth/users/:userId/companies',
    {
      schema: {
        tags: ['Account'],
        summary: 'Companies of a user who let the client in',
        description:
          'With a token of an OAuth client: a user who allowed that client (else 404). With your own credentials: yourself only.',
        params: idParams('userId'),
        response: answers(
          { 200: { schema: OAuthUserCompanies, description: 'The user and companies.' } },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const p = principalOf(req);
      const target = req.params.userId;
      const clientId = await callerClient(req);
      const allowed =
        target === p.userId || (clientId !== null && (await store.oauth.hasGrant(clientId, target)));
      const out = allowed ? await userCompanies(target) : null;
      if (!out) throw notFound('user', target);
      return out;
    },
  );

  r.get(
    '/api/oauth/users-companies',
    {
      schema: {
        tags: ['Account'],
        summary: 'Users who let the client in, with their companies',
        description:
          'With a token of an OAuth client (client_credentials or a user’s): every user who allowed the client, oldest first, with their companies. With your own credentials: yourself.',
        response: answers({ 200: { schema: OAuthUsersCompanies, description: 'Users and companies.' } }),
      },
    },
    async (req) => {
      const p = principalOf(req);
      const clientId = await callerClient(req);
      const ids = clientId ? await store.oauth.grantedUsers(clientId) : [p.userId];
      const users = [];
      for (const id of ids) {
        const u = await userCompanies(id);
        if (u) users.push(u);
      }
      return { clientId, users };
    },
  );

  app.get<{ Querystring: Record<string, string | undefined> }>(
    '/oauth/authorize',
    { schema: { hide: true } },
    async (req, reply) => {
      const q = req.query;
      const client = q.client_id && q.redirect_uri ? await registered(q.client_id, q.redirect_uri) : null;
      const problem = !client
        ? 'The application asking is not registered with this service for this address.'
        : q.response_type !== 'code'
          ? 'Only response_type=code is supported.'
          : q.code_challenge_method !== 'S256' ||
              !q.code_challenge ||
              !/^[A-Za-z0-9_-]{43,128}$/.test(q.code_challenge)
            ? 'The request needs a PKCE code_challenge with code_challenge_method=S256.'
            : null;
      const page = {
        passwords: [] as { name: string; label: string }[],
        endpoint: '/api/oauth/initiate',
      };
      if (problem)
        return sendPage(
          reply,
          {
            ...page,
            title: 'This sign-in request cannot be used',
            intro: problem,
            submit: 'OK',
            fixed: {},
            done: '',
          },
          400,
        );
      if (!req.principal) {
        const here = req.url;
        return reply.redirect(`/login?returnUrl=${encodeURIComponent(here)}`, 302);
      }
      return sendPage(reply, {
        ...page,
        title: `Allow ${client!.name}?`,
        intro: `${client!.name} asks to use Tramline as you: to read and change the fields, plans and companies you can access. You can end this by signing out everywhere.`,
        submit: 'Allow',
        fixed: {
          clientId: q.client_id,
          redirectUri: q.redirect_uri,
          codeChallenge: q.code_challenge,
          codeChallengeMethod: 'S256',
          ...(q.state ? { state: q.state } : {}),
          ...(q.scope ? { scope: q.scope } : {}),
        },
        done: 'Allowed.',
        redirect: true,
      });
    },
  );

  app.get('/.well-known/oauth-authorization-server', { schema: { hide: true } }, async (req) => {
    const origin = ownOrigins(req, { publicUrl: ctx.publicUrl, trustProxy: ctx.trustProxy })[0];
    return {
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/api/account/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    };
  });
}
