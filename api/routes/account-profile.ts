/**
 * The account's own details:
 *   POST /api/account/check-user         (signed in) whether an e-mail address has an account, and its state
 *   POST /api/account/check-user-source  how an e-mail address signs in (password, partner or external provider)
 *   POST /api/account/profile            (signed in) read and change your profile, e-mail address and password
 *   POST /api/user/edit                  (signed in) change the names of yourself or of a person you invited
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AccountState } from '../../store/repositories/user-accounts.ts';
import { type AccountContext, accountLink, MailDeliverySchema, TOKEN_TTL } from '../account/context.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { ApiError } from '../errors.ts';
import type { MailDelivery } from '../mail/mailer.ts';
import { confirmEmailMail } from '../mail/templates.ts';
import { named } from '../openapi/components.ts';
import { Email, Password } from './account.ts';
import { answers, iso, notFound, optionalBody, principalOf, Timestamp, Uuid } from './common.ts';

const NullableName = (d: string) =>
  Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], {
    description: `${d} (null clears it).`,
  });
const Phone = Type.Union(
  [
    Type.String({
      minLength: 3,
      maxLength: 32,
      pattern: '^\\+?[0-9 ()./-]{3,32}$',
      description: 'Digits, spaces and ()./-, optionally starting with +.',
    }),
    Type.Null(),
  ],
  { description: 'Phone number (null clears it).' },
);
const Language = Type.Union(
  [
    Type.String({
      pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$',
      maxLength: 35,
      description: 'A BCP 47 language tag, e.g. de or en-GB.',
    }),
    Type.Null(),
  ],
  { description: 'Language of mail and pages (null: English).' },
);

const AccountSourceSchema = Type.Union(
  [
    Type.Literal('password'),
    Type.Literal('invite'),
    Type.Literal('external'),
    Type.Literal('partner'),
    Type.Literal('key'),
  ],
  {
    description:
      'How the account was made: registration with a password, an invitation, an external identity provider, a partner, or an operator-made key.',
  },
);

const Profile = named(
  'Profile',
  Type.Object({
    userId: Uuid('The user.'),
    email: Type.Union([Type.String(), Type.Null()]),
    emailConfirmed: Type.Boolean(),
    pendingEmail: Type.Union([Type.String(), Type.Null()], {
      description: 'A new address waiting for its confirmation link to be followed.',
    }),
    firstName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    language: Type.Union([Type.String(), Type.Null()]),
    source: AccountSourceSchema,
    hasPassword: Type.Boolean(),
    createdAt: Timestamp,
    mailDelivery: Type.Optional(MailDeliverySchema),
  }),
);

const ProfileRequest = named(
  'ProfileRequest',
  Type.Object(
    {
      firstName: Type.Optional(NullableName('First name')),
      lastName: Type.Optional(NullableName('Last name')),
      phone: Type.Optional(Phone),
      language: Type.Optional(Language),
      email: Type.Optional({
        ...Email,
        description:
          'A new e-mail address: a confirmation link goes to it, and the account takes it once the link is followed.',
      }),
      currentPassword: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 256,
          description: 'Needed with newPassword (when you have one).',
        }),
      ),
      newPassword: Type.Optional({
        ...Password,
        description: 'A new password (10 to 256 characters); your other sessions end.',
      }),
    },
    { additionalProperties: false },
  ),
);

const UserEditRequest = named(
  'UserEditRequest',
  Type.Object(
    {
      userId: Uuid('Yourself, or a person you invited who has not accepted yet.'),
      firstName: Type.Optional(NullableName('First name')),
      lastName: Type.Optional(NullableName('Last name')),
      phone: Type.Optional(Phone),
      language: Type.Optional(Language),
    },
    { additionalProperties: false },
  ),
);

const EmailRequest = (id: string) =>
  named(id, Type.Object({ email: Email }, { additionalProperties: false }));

const CheckUserAnswer = named(
  'CheckUserAnswer',
  Type.Object({
    email: Type.String({ description: 'The address, lower-cased.' }),
    exists: Type.Boolean({ description: 'Whether an account has this address.' }),
    confirmed: Type.Boolean({ description: 'Whether that account confirmed it (false without an account).' }),
    invitePending: Type.Boolean({ description: 'Invited, not accepted yet.' }),
  }),
);

const UserSource = named(
  'UserSource',
  Type.Object({
    signIn: Type.Union([Type.Literal('password'), Type.Literal('partner'), Type.Literal('external')], {
      description:
        'password: sign in with e-mail and password (also the answer for addresses without an account, so this does not tell who has one); partner: the account is reached only through the partner application that made it; external: through the identity provider named in `provider`.',
    }),
    provider: Type.Union([Type.String(), Type.Null()], {
      description: 'The external identity provider (signIn external); null otherwise.',
    }),
  }),
);

export function profileBody(s: AccountState, mailDelivery?: MailDelivery) {
  return {
    userId: s.userId,
    email: s.email,
    emailConfirmed: s.emailConfirmedAt !== null,
    pendingEmail: s.pendingEmail,
    firstName: s.firstName,
    lastName: s.lastName,
    phone: s.phone,
    language: s.language,
    source: s.source,
    hasPassword: s.hasPassword,
    createdAt: iso(s.createdAt),
    ...(mailDelivery ? { mailDelivery } : {}),
  };
}

export async function accountProfileRoutes(app: FastifyInstance, ctx: AccountContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = ctx;

  const stateOf = async (userId: string): Promise<AccountState> => {
    const s = await store.userAccounts.get(userId);
    if (!s) throw notFound('user', userId);
    return s;
  };

  r.post(
    '/api/account/check-user',
    {
      schema: {
        tags: ['Account'],
        summary: 'Whether an e-mail address has an account',
        description:
          'For inviting: whether the address has an account (then give it access instead of inviting), has confirmed it, or has an invitation pending.',
        body: EmailRequest('CheckUserRequest'),
        response: answers(
          { 200: { schema: CheckUserAnswer, description: 'The state of the address.' } },
          400,
        ),
      },
    },
    async (req) => {
      const email = req.body.email.toLowerCase();
      const user = await store.accounts.findUserByEmail(email);
      const s = user ? await store.userAccounts.get(user.id) : null;
      return {
        email,
        exists: s !== null,
        confirmed: s?.emailConfirmedAt != null,
        invitePending: s !== null && s.invitedAt !== null && s.inviteAcceptedAt === null && !s.hasPassword,
      };
    },
  );

  r.post(
    '/api/account/check-user-source',
    {
      schema: {
        tags: ['Account'],
        summary: 'How an e-mail address signs in',
        description:
          'For a sign-in page: password, partner or an external identity provider. Addresses without an account answer password, like accounts with a password, so the answer does not tell who has an account. No API key needed.',
        security: [],
        body: EmailRequest('CheckUserSourceRequest'),
        response: answers({ 200: { schema: UserSource, description: 'How to sign in.' } }, 400),
      },
    },
    async (req) => {
      const user = await store.accounts.findUserByEmail(req.body.email);
      const s = user ? await store.userAccounts.get(user.id) : null;
      if (s && !s.hasPassword && s.source === 'partner')
        return { signIn: 'partner' as const, provider: null };
      if (s && !s.hasPassword && s.source === 'external') {
        const provider = await store.externalIdentities.providerOf(s.userId);
        if (provider) return { signIn: 'external' as const, provider };
      }
      return { signIn: 'password' as const, provider: null };
    },
  );

  r.post(
    '/api/account/profile',
    {
      preValidation: optionalBody,
      schema: {
        tags: ['Account'],
        summary: 'Read or change your profile',
        description:
          'Without a body (or `{}`) it answers your profile; members given change it. A new `email` is not taken at once: a confirmation link goes to it (GET /api/account/confirm-email) and `pendingEmail` shows it until then (409 EMAIL_TAKEN when another account has it). `newPassword` needs `currentPassword` when you have a password (403 WRONG_PASSWORD otherwise) and ends your other sessions.',
        body: ProfileRequest,
        response: answers({ 200: { schema: Profile, description: 'Your profile.' } }, 400, 403, 409),
      },
    },
    async (req) => {
      const p = principalOf(req);
      const b = req.body;
      const before = await stateOf(p.userId);
      if (b.newPassword !== undefined) {
        if (before.hasPassword) {
          const user = await store.accounts.findUserById(p.userId);
          if (!b.currentPassword || !(await verifyPassword(b.currentPassword, user?.passwordHash ?? null)))
            throw new ApiError(
              403,
              'WRONG_PASSWORD',
              'currentPassword is missing or wrong; give your current password to set a new one.',
            );
        }
        await store.userAccounts.setPasswordHash(p.userId, await hashPassword(b.newPassword));
        await store.sessions.revokeAll(p.userId, p.kind === 'session' ? p.keyId : undefined);
      }
      let newEmail: string | null = null;
      if (b.email !== undefined && b.email.toLowerCase() !== before.email) {
        newEmail = b.email.toLowerCase();
        const other = await store.accounts.findUserByEmail(newEmail);
        if (other && other.id !== p.userId)
          throw new ApiError(409, 'EMAIL_TAKEN', `Another account uses ${b.email}; choose another address.`);
      }
      await store.userAccounts.setNames(p.userId, { firstName: b.firstName, lastName: b.lastName });
      await store.userAccounts.update(p.userId, before.source, {
        ...(b.phone !== undefined ? { phone: b.phone } : {}),
        ...(b.language !== undefined ? { language: b.language } : {}),
        ...(newEmail ? { pendingEmail: newEmail } : {}),
      });
      let delivery: MailDelivery | undefined;
      if (newEmail) {
        const t = await store.userAccounts.issueToken(p.userId, 'confirm-email', TOKEN_TTL.confirm, {
          data: { email: newEmail },
        });
        if (!t) throw new Error('a new account token clashed');
        delivery = await ctx.mailer.send(
          confirmEmailMail({
            to: newEmail,
            url: accountLink(ctx, req, '/api/account/confirm-email', t.token),
            ttlSeconds: TOKEN_TTL.confirm,
          }),
        );
      }
      return profileBody(await stateOf(p.userId), delivery);
    },
  );

  r.post(
    '/api/user/edit',
    {
      schema: {
        tags: ['Users'],
        summary: "Change a user's names and details",
        description:
          'Yourself, or a person you invited who has not accepted the invitation yet (to fix a misspelt name before they see it); 404 for anyone else. The e-mail address and password change only through POST /api/account/profile.',
        body: UserEditRequest,
        response: answers({ 200: { schema: Profile, description: 'The profile.' } }, 400, 404),
      },
    },
    async (req) => {
      const me = principalOf(req).userId;
      const b = req.body;
      const s = await store.userAccounts.get(b.userId);
      const mayEdit =
        s !== null &&
        (s.userId === me ||
          (s.invitedBy === me && s.inviteAcceptedAt === null && !s.hasPassword && s.invitedAt !== null));
      if (!s || !mayEdit) throw notFound('user', b.userId);
      await store.userAccounts.setNames(s.userId, { firstName: b.firstName, lastName: b.lastName });
      await store.userAccounts.update(s.userId, s.source, {
        ...(b.phone !== undefined ? { phone: b.phone } : {}),
        ...(b.language !== undefined ? { language: b.language } : {}),
      });
      return profileBody(await stateOf(s.userId));
    },
  );
}
