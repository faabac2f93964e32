/** Links of users' accounts to accounts at machine vendors' platforms; tokens arrive encrypted (api/account/token-cipher.ts). */
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { vendorConnections } from '../schema.ts';

export interface VendorConnection {
  id: string;
  userId: string;
  companyId: string | null;
  vendor: string;
  externalAccountId: string;
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  expiresAt: Date | null;
  scope: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewVendorConnection = Omit<VendorConnection, 'id' | 'createdAt' | 'updatedAt'>;

export function createVendorConnectionsRepository(db: Database) {
  const find = async (userId: string, vendor: string, externalAccountId: string) => {
    const [row] = await db
      .select()
      .from(vendorConnections)
      .where(
        and(
          eq(vendorConnections.userId, userId),
          eq(vendorConnections.vendor, vendor),
          eq(vendorConnections.externalAccountId, externalAccountId),
        ),
      );
    return (row as VendorConnection | undefined) ?? null;
  };
  return {
    find,

    /** Creates (with `id`) or replaces the link of (user, vendor, account). */
    async upsert(id: string, c: NewVendorConnection): Promise<VendorConnection> {
      const [row] = await db
        .insert(vendorConnections)
        .values({ id, ...c })
        .onConflictDoUpdate({
          target: [vendorConnections.userId, vendorConnections.vendor, vendorConnections.externalAccountId],
          set: {
            companyId: c.companyId,
            accessTokenEnc: c.accessTokenEnc,
            refreshTokenEnc: c.refreshTokenEnc,
            expiresAt: c.expiresAt,
            scope: c.scope,
            updatedAt: sql`now()`,
          },
        })
        .returning();
      return row as VendorConnection;
    },
  };
}

export type VendorConnectionsRepository = ReturnType<typeof createVendorConnectionsRepository>;
