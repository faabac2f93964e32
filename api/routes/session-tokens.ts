/**
 * One-time tokens exchanged for a session: hand a signed-in session over to
 * another device or app (a terminal in the tractor cab shows a QR code with
 * a random token id; the signed-in phone registers it; the terminal
 * exchanges it for its own session).
 *   POST /api/tokens/{tokenId}           (signed in) registers the token id for you, for up to 10 minutes
 *   GET  /api/tokens/{tokenId}/exchange  the token id -> a new session of that user; once
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type AccountContext, TOKEN_TTL } from '../account/context.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { issueSession, SessionTokens } from './account.ts';
import { answers, iso, optionalBody, principalOf, Timestamp } from './common.ts';

const TokenIdParams = Type.Object(
  {
    tokenId: Type.String({
      minLength: 32,
      maxLength: 128,
      pattern: '^[A-Za-z0-9_-]+$',
      description:
        'A random id made by the device that is to sign in: 32 to 128 characters of A-Z, a-z, 0-9, _ and - (e.g. 32 random bytes in base64url). Whoever knows it until it is exchanged can exchange it.',
    }),
  },
  { additionalProperties: false },
);

const CreateSessionTokenRequest = named(
  'CreateSessionTokenRequest',
  Type.Object(
    {
      ttlSeconds: Type.Optional(
        Type.Integer({
          minimum: 10,
          maximum: TOKEN_TTL.sessionMax,
          description: `How long the token can be exchanged [s] (default ${TOKEN_TTL.session}, at most ${TOKEN_TTL.sessionMax}).`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const SessionToken = named(
  'SessionToken',
  Type.Object({
    tokenId: Type.String(),
    expiresAt: { ...Timestamp, description: 'Until when it can be exchanged.' },
  }),
);

export async function sessionTokenRoutes(app: FastifyInstance, ctx: AccountContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store, tokens } = ctx;

  r.post(
    '/api/tokens/:tokenId',
    {
      preValidation: optionalBody,
      schema: {
        tags: ['Account'],
        summary: 'Register a one-time token for a session hand-over',
        description:
          'The token id (made by the device that is to sign in) becomes exchangeable, once, for a new session of your user (GET /api/tokens/{tokenId}/exchange). 409 TOKEN_EXISTS when the id was registered before (make a new random one).',
        params: TokenIdParams,
        body: CreateSessionTokenRequest,
        response: answers({ 201: { schema: SessionToken, description: 'Registered.' } }, 400, 409),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const made = await store.userAccounts.issueToken(
        p.userId,
        'session',
        req.body.ttlSeconds ?? TOKEN_TTL.session,
        { token: req.params.tokenId, keepOthers: true },
      );
      if (!made)
        throw new ApiError(
          409,
          'TOKEN_EXISTS',
          'This token id was registered before; make a new random one.',
        );
      return reply.code(201).send({ tokenId: req.params.tokenId, expiresAt: iso(made.expiresAt) });
    },
  );

  r.get(
    '/api/tokens/:tokenId/exchange',
    {
      schema: {
        tags: ['Account'],
        summary: 'Exchange a one-time token for a session',
        description:
          'Answers a new session of the user who registered the token; the token works once. 400 INVALID_TOKEN for an unknown, used or expired token. No API key needed (the token is the credential).',
        security: [],
        params: TokenIdParams,
        response: answers({ 200: { schema: SessionTokens, description: 'Signed in.' } }, 400),
      },
    },
    async (req) => {
      const used = await store.userAccounts.useToken(req.params.tokenId, 'session');
      if (!used)
        throw new ApiError(
          400,
          'INVALID_TOKEN',
          'The token is unknown, exchanged already or expired; register a new one.',
        );
      return issueSession(store, tokens, used.userId, 'token');
    },
  );
}
