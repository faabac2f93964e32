/**
 * Sign-in through an external OpenID Connect provider (api/account/external-idp.ts):
 *   POST /api/externallogin                 starts a sign-in: the provider's authorization URL
 *   GET  /api/externallogin/callback        where the provider sends the browser back: a session
 *   POST /api/account/register-external     a new account from a provider's ID token (native apps)
 *   POST /api/account/assert-user-external-companies  (signed in through it) a company per organization
 *        at the provider: made when missing; all of them
 *   POST /api/account/assert-new-external-companies   the same, answering only the companies made now
 * A person is told apart by the provider's subject (`sub`). The first
 * sign-in links the subject to the account with the same e-mail address,
 * when the provider says it verified that address, or else makes a new
 * account (with its first company), unless registration is closed.
 */
import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { AccountContext } from '../account/context.ts';
import type { ExternalClaims, ExternalIdp } from '../account/external-idp.ts';
import { noteCompanyWrite } from '../auth/company-roles.ts';
import { ApiError } from '../errors.ts';
import { sqlStateOf } from '../log-safety.ts';
import { named } from '../openapi/components.ts';
import { ErrorResponse, withHeaders } from '../openapi/responses.ts';
import { issueSession, SessionTokens } from './account.ts';
import { answers, principalOf, Uuid } from './common.ts';
import { ownOrigins } from './web.ts';

const STATE_TTL_SECONDS = 600;
const STATE_PURPOSE = 'external-login';

const ProviderName = Type.String({
  pattern: '^[a-z0-9][a-z0-9-]{0,39}$',
  description: 'The configured provider (TRAMLINE_OIDC_PROVIDER_NAME; default: the one configured).',
});

const ExternalLoginRequest = named(
  'ExternalLoginRequest',
  Type.Object({ provider: Type.Optional(ProviderName) }, { additionalProperties: false }),
);

const ExternalLoginStart = named(
  'ExternalLoginStart',
  Type.Object({
    provider: Type.String(),
    authorizationUrl: Type.String({
      description: 'Send the browser here; it comes back to /api/externallogin/callback.',
    }),
    redirectUri: Type.String({
      description: 'The callback URL to register with the provider for this service.',
    }),
    expiresIn: Type.Integer({ description: 'Seconds the sign-in can be finished in.' }),
  }),
);

const ExternalSignIn = named(
  'ExternalSignIn',
  Type.Object({
    ...SessionTokens.properties,
    provider: Type.String(),
    created: Type.Boolean({ description: 'A new account was made.' }),
    linked: Type.Boolean({
      description: 'The provider identity was linked to the account now (first sign-in).',
    }),
    companyId: Type.Union([Uuid('The first company of a new account.'), Type.Null()]),
  }),
);

const RegisterExternalRequest = named(
  'RegisterExternalRequest',
  Type.Object(
    {
      provider: Type.Optional(ProviderName),
      idToken: Type.String({
        minLength: 20,
        maxLength: 8192,
        description:
          'An ID token the provider issued to this service’s client id (a native app signed in with it).',
      }),
      companyName: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'Name of the first company (default: the e-mail).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.String({ minLength: 1, maxLength: 4096 }),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
    iss: Type.Optional(Type.String({ maxLength: 2000 })),
    session_state: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);

const providerDown = withHeaders(
  ErrorResponse,
  'EXTERNAL_PROVIDER_UNAVAILABLE: the external identity provider could not be reached.',
);

const AssertExternalCompaniesRequest = named(
  'AssertExternalCompaniesRequest',
  Type.Object(
    {
      provider: Type.Optional(ProviderName),
      companies: Type.Array(
        Type.Object(
          {
            externalId: Type.String({
              minLength: 1,
              maxLength: 200,
              description: 'The organization’s id at the provider.',
            }),
            name: Type.String({
              minLength: 1,
              maxLength: 200,
              description: 'Name for a company made for it.',
            }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 100 },
      ),
    },
    { additionalProperties: false },
  ),
);

const AssertedExternalCompanies = named(
  'AssertedExternalCompanies',
  Type.Object({
    provider: Type.String(),
    companies: Type.Array(
      Type.Object({
        externalId: Type.String(),
        companyId: Uuid('Your company for the organization.'),
        name: Type.String({ description: 'The company’s name (as made; later renames show here).' }),
        created: Type.Boolean({ description: 'Made by this request.' }),
      }),
    ),
  }),
);

const failed = (message: string) => new ApiError(400, 'EXTERNAL_LOGIN_FAILED', message);

export async function externalLoginRoutes(
  app: FastifyInstance,
  opts: AccountContext & { idp?: ExternalIdp; openRegistration?: boolean },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store, tokens, idp } = opts;
  const open = opts.openRegistration ?? true;

  const providerOf = (name: string | undefined): ExternalIdp => {
    if (!idp || (name !== undefined && name !== idp.name))
      throw new ApiError(
        404,
        'EXTERNAL_PROVIDER_UNKNOWN',
        idp
          ? `No external identity provider ${name}; this service has ${idp.name}.`
          : 'This service has no external identity provider configured (TRAMLINE_OIDC_DISCOVERY_URL).',
      );
    return idp;
  };
  const unavailable = (err: unknown, req: FastifyRequest) => {
    req.log.warn({ err }, 'the external identity provider could not be reached');
    return new ApiError(
      502,
      'EXTERNAL_PROVIDER_UNAVAILABLE',
      'The external identity provider did not answer; try again later.',
    );
  };
  const callbackUri = (req: FastifyRequest) =>
    `${ownOrigins(req, { publicUrl: opts.publicUrl, trustProxy: opts.trustProxy })[0]}/api/externallogin/callback`;

  /** A new account for the person, with their first company and the identity linked. */
  const createAccount = async (provider: string, c: ExternalClaims, companyName?: string) =>
    store
      .transaction(async (tx) => {
        const user = await tx.accounts.createUser({
          email: c.email,
          firstName: c.firstName,
          lastName: c.lastName,
        });
        const company = await tx.companies.create(user.id, companyName ?? c.email ?? `${provider} user`);
        await tx.credits.set(company.companyId, 0, false);
        await tx.userAccounts.update(user.id, 'external', {
          emailConfirmedAt: c.emailVerified ? new Date() : null,
        });
        await tx.externalIdentities.link({ provider, subject: c.subject, userId: user.id, email: c.email });
        return { userId: user.id, companyId: company.companyId };
      })
      .catch((e) => {
        // Two first sign-ins of one person at once: the unique indexes refuse the second.
        if (sqlStateOf(e) === '23505')
          throw new ApiError(
            409,
            'CONFLICT',
            'This account was made by a sign-in at the same moment; sign in again.',
          );
        throw e;
      });

  r.post(
    '/api/externallogin',
    {
      schema: {
        tags: ['Account'],
        summary: 'Start a sign-in through the external identity provider',
        description:
          'Answers the provider’s authorization URL (authorization code flow with PKCE and nonce; the state is sealed, 10 minutes). The provider sends the browser back to GET /api/externallogin/callback, which answers a session. 404 EXTERNAL_PROVIDER_UNKNOWN without such a provider; 502 when the provider cannot be reached. No API key needed.',
        security: [],
        body: ExternalLoginRequest,
        response: answers(
          { 200: { schema: ExternalLoginStart, description: 'Where to send the browser.' } },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const p = providerOf(req.body.provider);
      const codeVerifier = randomBytes(32).toString('base64url');
      const nonce = randomBytes(16).toString('base64url');
      const state = await tokens.seal(
        STATE_PURPOSE,
        { p: p.name, v: codeVerifier, n: nonce },
        STATE_TTL_SECONDS,
      );
      const redirectUri = callbackUri(req);
      const url = await p.authorizationUrl({ redirectUri, state, nonce, codeVerifier }).catch((err) => {
        throw unavailable(err, req);
      });
      return { provider: p.name, authorizationUrl: url.href, redirectUri, expiresIn: STATE_TTL_SECONDS };
    },
  );

  r.get(
    '/api/externallogin/callback',
    {
      schema: {
        tags: ['Account'],
        summary: 'Finish a sign-in through the external identity provider',
        description:
          'The provider’s redirect: the code is exchanged and the ID token verified on the server. The person’s account is the one linked to their provider identity; on the first sign-in, the account with the same e-mail address when the provider verified it (linked now), else a new account with a first company (403 REGISTRATION_CLOSED when registration is closed). 400 EXTERNAL_LOGIN_FAILED for a refused, expired or forged sign-in. No API key needed.',
        security: [],
        querystring: CallbackQuery,
        response: {
          ...answers({ 200: { schema: ExternalSignIn, description: 'Signed in.' } }, 400, 403, 404, 409),
          502: providerDown,
        } as Record<number, unknown>,
      },
    },
    async (req) => {
      const q = req.query;
      const sealed = await tokens.unseal(STATE_PURPOSE, q.state);
      if (!sealed) throw failed('The sign-in is unknown or took longer than 10 minutes; start again.');
      const p = providerOf(String(sealed.p));
      if (q.error) throw failed(`The identity provider refused the sign-in (${q.error}).`);
      const here = new URL(`${callbackUri(req)}?${req.url.split('?')[1] ?? ''}`);
      let claims: ExternalClaims;
      try {
        claims = await p.finish(here, {
          state: q.state,
          nonce: String(sealed.n),
          codeVerifier: String(sealed.v),
        });
      } catch (err) {
        const e = err as { code?: string; error?: string; name?: string };
        if (e.code === 'OAUTH_RESPONSE_BODY_ERROR' || e.error || e.name === 'AuthorizationResponseError')
          throw failed(`The identity provider did not accept the sign-in (${e.error ?? e.code}).`);
        if (e.code?.startsWith('OAUTH_')) throw failed(`The sign-in did not verify (${e.code}).`);
        throw unavailable(err, req);
      }
      let linked = false;
      let created = false;
      let companyId: string | null = null;
      let userId = (await store.externalIdentities.find(p.name, claims.subject))?.userId ?? null;
      if (userId) {
        await store.externalIdentities.link({
          provider: p.name,
          subject: claims.subject,
          userId,
          email: claims.email,
        });
      } else {
        const same =
          claims.email && claims.emailVerified ? await store.accounts.findUserByEmail(claims.email) : null;
        if (same) {
          userId = same.id;
          linked = true;
          await store.externalIdentities.link({
            provider: p.name,
            subject: claims.subject,
            userId,
            email: claims.email,
          });
          const s = await store.userAccounts.get(userId);
          if (!s?.emailConfirmedAt)
            await store.userAccounts.update(userId, s?.source ?? 'external', {
              emailConfirmedAt: new Date(),
            });
        } else {
          if (!open)
            throw new ApiError(
              403,
              'REGISTRATION_CLOSED',
              'This service takes no new accounts; ask its operator for one, then sign in again.',
            );
          if (claims.email && (await store.accounts.findUserByEmail(claims.email)))
            throw new ApiError(
              409,
              'EMAIL_TAKEN',
              'An account has this e-mail address, and the provider did not verify it: sign in with the password of that account.',
            );
          ({ userId, companyId } = await createAccount(p.name, claims));
          linked = true;
          created = true;
        }
      }
      if (companyId) noteCompanyWrite(req, { companyId, objectId: companyId, userId });
      const session = await issueSession(store, tokens, userId, 'external');
      return { ...session, provider: p.name, created, linked, companyId };
    },
  );

  r.post(
    '/api/account/register-external',
    {
      schema: {
        tags: ['Account'],
        summary: 'Register with an ID token of the external identity provider',
        description:
          'For apps that sign the person in with the provider themselves (as this service’s client): the ID token is verified against the provider’s keys (issuer, audience = this service’s client id, expiry), then a new account with a first company is made, linked to the identity and signed in. 409 IDENTITY_LINKED when the identity has an account (sign in through POST /api/externallogin), 409 EMAIL_TAKEN when another account has the e-mail address; 401 INVALID_ID_TOKEN for a token that does not verify; 403 REGISTRATION_CLOSED. No API key needed.',
        security: [],
        body: RegisterExternalRequest,
        response: {
          ...answers(
            { 201: { schema: ExternalSignIn, description: 'Registered and signed in.' } },
            400,
            403,
            404,
            409,
          ),
        },
      },
    },
    async (req, reply) => {
      const p = providerOf(req.body.provider);
      if (!open)
        throw new ApiError(
          403,
          'REGISTRATION_CLOSED',
          'This service takes no new accounts; ask its operator for one.',
        );
      let claims: ExternalClaims;
      try {
        claims = await p.verifyIdToken(req.body.idToken);
      } catch (err) {
        if ((err as { code?: string }).code?.startsWith('ERR_J'))
          throw new ApiError(
            401,
            'INVALID_ID_TOKEN',
            'The ID token does not verify against the identity provider.',
          );
        throw unavailable(err, req);
      }
      if (await store.externalIdentities.find(p.name, claims.subject))
        throw new ApiError(
          409,
          'IDENTITY_LINKED',
          'This identity has an account; sign in through POST /api/externallogin.',
        );
      if (claims.email && (await store.accounts.findUserByEmail(claims.email)))
        throw new ApiError(409, 'EMAIL_TAKEN', 'An account has this e-mail address; sign in to it instead.');
      const made = await createAccount(p.name, claims, req.body.companyName);
      noteCompanyWrite(req, { companyId: made.companyId, objectId: made.companyId, userId: made.userId });
      const session = await issueSession(store, tokens, made.userId, 'external');
      return reply
        .code(201)
        .send({ ...session, provider: p.name, created: true, linked: true, companyId: made.companyId });
    },
  );

  const assertCompanies = async (
    req: FastifyRequest,
    body: Static<typeof AssertExternalCompaniesRequest>,
  ) => {
    const p = providerOf(body.provider);
    const userId = principalOf(req).userId;
    const seen = new Set<string>();
    body.companies.forEach((c, i) => {
      if (seen.has(c.externalId))
        throw new ApiError(
          400,
          'VALIDATION_ERROR',
          `companies/${i}/externalId ${c.externalId} is given twice.`,
          {
            errors: [{ path: `/companies/${i}/externalId`, message: 'is given twice' }],
          },
        );
      seen.add(c.externalId);
    });
    if (!(await store.externalIdentities.hasIdentity(userId, p.name)))
      throw new ApiError(
        403,
        'NotAuthorized',
        `Only users who signed in through ${p.name} may assert its organizations; sign in through POST /api/externallogin first.`,
      );
    return store.transaction(async (tx) => {
      const known = await tx.externalIdentities.companiesOf(userId, p.name, [...seen]);
      const out = [];
      for (const c of body.companies) {
        const have = known.get(c.externalId);
        if (have) {
          out.push({ externalId: c.externalId, ...have, created: false });
          continue;
        }
        const company = await tx.companies.create(userId, c.name);
        await tx.credits.set(company.companyId, 0, false);
        await tx.externalIdentities.addCompany(userId, p.name, c.externalId, company.companyId);
        out.push({ externalId: c.externalId, companyId: company.companyId, name: c.name, created: true });
        noteCompanyWrite(req, { companyId: company.companyId, objectId: company.companyId });
      }
      return { provider: p.name, companies: out };
    });
  };

  const assertDescription = (what: string) =>
    `For each organization of yours at the external identity provider, your company for it: made (you its admin, no credits) when you have none yet. ${what} Companies are per user: another user naming the same external id gets their own. Only for users who signed in through the provider (403 otherwise).`;

  r.post(
    '/api/account/assert-user-external-companies',
    {
      schema: {
        tags: ['Account'],
        summary: 'Make sure you have a company per external organization',
        description: assertDescription('Answers all of them, in the order given.'),
        body: AssertExternalCompaniesRequest,
        response: answers(
          { 200: { schema: AssertedExternalCompanies, description: 'Your companies for them.' } },
          400,
          403,
          404,
        ),
      },
    },
    async (req) => assertCompanies(req, req.body),
  );

  r.post(
    '/api/account/assert-new-external-companies',
    {
      schema: {
        tags: ['Account'],
        summary: 'Make companies for new external organizations',
        description: assertDescription('Answers only the companies made by this request.'),
        body: AssertExternalCompaniesRequest,
        response: answers(
          { 200: { schema: AssertedExternalCompanies, description: 'The companies made now.' } },
          400,
          403,
          404,
        ),
      },
    },
    async (req) => {
      const all = await assertCompanies(req, req.body);
      return { ...all, companies: all.companies.filter((c) => c.created) };
    },
  );
}
