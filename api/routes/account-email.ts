/**
 * Accounts by e-mail: invitations, confirmation, password recovery.
 *   POST /api/account/register-invite      (signed in, company admin) invite a person by e-mail to a company
 *   POST /api/account/resend-invite/{id}   (signed in) a new invitation link for a pending invitee
 *   POST /api/account/accept-invite        invitation token + password -> the account is set up, a session
 *   GET  /api/account/confirm-account      ?token= from the confirmation mail of a new account
 *   GET  /api/account/confirm-email        ?token= from the mail confirming a changed e-mail address
 *   GET  /api/account/is-confirmed/{userId} (signed in) whether the address of the user is confirmed
 *   POST /api/account/recover              { email } -> a password reset mail when the address is known; always 202
 *   POST /api/account/reset-password       recovery token + new password -> a session; every other session ends
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type CompanyRole, companyRole } from '../../store/repositories/accounts.ts';
import type { AccountState } from '../../store/repositories/user-accounts.ts';
import {
  type AccountContext,
  accountLink,
  afterAnswer,
  invalidToken,
  MailDeliverySchema,
  TOKEN_TTL,
  TokenParam,
} from '../account/context.ts';
import { noteCompanyWrite } from '../auth/company-roles.ts';
import { hashPassword } from '../auth/passwords.ts';
import { ApiError } from '../errors.ts';
import { sqlStateOf } from '../log-safety.ts';
import { inviteMail, recoverMail } from '../mail/templates.ts';
import { named } from '../openapi/components.ts';
import { Email, issueSession, Password, SessionTokens } from './account.ts';
import { answers, idParams, iso, notFound, principalOf, requireCompany, Timestamp, Uuid } from './common.ts';

const Name = (d: string) => Type.String({ minLength: 1, maxLength: 200, description: d });

const InviteRole = Type.Union(
  [Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer'), Type.Literal('member')],
  {
    description:
      "The access the invitee gets to the company: admin, editor or viewer (default editor; 'member' is read as editor).",
  },
);

const RegisterInviteRequest = named(
  'RegisterInviteRequest',
  Type.Object(
    {
      email: Email,
      companyId: Uuid('The company the invitee is to work in; you must be its admin.'),
      role: Type.Optional(InviteRole),
      firstName: Type.Optional(Name('First name of the invitee.')),
      lastName: Type.Optional(Name('Last name of the invitee.')),
    },
    { additionalProperties: false },
  ),
);

const Invitation = named(
  'Invitation',
  Type.Object({
    userId: Uuid('The invited user (made now, or the one invited before).'),
    email: Type.String(),
    companyId: Type.Union([Uuid('The company the invitee can access.'), Type.Null()]),
    role: Type.Union([InviteRole, Type.Null()]),
    invitedAt: Timestamp,
    expiresAt: { ...Timestamp, description: 'Until when the link in the mail works (7 days).' },
    mailDelivery: MailDeliverySchema,
  }),
);

const AcceptInviteRequest = named(
  'AcceptInviteRequest',
  Type.Object(
    {
      token: TokenParam,
      password: Password,
      firstName: Type.Optional(Name('First name.')),
      lastName: Type.Optional(Name('Last name.')),
    },
    { additionalProperties: false },
  ),
);

const TokenQuery = Type.Object({ token: TokenParam }, { additionalProperties: false });

const EmailConfirmation = named(
  'EmailConfirmation',
  Type.Object({
    userId: Uuid('The user whose address is confirmed.'),
    email: Type.String({ description: 'The confirmed address (for confirm-email: the new one).' }),
    confirmed: Type.Literal(true),
  }),
);

const ConfirmationState = named(
  'ConfirmationState',
  Type.Object({
    userId: Uuid('The user.'),
    confirmed: Type.Boolean({ description: 'Whether the e-mail address of the user is confirmed.' }),
    confirmedAt: Type.Union([Timestamp, Type.Null()]),
    invitePending: Type.Boolean({ description: 'Invited but not accepted yet.' }),
  }),
);

const RecoverRequest = named(
  'RecoverRequest',
  Type.Object({ email: Email }, { additionalProperties: false }),
);

const RecoverAccepted = named(
  'RecoverAccepted',
  Type.Object({
    accepted: Type.Literal(true),
    message: Type.String(),
  }),
);

const ResetPasswordRequest = named(
  'ResetPasswordRequest',
  Type.Object({ token: TokenParam, password: Password }, { additionalProperties: false }),
);

/** Whether `viewer` may see the account of `userId`: it is their own, or they share a company. */
export async function sharesCompany(ctx: AccountContext, viewer: string, userId: string): Promise<boolean> {
  if (viewer === userId) return true;
  const mine = new Set((await ctx.store.accounts.listAccesses(viewer)).map((a) => a.companyId));
  return (await ctx.store.accounts.listAccesses(userId)).some((a) => mine.has(a.companyId));
}

const invitePending = (s: AccountState) =>
  s.invitedAt !== null && s.inviteAcceptedAt === null && !s.hasPassword;

const displayName = (u: { firstName: string | null; lastName: string | null; email: string | null }) =>
  [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email || 'A Tramline user';

async function sendInvite(
  ctx: AccountContext,
  req: FastifyRequest,
  invitee: { userId: string; email: string },
  inviterId: string,
  companyId: string | null,
) {
  const t = await ctx.store.userAccounts.issueToken(invitee.userId, 'invite', TOKEN_TTL.invite);
  if (!t) throw new Error('a new invitation token clashed');
  const inviter = await ctx.store.accounts.findUserById(inviterId);
  const company = companyId ? await ctx.store.accounts.findCompanyById(companyId) : null;
  const delivery = await ctx.mailer.send(
    inviteMail({
      to: invitee.email,
      inviter: inviter ? displayName(inviter) : 'A Tramline user',
      companyName: company?.name ?? null,
      url: accountLink(ctx, req, '/account/accept-invite', t.token),
      ttlSeconds: TOKEN_TTL.invite,
    }),
  );
  return { expiresAt: t.expiresAt, delivery };
}

export async function accountEmailRoutes(app: FastifyInstance, ctx: AccountContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store, tokens } = ctx;

  r.post(
    '/api/account/register-invite',
    {
      schema: {
        tags: ['Account'],
        summary: 'Invite a person by e-mail',
        description:
          'Makes an account for the e-mail address (no password yet), gives it access to the company and mails an invitation whose link (7 days, once) lets the person choose a password (POST /api/account/accept-invite). Only an admin of the company may invite (403 otherwise; 404 for a company you cannot access). Inviting an address again that has not accepted yet sends a new link (the old one dies). 409 USER_EXISTS when the address belongs to an account in use: grant that user access instead.',
        body: RegisterInviteRequest,
        response: answers({ 201: { schema: Invitation, description: 'Invited.' } }, 400, 403, 404, 409),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const b = req.body;
      await requireCompany(store, req, b.companyId, 'admin');
      const role = companyRole(b.role ?? 'editor');
      const invitee = await store
        .transaction(async (tx) => {
          const existing = await tx.accounts.findUserByEmail(b.email);
          if (existing) {
            const state = await tx.userAccounts.get(existing.id);
            if (!state || !invitePending(state)) return null;
          }
          const user =
            existing ??
            (await tx.accounts.createUser({
              email: b.email,
              firstName: b.firstName ?? null,
              lastName: b.lastName ?? null,
            }));
          await tx.userAccounts.update(user.id, 'invite', { invitedBy: p.userId, invitedAt: new Date() });
          await tx.accounts.grantAccess(user.id, b.companyId, role);
          return { userId: user.id, email: user.email ?? b.email.toLowerCase() };
        })
        .catch((e) => {
          // Two invitations of one new address at once: the unique index refuses the second.
          if (sqlStateOf(e) === '23505') return null;
          throw e;
        });
      if (!invitee)
        throw new ApiError(
          409,
          'USER_EXISTS',
          `${b.email} has an account already; give that user access to the company instead of inviting them.`,
        );
      noteCompanyWrite(req, { companyId: b.companyId, objectId: invitee.userId });
      const sent = await sendInvite(ctx, req, invitee, p.userId, b.companyId);
      const state = await store.userAccounts.get(invitee.userId);
      return reply.code(201).send({
        userId: invitee.userId,
        email: invitee.email,
        companyId: b.companyId,
        role,
        invitedAt: iso(state!.invitedAt!),
        expiresAt: iso(sent.expiresAt),
        mailDelivery: sent.delivery,
      });
    },
  );

  r.post(
    '/api/account/resend-invite/:id',
    {
      schema: {
        tags: ['Account'],
        summary: 'Send an invitation again',
        description:
          '`id` is the invited user. Mails a new link (7 days); the earlier link dies. Who invited the person, or an admin of a company the invitee can access, may resend; 404 for anyone else and for users who were never invited. 409 INVITE_ACCEPTED once the invitation was taken up.',
        params: idParams('id'),
        response: answers({ 200: { schema: Invitation, description: 'Sent again.' } }, 400, 404, 409),
      },
    },
    async (req) => {
      const p = principalOf(req);
      const state = await store.userAccounts.get(req.params.id);
      if (!state || state.invitedAt === null || !state.email) throw notFound('invited user', req.params.id);
      const accesses = await store.accounts.listAccesses(state.userId);
      let allowed = state.invitedBy === p.userId;
      let companyId: string | null = null;
      let role: CompanyRole | null = null;
      for (const a of accesses) {
        const mine = await store.companies.role(p.userId, a.companyId);
        if (mine) {
          companyId ??= a.companyId;
          role ??= a.role;
        }
        if (mine === 'admin') allowed = true;
      }
      if (!allowed) throw notFound('invited user', req.params.id);
      if (!invitePending(state))
        throw new ApiError(409, 'INVITE_ACCEPTED', `User ${state.userId} accepted the invitation already.`);
      const sent = await sendInvite(
        ctx,
        req,
        { userId: state.userId, email: state.email },
        p.userId,
        companyId,
      );
      return {
        userId: state.userId,
        email: state.email,
        companyId,
        role,
        invitedAt: iso(state.invitedAt),
        expiresAt: iso(sent.expiresAt),
        mailDelivery: sent.delivery,
      };
    },
  );

  r.post(
    '/api/account/accept-invite',
    {
      schema: {
        tags: ['Account'],
        summary: 'Accept an invitation',
        description:
          'The token from the invitation link and a password: the account gets its password (and names, when given), its e-mail address counts as confirmed (the mail reached it), and the person is signed in. 400 INVALID_TOKEN for an unknown, used or expired link. No API key needed.',
        security: [],
        body: AcceptInviteRequest,
        response: answers({ 200: { schema: SessionTokens, description: 'Accepted and signed in.' } }, 400),
      },
    },
    async (req) => {
      const b = req.body;
      const passwordHash = await hashPassword(b.password);
      const userId = await store.transaction(async (tx) => {
        const used = await tx.userAccounts.useToken(b.token, 'invite');
        if (!used) return null;
        await tx.userAccounts.setPasswordHash(used.userId, passwordHash);
        await tx.userAccounts.setNames(used.userId, { firstName: b.firstName, lastName: b.lastName });
        const now = new Date();
        await tx.userAccounts.update(used.userId, 'invite', { inviteAcceptedAt: now, emailConfirmedAt: now });
        return used.userId;
      });
      if (!userId) throw invalidToken('invitation');
      // The invitee takes up the access they were given: an event in each of their companies.
      for (const a of await store.accounts.listAccesses(userId)) {
        noteCompanyWrite(req, { companyId: a.companyId, objectId: userId, userId });
      }
      return issueSession(store, tokens, userId, 'invite');
    },
  );

  r.get(
    '/api/account/confirm-account',
    {
      schema: {
        tags: ['Account'],
        summary: 'Confirm the e-mail address of a new account',
        description:
          'The link of the confirmation mail sent on registration (3 days, once). 400 INVALID_TOKEN for an unknown, used or expired link. No API key needed.',
        security: [],
        querystring: TokenQuery,
        response: answers({ 200: { schema: EmailConfirmation, description: 'Confirmed.' } }, 400),
      },
    },
    async (req) => {
      const out = await store.transaction(async (tx) => {
        const used = await tx.userAccounts.useToken(req.query.token, 'confirm-account');
        if (!used) return null;
        const state = await tx.userAccounts.get(used.userId);
        await tx.userAccounts.update(used.userId, state?.source ?? 'password', {
          emailConfirmedAt: new Date(),
        });
        return { userId: used.userId, email: state?.email ?? '' };
      });
      if (!out) throw invalidToken('confirmation');
      return { ...out, confirmed: true as const };
    },
  );

  r.get(
    '/api/account/confirm-email',
    {
      schema: {
        tags: ['Account'],
        summary: 'Confirm a changed e-mail address',
        description:
          'The link mailed to a new address given in POST /api/account/profile (3 days, once): the account takes the new address from now on, confirmed. 400 INVALID_TOKEN for an unknown, used or expired link; 409 EMAIL_TAKEN when another account took the address meanwhile. No API key needed.',
        security: [],
        querystring: TokenQuery,
        response: answers({ 200: { schema: EmailConfirmation, description: 'Confirmed.' } }, 400, 409),
      },
    },
    async (req) => {
      const out = await store.transaction(async (tx) => {
        const used = await tx.userAccounts.useToken(req.query.token, 'confirm-email');
        if (!used || typeof used.data.email !== 'string') return null;
        const email = used.data.email;
        if (!(await tx.userAccounts.setEmail(used.userId, email))) return 'taken' as const;
        const state = await tx.userAccounts.get(used.userId);
        await tx.userAccounts.update(used.userId, state?.source ?? 'password', {
          emailConfirmedAt: new Date(),
          pendingEmail: null,
        });
        return { userId: used.userId, email };
      });
      if (out === 'taken')
        throw new ApiError(
          409,
          'EMAIL_TAKEN',
          'Another account uses this e-mail address now; choose another.',
        );
      if (!out) throw invalidToken('e-mail confirmation');
      return { ...out, confirmed: true as const };
    },
  );

  r.get(
    '/api/account/is-confirmed/:userId',
    {
      schema: {
        tags: ['Account'],
        summary: 'Whether a user has confirmed their e-mail address',
        description:
          'For yourself or a user of a company you can access; 404 for anyone else (and unknown users).',
        params: idParams('userId'),
        response: answers({ 200: { schema: ConfirmationState, description: 'The state.' } }, 400, 404),
      },
    },
    async (req) => {
      const viewer = principalOf(req).userId;
      const state = await store.userAccounts.get(req.params.userId);
      if (!state || !(await sharesCompany(ctx, viewer, state.userId)))
        throw notFound('user', req.params.userId);
      return {
        userId: state.userId,
        confirmed: state.emailConfirmedAt !== null,
        confirmedAt: state.emailConfirmedAt ? iso(state.emailConfirmedAt) : null,
        invitePending: invitePending(state),
      };
    },
  );

  r.post(
    '/api/account/recover',
    {
      schema: {
        tags: ['Account'],
        summary: 'Ask for a password reset mail',
        description:
          'When an account has this e-mail address, a mail with a password reset link (1 hour, once; POST /api/account/reset-password) goes to it. The answer is 202 either way, at once, so it does not tell whether the address has an account. No API key needed.',
        security: [],
        body: RecoverRequest,
        response: answers({ 202: { schema: RecoverAccepted, description: 'Taken.' } }, 400),
      },
    },
    async (req, reply) => {
      const email = req.body.email;
      afterAnswer(req, 'password recovery mail', async () => {
        const user = await store.accounts.findUserByEmail(email);
        if (!user?.email) return;
        const t = await store.userAccounts.issueToken(user.id, 'recover', TOKEN_TTL.recover);
        if (!t) return;
        const url = accountLink(ctx, req, '/account/reset-password', t.token);
        await ctx.mailer.send(recoverMail({ to: user.email, url, ttlSeconds: TOKEN_TTL.recover }));
      });
      return reply.code(202).send({
        accepted: true as const,
        message:
          'If an account has this e-mail address, a password reset link is on its way to it; it works for 1 hour.',
      });
    },
  );

  r.post(
    '/api/account/reset-password',
    {
      schema: {
        tags: ['Account'],
        summary: 'Set a new password with a recovery link',
        description:
          'The token from the password reset mail and the new password: the password is set, every session of the account ends (API keys stay), the e-mail address counts as confirmed, and the answer is a new session. 400 INVALID_TOKEN for an unknown, used or expired link. No API key needed.',
        security: [],
        body: ResetPasswordRequest,
        response: answers(
          { 200: { schema: SessionTokens, description: 'New password set; signed in.' } },
          400,
        ),
      },
    },
    async (req) => {
      const b = req.body;
      const passwordHash = await hashPassword(b.password);
      const userId = await store.transaction(async (tx) => {
        const used = await tx.userAccounts.useToken(b.token, 'recover');
        if (!used) return null;
        await tx.userAccounts.setPasswordHash(used.userId, passwordHash);
        const state = await tx.userAccounts.get(used.userId);
        await tx.userAccounts.update(used.userId, state?.source ?? 'password', {
          emailConfirmedAt: state?.emailConfirmedAt ?? new Date(),
          ...(state && invitePending(state) ? { inviteAcceptedAt: new Date() } : {}),
        });
        await tx.sessions.revokeAll(used.userId);
        return used.userId;
      });
      if (!userId) throw invalidToken('password reset');
      return issueSession(store, tokens, userId, 'recover');
    },
  );
}
