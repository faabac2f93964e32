/**
 * Accounts and sign-in sessions (no API key needed):
 *   POST /api/account/register  e-mail + password -> a user, their first company, a session
 *   POST /api/account/login     e-mail + password -> a session
 *   POST /api/account/refresh   refresh token     -> a new session token pair (the old refresh token dies)
 *   POST /api/account/logout    (signed in)       -> ends the session of the bearer token
 *   POST /api/account/logout-everywhere (signed in) -> ends every session of the user
 * Registration also mails a link confirming the e-mail address (api/routes/account-email.ts).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { SessionOrigin } from '../../store/repositories/sessions.ts';
import { type AccountContext, afterAnswer, sendAccountConfirmation } from '../account/context.ts';
import { noteCompanyWrite } from '../auth/company-roles.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { SESSION_TTL_SECONDS, type TokenService } from '../auth/tokens.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { ErrorResponse, withHeaders } from '../openapi/responses.ts';
import { answers, principalOf } from './common.ts';

export const Email = Type.String({
  format: 'email',
  minLength: 3,
  maxLength: 254,
  description: 'E-mail address; compared case-insensitively.',
});
export const Password = Type.String({
  minLength: 10,
  maxLength: 256,
  description: 'At least 10 and at most 256 characters.',
});
const Name = (d: string) => Type.String({ minLength: 1, maxLength: 200, description: d });

const RegisterRequest = Type.Object(
  {
    email: Email,
    password: Password,
    firstName: Type.Optional(Name('First name.')),
    lastName: Type.Optional(Name('Last name.')),
    companyName: Type.Optional(Name("Name of the user's first company (default: the e-mail address).")),
  },
  { additionalProperties: false, $id: 'RegisterRequest', title: 'RegisterRequest' },
);

const LoginRequest = Type.Object(
  { email: Email, password: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false, $id: 'LoginRequest', title: 'LoginRequest' },
);

const RefreshRequest = Type.Object(
  {
    refreshToken: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'The refresh token of the last token pair.',
    }),
  },
  { additionalProperties: false, $id: 'RefreshRequest', title: 'RefreshRequest' },
);

export const SessionTokens = Type.Object(
  {
    accessToken: Type.String({
      description: 'JWT; send as `Authorization: Bearer <accessToken>` wherever an API key is accepted.',
    }),
    refreshToken: Type.String({
      description:
        'Opaque, single use: POST it to /api/account/refresh for a new pair before the session ends (30 days).',
    }),
    expiresIn: Type.Integer({ description: 'Seconds the access token is valid (900).' }),
    tokenType: Type.Literal('Bearer'),
    userId: Type.String({ format: 'uuid' }),
  },
  { $id: 'SessionTokens', title: 'SessionTokens' },
);

const RegisterResponse = Type.Object(
  { ...SessionTokens.properties, companyId: Type.String({ format: 'uuid' }) },
  { $id: 'RegisterResponse', title: 'RegisterResponse' },
);

export async function issueSession(
  store: Store,
  tokens: TokenService,
  userId: string,
  origin: SessionOrigin,
): Promise<Static<typeof SessionTokens>> {
  const s = await store.sessions.create(userId, origin, SESSION_TTL_SECONDS, (sid) =>
    tokens.newRefreshToken(sid),
  );
  const t = await tokens.issue(s.sessionId, userId);
  return { ...t, refreshToken: s.refreshToken, tokenType: 'Bearer', userId };
}

/**
 * Rotates a refresh token: the session's new refresh token, or null for an
 * unknown, expired or revoked one, or 'reused' for one of ours that was
 * used before (replayed, or stolen and raced): then the whole session, the
 * family of every token it issued, ends.
 */
export async function refreshSession(
  store: Store,
  tokens: TokenService,
  refreshToken: string,
): Promise<{ sessionId: string; userId: string; refreshToken: string } | 'reused' | null> {
  const s = await store.sessions.rotate(refreshToken, (sid) => tokens.newRefreshToken(sid));
  if (s) return s;
  // Ours (the MAC verifies) but not the live one: it was used before. End the session.
  const reused = tokens.refreshTokenSession(refreshToken);
  if (reused && (await store.sessions.end(reused))) return 'reused';
  return null;
}

const LogoutEverywhere = named(
  'LogoutEverywhere',
  Type.Object({ endedSessions: Type.Integer({ description: 'Sessions that were live and are ended now.' }) }),
);

const unauthorized = (code: string, message: string) => withHeaders(ErrorResponse, `${code}: ${message}`);

export async function accountRoutes(
  app: FastifyInstance,
  opts: AccountContext & { openRegistration?: boolean },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store, tokens } = opts;
  const open = opts.openRegistration ?? true;

  r.post(
    '/api/account/register',
    {
      schema: {
        tags: ['Account'],
        summary: 'Register with e-mail and password',
        description:
          'Creates a user and their first company (the user is its admin, with no credits), and signs them in; a mail with a link confirming the e-mail address follows (GET /api/account/confirm-account). No API key needed. 409 EMAIL_TAKEN when the e-mail is registered already. Passwords are stored as scrypt hashes. 403 REGISTRATION_CLOSED when the operator has closed registration (TRAMLINE_OPEN_REGISTRATION=false): accounts are then made by an operator (`tramline keys create`) or a partner.',
        security: [],
        body: RegisterRequest,
        response: {
          ...answers(
            { 201: { schema: RegisterResponse, description: 'Registered and signed in.' } },
            400,
            409,
          ),
          403: withHeaders(ErrorResponse, 'REGISTRATION_CLOSED: this service does not take new accounts.'),
        } as Record<number, unknown>,
      },
    },
    async (req, reply) => {
      if (!open)
        throw new ApiError(
          403,
          'REGISTRATION_CLOSED',
          'This service does not take new registrations; ask its operator for an account.',
        );
      const b = req.body;
      const passwordHash = await hashPassword(b.password);
      const out = await store
        .transaction(async (tx) => {
          if (await tx.accounts.findUserByEmail(b.email)) return null;
          const user = await tx.accounts.createUser({
            email: b.email,
            firstName: b.firstName ?? null,
            lastName: b.lastName ?? null,
            passwordHash,
          });
          const company = await tx.companies.create(user.id, b.companyName ?? b.email.toLowerCase());
          await tx.credits.set(company.companyId, 0, false);
          await tx.userAccounts.update(user.id, 'password', {});
          return { userId: user.id, companyId: company.companyId, email: user.email ?? b.email };
        })
        .catch((e) => {
          // Two registrations of one e-mail at once: the unique index refuses the second.
          if (
            String((e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code) ===
            '23505'
          )
            return null;
          throw e;
        });
      if (!out)
        throw new ApiError(
          409,
          'EMAIL_TAKEN',
          `The e-mail ${b.email} is registered already; log in instead.`,
        );
      noteCompanyWrite(req, { companyId: out.companyId, objectId: out.companyId, userId: out.userId });
      const session = await issueSession(store, tokens, out.userId, 'register');
      afterAnswer(req, 'account confirmation mail', () =>
        sendAccountConfirmation(opts, req, out.userId, out.email),
      );
      return reply.code(201).send({ ...session, companyId: out.companyId });
    },
  );

  r.post(
    '/api/account/login',
    {
      schema: {
        tags: ['Account'],
        summary: 'Sign in with e-mail and password',
        description:
          'Answers a session token pair. A wrong e-mail or password gets 401 INVALID_CREDENTIALS (the same answer for both). No API key needed.',
        security: [],
        body: LoginRequest,
        response: {
          ...answers({ 200: { schema: SessionTokens, description: 'Signed in.' } }, 400),
          401: unauthorized('INVALID_CREDENTIALS', 'unknown e-mail or wrong password.'),
        } as Record<number, unknown>,
      },
    },
    async (req) => {
      const user = await store.accounts.findUserByEmail(req.body.email);
      const ok = await verifyPassword(req.body.password, user?.passwordHash ?? null);
      if (!user || !ok) throw new ApiError(401, 'INVALID_CREDENTIALS', 'Unknown e-mail or wrong password.');
      return issueSession(store, tokens, user.id, 'login');
    },
  );

  r.post(
    '/api/account/refresh',
    {
      schema: {
        tags: ['Account'],
        summary: 'Swap a refresh token for a new token pair',
        description:
          'The refresh token works once: the answer carries a new one. An unknown, used, expired or revoked refresh token gets 401 INVALID_REFRESH_TOKEN. A used one coming back means it leaked (or two refreshes raced): the whole session ends, with every token it issued. No API key needed.',
        security: [],
        body: RefreshRequest,
        response: {
          ...answers(
            { 200: { schema: SessionTokens, description: 'A new token pair for the same session.' } },
            400,
          ),
          401: unauthorized(
            'INVALID_REFRESH_TOKEN',
            'the refresh token is unknown, used, expired or revoked.',
          ),
        } as Record<number, unknown>,
      },
    },
    async (req) => {
      const s = await refreshSession(store, tokens, req.body.refreshToken);
      if (s === 'reused') {
        req.log.warn('a used refresh token came back; the session is ended');
        throw new ApiError(
          401,
          'INVALID_REFRESH_TOKEN',
          'The refresh token was used already; the session is ended for safety. Log in again.',
        );
      }
      if (!s)
        throw new ApiError(
          401,
          'INVALID_REFRESH_TOKEN',
          'The refresh token is unknown, already used, expired or revoked; log in again.',
        );
      const t = await tokens.issue(s.sessionId, s.userId);
      return { ...t, refreshToken: s.refreshToken, tokenType: 'Bearer' as const, userId: s.userId };
    },
  );

  r.post(
    '/api/account/logout',
    {
      schema: {
        tags: ['Account'],
        summary: 'End the current session',
        description:
          'Ends the session of the bearer token: its access and refresh tokens stop working at once. With an API key it does nothing (revoke keys with DELETE /api/api-keys/{id}).',
        response: answers({ 204: { schema: null, description: 'Signed out.' } }),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      if (p.kind === 'session') await store.sessions.revoke(p.keyId, p.userId);
      return reply.code(204).send();
    },
  );

  r.post(
    '/api/account/logout-everywhere',
    {
      schema: {
        tags: ['Account'],
        summary: 'End every session of the user',
        description:
          'Signs the user out everywhere: every session (this one too, with a bearer token) ends, with its access and refresh tokens. API keys stay valid; revoke them with DELETE /api/api-keys/{id}.',
        response: answers({ 200: { schema: LogoutEverywhere, description: 'Signed out everywhere.' } }),
      },
    },
    async (req) => {
      const ended = await store.sessions.revokeAll(principalOf(req).userId);
      return { endedSessions: ended };
    },
  );
}
