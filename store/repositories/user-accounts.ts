/**
 * Account state beside the user row (confirmation, invitation, pending
 * e-mail, profile details, demo company) and one-time account tokens.
 *
 * Tokens are 256-bit random strings handed out once; only their SHA-256 is
 * stored. `useToken` is one compare-and-swap UPDATE, so a token works once
 * even when two requests race for it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { accountTokens, userAccounts, users } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

export type AccountSource = 'password' | 'invite' | 'external' | 'partner' | 'key';

export type AccountTokenKind =
  | 'invite'
  | 'confirm-account'
  | 'confirm-email'
  | 'recover'
  | 'session'
  | 'oauth-code';

export const ACCOUNT_TOKEN_PREFIX = 'tlt_';

export interface AccountState {
  userId: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  hasPassword: boolean;
  source: AccountSource;
  emailConfirmedAt: Date | null;
  invitedBy: string | null;
  invitedAt: Date | null;
  inviteAcceptedAt: Date | null;
  pendingEmail: string | null;
  phone: string | null;
  language: string | null;
  demoCompanyId: string | null;
  createdAt: Date;
}

export interface UsedToken {
  userId: string;
  data: Record<string, unknown>;
}

export const hashAccountToken = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');

export function newAccountToken(): string {
  return ACCOUNT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

type StatePatch = Partial<
  Pick<
    typeof userAccounts.$inferInsert,
    | 'emailConfirmedAt'
    | 'invitedBy'
    | 'invitedAt'
    | 'inviteAcceptedAt'
    | 'pendingEmail'
    | 'phone'
    | 'language'
    | 'demoCompanyId'
  >
>;

export function createUserAccountsRepository(db: Database) {
  /** The source of a user without an account row: told from how the user row was made. */
  const impliedSource = sql<string>`case when ${users.passwordHash} is not null then 'password' when ${users.partnerUserId} is not null then 'partner' else 'key' end`;

  return {
    /** The account state of a user; null when there is no such user. */
    async get(userId: string): Promise<AccountState | null> {
      const [row] = await db
        .select({
          userId: users.id,
          email: users.email,
          firstName: users.firstName,
          lastName: users.lastName,
          hasPassword: sql<boolean>`${users.passwordHash} is not null`,
          source: sql<string>`coalesce(${userAccounts.source}, ${impliedSource})`,
          emailConfirmedAt: userAccounts.emailConfirmedAt,
          invitedBy: userAccounts.invitedBy,
          invitedAt: userAccounts.invitedAt,
          inviteAcceptedAt: userAccounts.inviteAcceptedAt,
          pendingEmail: userAccounts.pendingEmail,
          phone: userAccounts.phone,
          language: userAccounts.language,
          demoCompanyId: userAccounts.demoCompanyId,
          createdAt: users.createdAt,
        })
        .from(users)
        .leftJoin(userAccounts, eq(userAccounts.userId, users.id))
        .where(eq(users.id, userId));
      if (!row) return null;
      return {
        ...row,
        source: row.source as AccountSource,
        emailConfirmedAt: row.emailConfirmedAt ? new Date(row.emailConfirmedAt) : null,
        invitedAt: row.invitedAt ? new Date(row.invitedAt) : null,
        inviteAcceptedAt: row.inviteAcceptedAt ? new Date(row.inviteAcceptedAt) : null,
        createdAt: new Date(row.createdAt),
      };
    },

    /** Writes account state of a user, making the row (with `source`) when absent. */
    async update(userId: string, source: AccountSource, patch: StatePatch): Promise<void> {
      await db
        .insert(userAccounts)
        .values({ userId, source, ...patch })
        .onConflictDoUpdate({
          target: userAccounts.userId,
          set: { ...patch, updatedAt: sql`now()` },
        });
    },

    async setNames(userId: string, names: { firstName?: string | null; lastName?: string | null }) {
      const set: Partial<typeof users.$inferInsert> = {};
      if (names.firstName !== undefined) set.firstName = names.firstName;
      if (names.lastName !== undefined) set.lastName = names.lastName;
      if (Object.keys(set).length > 0) await db.update(users).set(set).where(eq(users.id, userId));
    },

    async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
      await db.update(users).set({ passwordHash }).where(eq(users.id, userId));
    },

    /** Makes `email` the user's address; false when another user holds it. */
    async setEmail(userId: string, email: string): Promise<boolean> {
      const e = email.toLowerCase();
      const [other] = await db.select({ id: users.id }).from(users).where(eq(users.email, e));
      if (other && other.id !== userId) return false;
      await db.update(users).set({ email: e }).where(eq(users.id, userId));
      return true;
    },

    /**
     * A new one-time token of `kind` for the user, valid `ttlSeconds`; the
     * user's earlier unused tokens of that kind die (one live link at a time)
     * unless `keepOthers`. `token` may be given (a client-made token id).
     */
    async issueToken(
      userId: string,
      kind: AccountTokenKind,
      ttlSeconds: number,
      opts: { data?: Record<string, unknown>; token?: string; keepOthers?: boolean } = {},
    ): Promise<{ token: string; expiresAt: Date } | null> {
      if (!opts.keepOthers) {
        await db
          .update(accountTokens)
          .set({ usedAt: sql`now()` })
          .where(
            and(eq(accountTokens.userId, userId), eq(accountTokens.kind, kind), isNull(accountTokens.usedAt)),
          );
      }
      const token = opts.token ?? newAccountToken();
      const rows = await db
        .insert(accountTokens)
        .values({
          id: uuidv7(),
          kind,
          tokenHash: hashAccountToken(token),
          userId,
          data: opts.data ?? {},
          expiresAt: sql`now() + make_interval(secs => ${Math.floor(ttlSeconds)})`,
        })
        .onConflictDoNothing()
        .returning({ expiresAt: accountTokens.expiresAt });
      if (rows.length === 0) return null;
      return { token, expiresAt: new Date(rows[0].expiresAt) };
    },

    /** Uses a live token of `kind` (once); null when unknown, of another kind, used or expired. */
    async useToken(token: string, kind: AccountTokenKind): Promise<UsedToken | null> {
      const [row] = await db
        .update(accountTokens)
        .set({ usedAt: sql`now()` })
        .where(
          and(
            eq(accountTokens.tokenHash, hashAccountToken(token)),
            eq(accountTokens.kind, kind),
            isNull(accountTokens.usedAt),
            gt(accountTokens.expiresAt, sql`now()`),
          ),
        )
        .returning({ userId: accountTokens.userId, data: accountTokens.data });
      return row ?? null;
    },

    /** The user of a live token without using it (a page showing what the link is for). */
    async peekToken(token: string, kind: AccountTokenKind): Promise<UsedToken | null> {
      const [row] = await db
        .select({ userId: accountTokens.userId, data: accountTokens.data })
        .from(accountTokens)
        .where(
          and(
            eq(accountTokens.tokenHash, hashAccountToken(token)),
            eq(accountTokens.kind, kind),
            isNull(accountTokens.usedAt),
            gt(accountTokens.expiresAt, sql`now()`),
          ),
        );
      return row ?? null;
    },

    /** Deletes tokens expired or used more than a day ago. */
    async purgeTokens(): Promise<number> {
      const rows = await db
        .delete(accountTokens)
        .where(lt(accountTokens.expiresAt, sql`now() - interval '1 day'`))
        .returning({ id: accountTokens.id });
      return rows.length;
    },
  };
}

export type UserAccountsRepository = ReturnType<typeof createUserAccountsRepository>;
