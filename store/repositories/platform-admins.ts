/**
 * Platform administrators (schema `platform_admins`): who may use the
 * admin endpoints. The bootstrap key's user is one (store/bootstrap.ts);
 * others are granted and revoked through POST /api/admin/admin-user.
 */
import { count, eq } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { platformAdmins } from '../schema.ts';

export function createPlatformAdminsRepository(db: Database) {
  return {
    async isAdmin(userId: string): Promise<boolean> {
      const [row] = await db
        .select({ userId: platformAdmins.userId })
        .from(platformAdmins)
        .where(eq(platformAdmins.userId, userId));
      return row !== undefined;
    },

    /** Makes the user a platform admin (again: nothing changes). */
    async grant(userId: string, grantedBy: string | null): Promise<void> {
      await db.insert(platformAdmins).values({ userId, grantedBy }).onConflictDoNothing();
    },

    /** Takes the role away; false when the user did not have it. */
    async revoke(userId: string): Promise<boolean> {
      const rows = await db
        .delete(platformAdmins)
        .where(eq(platformAdmins.userId, userId))
        .returning({ userId: platformAdmins.userId });
      return rows.length > 0;
    },

    async count(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(platformAdmins);
      return Number(row?.n ?? 0);
    },
  };
}
