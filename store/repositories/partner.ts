/**
 * Partner hand-over (spec 4.3). Partner ids are scoped per partner (the
 * Partner Admin user who created the record), so two partners can both
 * have a user "42" and neither can reach the other's. Creation is
 * idempotent and safe under concurrency: insert-if-absent on the
 * (partner, partner id) unique index, then read back.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companies, companyAccesses, creditBalances, launchCodes, users } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import type { CompanyRole } from './accounts.ts';

export interface PartnerUser {
  userId: string;
  partnerUserId: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
}

export interface PartnerCompany {
  companyId: string;
  partnerCompanyId: string;
  name: string;
}

export type EnsureUserOutcome =
  | { ok: true; created: boolean; user: PartnerUser }
  | { ok: false; reason: 'details-required' | 'email-taken' };

const hashCode = (code: string) => createHash('sha256').update(code, 'utf8').digest('hex');

const userColumns = {
  userId: users.id,
  partnerUserId: users.partnerUserId,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
};

export function createPartnerRepository(db: Database) {
  const findUser = async (partnerId: string, partnerUserId: string): Promise<PartnerUser | null> => {
    const [row] = await db
      .select(userColumns)
      .from(users)
      .where(and(eq(users.partnerOwnerId, partnerId), eq(users.partnerUserId, partnerUserId)));
    return row ? { ...row, partnerUserId: row.partnerUserId! } : null;
  };
  const findCompany = async (partnerId: string, partnerCompanyId: string): Promise<PartnerCompany | null> => {
    const [row] = await db
      .select({ companyId: companies.id, partnerCompanyId: companies.partnerCompanyId, name: companies.name })
      .from(companies)
      .where(and(eq(companies.partnerOwnerId, partnerId), eq(companies.partnerCompanyId, partnerCompanyId)));
    return row ? { ...row, partnerCompanyId: row.partnerCompanyId! } : null;
  };

  return {
    findUser,
    findCompany,

    /** Finds the partner's user, or creates it when `details` has e-mail and names. */
    async ensureUser(
      partnerId: string,
      partnerUserId: string,
      details: { email?: string; firstName?: string; lastName?: string },
    ): Promise<EnsureUserOutcome> {
      const found = await findUser(partnerId, partnerUserId);
      if (found) return { ok: true, created: false, user: found };
      if (!details.email || !details.firstName || !details.lastName)
        return { ok: false, reason: 'details-required' };
      const inserted = await db
        .insert(users)
        .values({
          id: uuidv7(),
          email: details.email.toLowerCase(),
          firstName: details.firstName,
          lastName: details.lastName,
          partnerUserId,
          partnerOwnerId: partnerId,
        })
        .onConflictDoNothing()
        .returning({ id: users.id });
      const now = await findUser(partnerId, partnerUserId);
      if (now) return { ok: true, created: inserted.length > 0, user: now };
      return { ok: false, reason: 'email-taken' };
    },

    /** Finds the partner's company, or creates it (with a zero credit balance); the partner is its admin. */
    async ensureCompany(
      partnerId: string,
      partnerCompanyId: string,
      name: string,
    ): Promise<{ created: boolean; company: PartnerCompany }> {
      const id = uuidv7();
      const inserted = await db
        .insert(companies)
        .values({ id, name, partnerCompanyId, partnerOwnerId: partnerId })
        .onConflictDoNothing()
        .returning({ id: companies.id });
      const company = (await findCompany(partnerId, partnerCompanyId))!;
      if (inserted.length) {
        await db.insert(creditBalances).values({ companyId: id, credits: 0 }).onConflictDoNothing();
      }
      await db
        .insert(companyAccesses)
        .values({ id: uuidv7(), userId: partnerId, companyId: company.companyId, role: 'admin' })
        .onConflictDoUpdate({
          target: [companyAccesses.userId, companyAccesses.companyId],
          set: { role: 'admin' },
        });
      return { created: inserted.length > 0, company };
    },

    /** Grants (or changes the role of) a user's access to a company; answers whether it was new. */
    async grant(userId: string, companyId: string, role: CompanyRole): Promise<{ created: boolean }> {
      const [row] = await db
        .insert(companyAccesses)
        .values({ id: uuidv7(), userId, companyId, role })
        .onConflictDoUpdate({ target: [companyAccesses.userId, companyAccesses.companyId], set: { role } })
        .returning({ created: sql<boolean>`(xmax = 0)` });
      return { created: Boolean(row?.created) };
    },

    /** Issues a launch code for a user (returned once; only its hash is stored). */
    async issueLaunchCode(
      userId: string,
      issuedBy: string,
      returnUrl: string | null,
      ttlSeconds: number,
    ): Promise<string> {
      const code = randomBytes(32).toString('base64url');
      await db.insert(launchCodes).values({
        id: uuidv7(),
        codeHash: hashCode(code),
        userId,
        issuedBy,
        returnUrl,
        expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})`,
      });
      return code;
    },

    /**
     * Consumes a launch code for `userId` in one atomic UPDATE: of any number
     * of concurrent calls exactly one gets the code; replays, expired codes
     * and codes of other users get the reason.
     */
    async consumeLaunchCode(
      code: string,
      userId: string,
    ): Promise<
      { ok: true; returnUrl: string | null } | { ok: false; reason: 'unknown' | 'used' | 'expired' }
    > {
      const h = hashCode(code);
      const [row] = await db
        .update(launchCodes)
        .set({ usedAt: sql`now()` })
        .where(
          and(
            eq(launchCodes.codeHash, h),
            eq(launchCodes.userId, userId),
            isNull(launchCodes.usedAt),
            gt(launchCodes.expiresAt, sql`now()`),
          ),
        )
        .returning({ returnUrl: launchCodes.returnUrl });
      if (row) return { ok: true, returnUrl: row.returnUrl };
      const [known] = await db
        .select({ usedAt: launchCodes.usedAt })
        .from(launchCodes)
        .where(and(eq(launchCodes.codeHash, h), eq(launchCodes.userId, userId)));
      if (!known) return { ok: false, reason: 'unknown' };
      return { ok: false, reason: known.usedAt ? 'used' : 'expired' };
    },

    /** Deletes launch codes that expired over an hour ago. */
    async purgeLaunchCodes(): Promise<number> {
      const rows = await db
        .delete(launchCodes)
        .where(sql`${launchCodes.expiresAt} < now() - interval '1 hour'`)
        .returning({ id: launchCodes.id });
      return rows.length;
    },
  };
}

export type PartnerRepository = ReturnType<typeof createPartnerRepository>;
