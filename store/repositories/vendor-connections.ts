/**
 * Vendor account links of companies (schema `vendor_connections`) and the
 * authorization requests that make them (`vendor_authorizations`). Tokens
 * are sealed with the deployment's token cipher (store/token-crypto.ts)
 * before they reach the database and opened only for a call to the vendor;
 * what this repository answers for display carries no token.
 */
import { and, asc, desc, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companies, companyAccesses, users, vendorAuthorizations, vendorConnections } from '../schema.ts';
import type { TokenCipher } from '../token-crypto.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo } from './scope.ts';

export interface VendorConnectionView {
  connectionId: string;
  companyId: string;
  vendor: string;
  userId: string | null;
  expiresAt: Date | null;
  scope: string | null;
  organizations: { id: string; name: string }[];
  createdAt: Date;
  updatedAt: Date;
}

export interface VendorTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scope: string | null;
}

const viewColumns = {
  connectionId: vendorConnections.id,
  companyId: vendorConnections.companyId,
  vendor: vendorConnections.vendor,
  userId: vendorConnections.userId,
  expiresAt: vendorConnections.expiresAt,
  scope: vendorConnections.scope,
  organizations: vendorConnections.organizations,
  createdAt: vendorConnections.createdAt,
  updatedAt: vendorConnections.updatedAt,
};

export function createVendorConnectionsRepository(db: Database, cipher: TokenCipher) {
  return {
    async startAuthorization(a: {
      state: string;
      companyId: string;
      userId: string;
      vendor: string;
      codeVerifier: string;
      redirectUri: string;
      expiresAt: Date;
    }): Promise<void> {
      // Requests nobody finished are of no use once expired.
      await db.delete(vendorAuthorizations).where(lt(vendorAuthorizations.expiresAt, sql`now()`));
      const { codeVerifier, ...rest } = a;
      await db
        .insert(vendorAuthorizations)
        .values({ ...rest, codeVerifierEnc: cipher.encrypt(codeVerifier) });
    },

    /** Takes an unexpired authorization request of the user (once: it is deleted). */
    async takeAuthorization(
      state: string,
      userId: string,
      vendor: string,
    ): Promise<{ companyId: string; codeVerifier: string; redirectUri: string } | null> {
      const rows = await db
        .delete(vendorAuthorizations)
        .where(
          and(
            eq(vendorAuthorizations.state, state),
            eq(vendorAuthorizations.userId, userId),
            eq(vendorAuthorizations.vendor, vendor),
          ),
        )
        .returning();
      const row = rows[0];
      if (!row || row.expiresAt.getTime() < Date.now()) return null;
      return {
        companyId: row.companyId,
        codeVerifier: cipher.decrypt(row.codeVerifierEnc),
        redirectUri: row.redirectUri,
      };
    },

    /** Links (or links again) the company's account at the vendor. */
    async save(
      companyId: string,
      vendor: string,
      userId: string | null,
      t: VendorTokens,
    ): Promise<VendorConnectionView> {
      const values = {
        accessTokenEnc: cipher.encrypt(t.accessToken),
        refreshTokenEnc: t.refreshToken === null ? null : cipher.encrypt(t.refreshToken),
        expiresAt: t.expiresAt,
        scope: t.scope,
      };
      await db
        .insert(vendorConnections)
        .values({ id: uuidv7(), companyId, vendor, userId, ...values })
        .onConflictDoUpdate({
          target: [vendorConnections.companyId, vendorConnections.vendor],
          set: { ...values, userId, updatedAt: sql`now()` },
        });
      return (await this.get(companyId, vendor))!;
    },

    /** New tokens of an existing link (after a refresh). */
    async updateTokens(companyId: string, vendor: string, t: VendorTokens): Promise<void> {
      await db
        .update(vendorConnections)
        .set({
          accessTokenEnc: cipher.encrypt(t.accessToken),
          refreshTokenEnc: t.refreshToken === null ? null : cipher.encrypt(t.refreshToken),
          expiresAt: t.expiresAt,
          scope: t.scope,
          updatedAt: sql`now()`,
        })
        .where(and(eq(vendorConnections.companyId, companyId), eq(vendorConnections.vendor, vendor)));
    },

    async setOrganizations(
      companyId: string,
      vendor: string,
      orgs: { id: string; name: string }[],
    ): Promise<void> {
      await db
        .update(vendorConnections)
        .set({ organizations: orgs, updatedAt: sql`now()` })
        .where(and(eq(vendorConnections.companyId, companyId), eq(vendorConnections.vendor, vendor)));
    },

    async get(companyId: string, vendor: string): Promise<VendorConnectionView | null> {
      const [row] = await db
        .select(viewColumns)
        .from(vendorConnections)
        .where(and(eq(vendorConnections.companyId, companyId), eq(vendorConnections.vendor, vendor)));
      return row ?? null;
    },

    async list(companyId: string): Promise<VendorConnectionView[]> {
      return db
        .select(viewColumns)
        .from(vendorConnections)
        .where(eq(vendorConnections.companyId, companyId))
        .orderBy(vendorConnections.vendor);
    },

    /** The tokens, opened, for a call to the vendor. */
    async tokens(companyId: string, vendor: string): Promise<VendorTokens | null> {
      const [row] = await db
        .select()
        .from(vendorConnections)
        .where(and(eq(vendorConnections.companyId, companyId), eq(vendorConnections.vendor, vendor)));
      if (!row) return null;
      return {
        accessToken: cipher.decrypt(row.accessTokenEnc),
        refreshToken: row.refreshTokenEnc === null ? null : cipher.decrypt(row.refreshTokenEnc),
        expiresAt: row.expiresAt,
        scope: row.scope,
      };
    },

    /**
     * The company (of those `viewerId` can access) whose vendor account
     * `userId` linked most recently, with its name; null without one.
     */
    async companyLinkedBy(
      viewerId: string,
      userId: string,
      vendor: string,
    ): Promise<(VendorConnectionView & { companyName: string }) | null> {
      const [row] = await db
        .select({ ...viewColumns, companyName: companies.name })
        .from(vendorConnections)
        .innerJoin(companies, eq(companies.id, vendorConnections.companyId))
        .where(
          and(
            eq(vendorConnections.userId, userId),
            eq(vendorConnections.vendor, vendor),
            accessibleTo(db, viewerId, vendorConnections.companyId),
          ),
        )
        .orderBy(desc(vendorConnections.updatedAt))
        .limit(1);
      return row ?? null;
    },

    /** The users of a company with their role, and whether each linked its account at the vendor. */
    async companyUsers(
      companyId: string,
      vendor: string,
    ): Promise<
      {
        userId: string;
        email: string | null;
        firstName: string | null;
        lastName: string | null;
        role: string;
        linked: boolean;
      }[]
    > {
      const link = await this.get(companyId, vendor);
      const rows = await db
        .select({
          userId: users.id,
          email: users.email,
          firstName: users.firstName,
          lastName: users.lastName,
          role: companyAccesses.role,
        })
        .from(companyAccesses)
        .innerJoin(users, eq(users.id, companyAccesses.userId))
        .where(eq(companyAccesses.companyId, companyId))
        .orderBy(asc(users.email), asc(users.id));
      return rows.map((r) => ({ ...r, linked: link?.userId === r.userId }));
    },

    async remove(companyId: string, vendor: string): Promise<boolean> {
      const rows = await db
        .delete(vendorConnections)
        .where(and(eq(vendorConnections.companyId, companyId), eq(vendorConnections.vendor, vendor)))
        .returning({ id: vendorConnections.id });
      return rows.length > 0;
    },
  };
}

export type VendorConnectionsRepository = ReturnType<typeof createVendorConnectionsRepository>;
