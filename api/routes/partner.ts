/**
 * Partner hand-over (spec 4.3 and 5). Partner Admin credentials only
 * (403 NotAuthorized otherwise), except the exchange, whose launch code is
 * the credential:
 *   POST /api/partner/users             find or create a user by partnerUserId
 *   POST /api/partner/companies         find or create a company by partnerCompanyId; the caller is its admin
 *   POST /api/partner/company-accesses  grant a partner user access to a partner company
 *   POST /api/partner/launch            a single-use launch code (600 s) for a partner user
 *   POST /api/partner/launch/exchange   code + userId -> a session (no key)
 *
 * Partner ids are the partner's own: they are scoped to the Partner Admin
 * user that created them, so partners cannot see or reach each other's.
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import { companyRole } from '../../store/repositories/accounts.ts';
import { createNotificationsRepository } from '../../store/repositories/notifications.ts';
import { noteCompanyWrite } from '../auth/company-roles.ts';
import { requirePartnerAdmin } from '../auth/guards.ts';
import type { TokenService } from '../auth/tokens.ts';
import { ApiError, validationError } from '../errors.ts';
import { ErrorResponse, withHeaders } from '../openapi/responses.ts';
import { issueSession, SessionTokens } from './account.ts';
import { answers, principalOf } from './common.ts';

export const LAUNCH_CODE_TTL_SECONDS = 600;

const PartnerId = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$',
    description: `The partner's own id for the ${what}: 1-200 printable ASCII characters, no leading or trailing space. Scoped to the calling partner.`,
  });

const PartnerUserRequest = Type.Object(
  {
    partnerUserId: PartnerId('user'),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    lastName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  {
    additionalProperties: false,
    $id: 'PartnerUserRequest',
    title: 'PartnerUserRequest',
    description:
      'email, firstName and lastName are required when the user is created (the first call for a partnerUserId) and ignored afterwards: the stored user is answered unchanged.',
  },
);

const PartnerUser = Type.Object(
  {
    userId: Type.String({ format: 'uuid', description: 'The platform user id.' }),
    partnerUserId: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    firstName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    created: Type.Boolean({ description: 'true when this call created the user.' }),
  },
  { $id: 'PartnerUser', title: 'PartnerUser' },
);

const PartnerCompanyRequest = Type.Object(
  { partnerCompanyId: PartnerId('company'), name: Type.String({ minLength: 1, maxLength: 200 }) },
  {
    additionalProperties: false,
    $id: 'PartnerCompanyRequest',
    title: 'PartnerCompanyRequest',
    description: 'name is used when the company is created; an existing company keeps its name.',
  },
);

const PartnerCompany = Type.Object(
  {
    companyId: Type.String({ format: 'uuid' }),
    partnerCompanyId: Type.String(),
    name: Type.String(),
    created: Type.Boolean(),
  },
  { $id: 'PartnerCompany', title: 'PartnerCompany' },
);

const Role = Type.Union([
  Type.Literal('admin'),
  Type.Literal('editor'),
  Type.Literal('viewer'),
  Type.Literal('member'),
]);

const PartnerAccessRequest = Type.Object(
  {
    partnerUserId: PartnerId('user'),
    partnerCompanyId: PartnerId('company'),
    role: Type.Optional({
      ...Role,
      description:
        "Default 'member' (the same as 'editor'). Granting again with another role changes it; 'viewer' reads only.",
    }),
  },
  { additionalProperties: false, $id: 'PartnerCompanyAccessRequest', title: 'PartnerCompanyAccessRequest' },
);

const PartnerAccess = Type.Object(
  {
    userId: Type.String({ format: 'uuid' }),
    companyId: Type.String({ format: 'uuid' }),
    partnerUserId: Type.String(),
    partnerCompanyId: Type.String(),
    role: Role,
    created: Type.Boolean({ description: 'true when this call granted new access.' }),
  },
  { $id: 'PartnerCompanyAccess', title: 'PartnerCompanyAccess' },
);

const LaunchRequest = Type.Object(
  {
    userId: PartnerId('user (its partnerUserId, not the platform id)'),
    returnUrl: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: '^https?://[^\\s]+$',
        description:
          'An absolute http(s) URL to return the user to; carried through to the /launch redirect.',
      }),
    ),
  },
  { additionalProperties: false, $id: 'LaunchRequest', title: 'LaunchRequest' },
);

const LaunchResponse = Type.Object(
  {
    code: Type.String({
      description: 'Single use; valid for expiresInSec seconds. Only its hash is stored.',
    }),
    userId: Type.String({ format: 'uuid', description: 'The platform user id.' }),
    expiresInSec: Type.Integer({ description: '600.' }),
    launchUrl: Type.String({
      description:
        'Where to send the browser: the platform path /launch with query code, userId and returnUrl.',
    }),
  },
  { $id: 'LaunchResponse', title: 'LaunchResponse' },
);

const ExchangeRequest = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 200 }),
    userId: Type.String({ format: 'uuid', description: 'The platform user id from the launch answer.' }),
  },
  { additionalProperties: false, $id: 'LaunchExchangeRequest', title: 'LaunchExchangeRequest' },
);

const ExchangeResponse = Type.Object(
  { ...SessionTokens.properties, returnUrl: Type.Union([Type.String(), Type.Null()]) },
  { $id: 'LaunchExchangeResponse', title: 'LaunchExchangeResponse' },
);

const notAuthorized = withHeaders(
  ErrorResponse,
  'NotAuthorized: valid credentials that are not Partner Admin (spec 7: correlationId, errorCode, message).',
);

const partnerAnswers = (ok: Record<number, { schema: never | object; description: string }>) =>
  ({ ...answers(ok as never, 400, 404), 403: notAuthorized }) as Record<number, unknown>;

export async function partnerRoutes(
  app: FastifyInstance,
  opts: { store: Store; tokens: TokenService; launchCodeTtlSeconds?: number },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store, tokens } = opts;
  const ttl = opts.launchCodeTtlSeconds ?? LAUNCH_CODE_TTL_SECONDS;
  // Checked on request, before the body is read: any valid non-partner credential gets 403, whatever it sends.
  const guarded = { onRequest: requirePartnerAdmin };

  r.post(
    '/api/partner/users',
    {
      ...guarded,
      schema: {
        tags: ['Partner'],
        summary: 'Find or create a user by the partner’s id',
        description:
          'Idempotent on partnerUserId: 201 when created, 200 when it existed. Creating needs email, firstName and lastName (400 naming the missing ones); 409 EMAIL_TAKEN when another account has the e-mail.',
        body: PartnerUserRequest,
        response: partnerAnswers({
          200: { schema: PartnerUser, description: 'The existing user.' },
          201: { schema: PartnerUser, description: 'The new user.' },
        }),
      },
    },
    async (req, reply) => {
      const b = req.body;
      const out = await store.partner.ensureUser(principalOf(req).userId, b.partnerUserId, b);
      if (!out.ok) {
        if (out.reason === 'details-required') {
          const missing = (['email', 'firstName', 'lastName'] as const).filter((k) => !b[k]);
          throw validationError(
            missing.map((k) => ({ path: `/${k}`, message: 'is required to create a new user' })),
            `Invalid request: no user with partnerUserId ${b.partnerUserId} yet, and creating one needs ${missing.join(', ')}.`,
          );
        }
        throw new ApiError(409, 'EMAIL_TAKEN', `Another account has the e-mail ${b.email}.`);
      }
      return reply.code(out.created ? 201 : 200).send({ ...out.user, created: out.created });
    },
  );

  r.post(
    '/api/partner/companies',
    {
      ...guarded,
      schema: {
        tags: ['Partner'],
        summary: 'Find or create a company by the partner’s id',
        description:
          "Idempotent on partnerCompanyId: 201 when created, 200 when it existed. The calling key's user gets admin access either way. New companies start with no credits.",
        body: PartnerCompanyRequest,
        response: partnerAnswers({
          200: { schema: PartnerCompany, description: 'The existing company.' },
          201: { schema: PartnerCompany, description: 'The new company.' },
        }),
      },
    },
    async (req, reply) => {
      const out = await store.transaction((tx) =>
        tx.partner.ensureCompany(principalOf(req).userId, req.body.partnerCompanyId, req.body.name),
      );
      // The caller's admin access is (re)granted either way.
      noteCompanyWrite(req, { companyId: out.company.companyId, objectId: out.company.companyId });
      return reply.code(out.created ? 201 : 200).send({ ...out.company, created: out.created });
    },
  );

  r.post(
    '/api/partner/company-accesses',
    {
      ...guarded,
      schema: {
        tags: ['Partner'],
        summary: 'Grant a partner user access to a partner company',
        description:
          "Idempotent: 201 when the access is new, 200 when it existed (its role is set to the given one). Both ids are the partner's own; 404 names the one not found.",
        body: PartnerAccessRequest,
        response: partnerAnswers({
          200: { schema: PartnerAccess, description: 'The access existed.' },
          201: { schema: PartnerAccess, description: 'Access granted.' },
        }),
      },
    },
    async (req, reply) => {
      const partner = principalOf(req).userId;
      const b = req.body;
      const [user, company] = await Promise.all([
        store.partner.findUser(partner, b.partnerUserId),
        store.partner.findCompany(partner, b.partnerCompanyId),
      ]);
      if (!user)
        throw new ApiError(
          404,
          'NOT_FOUND',
          `No user with partnerUserId ${b.partnerUserId}; create it first.`,
        );
      if (!company) {
        throw new ApiError(
          404,
          'NOT_FOUND',
          `No company with partnerCompanyId ${b.partnerCompanyId}; create it first.`,
        );
      }
      const role = b.role ?? 'member';
      const { created } = await store.partner.grant(user.userId, company.companyId, companyRole(role));
      if (created)
        await createNotificationsRepository(store.db).accessGranted(user.userId, company.companyId, role);
      noteCompanyWrite(req, { companyId: company.companyId, objectId: user.userId });
      return reply.code(created ? 201 : 200).send({
        userId: user.userId,
        companyId: company.companyId,
        partnerUserId: b.partnerUserId,
        partnerCompanyId: b.partnerCompanyId,
        role,
        created,
      });
    },
  );

  r.post(
    '/api/partner/launch',
    {
      ...guarded,
      schema: {
        tags: ['Partner'],
        summary: 'Issue a launch code for a partner user',
        description: `A single-use code, valid ${LAUNCH_CODE_TTL_SECONDS} s, that /api/partner/launch/exchange turns into a session for the user. Send the browser to launchUrl.`,
        body: LaunchRequest,
        response: partnerAnswers({ 200: { schema: LaunchResponse, description: 'The code.' } }),
      },
    },
    async (req) => {
      const partner = principalOf(req).userId;
      const user = await store.partner.findUser(partner, req.body.userId);
      if (!user)
        throw new ApiError(
          404,
          'NOT_FOUND',
          `No user with partnerUserId ${req.body.userId}; create it first.`,
        );
      const returnUrl = req.body.returnUrl ?? null;
      const code = await store.partner.issueLaunchCode(user.userId, partner, returnUrl, ttl);
      const q = new URLSearchParams({ code, userId: user.userId });
      if (returnUrl) q.set('returnUrl', returnUrl);
      return { code, userId: user.userId, expiresInSec: ttl, launchUrl: `/launch?${q}` };
    },
  );

  r.post(
    '/api/partner/launch/exchange',
    {
      schema: {
        tags: ['Partner'],
        summary: 'Exchange a launch code for a session',
        description:
          'No API key: the code is the credential. Single use: of concurrent exchanges of one code exactly one succeeds. 400 LAUNCH_CODE_USED for a replay, LAUNCH_CODE_EXPIRED after 600 s, LAUNCH_CODE_INVALID for a code unknown or issued for another user.',
        security: [],
        body: ExchangeRequest,
        response: answers({ 200: { schema: ExchangeResponse, description: 'The session.' } }, 400),
      },
    },
    async (req) => {
      const out = await store.partner.consumeLaunchCode(req.body.code, req.body.userId);
      if (!out.ok) {
        const [code, msg] =
          out.reason === 'used'
            ? ['LAUNCH_CODE_USED', 'The launch code was used already; ask the partner for a new launch.']
            : out.reason === 'expired'
              ? [
                  'LAUNCH_CODE_EXPIRED',
                  `The launch code expired (codes last ${ttl} s); ask the partner for a new launch.`,
                ]
              : ['LAUNCH_CODE_INVALID', 'The launch code is unknown or was issued for another user.'];
        throw new ApiError(400, code, msg, { errors: [{ path: '/code', message: msg }] });
      }
      const session = await issueSession(store, tokens, req.body.userId, 'launch');
      return { ...session, returnUrl: out.returnUrl };
    },
  );
}
