/**
 * Shares of a plan: a random code opens exactly that plan, without a key,
 * until it expires or is revoked. Only the SHA-256 of a code is stored; the
 * code is shown once, when the share is made.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { shares } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo } from './scope.ts';

export interface ShareRecord {
  id: string;
  companyId: string;
  pathPlanId: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** The stored form of a share code (its SHA-256). */
export const shareCodeHash = (code: string) => createHash('sha256').update(code).digest('hex');
const hash = shareCodeHash;

/** A new random share code. */
export const newShareCode = () => `tls_${randomBytes(24).toString('base64url')}`;

const cols = {
  id: shares.id,
  companyId: shares.companyId,
  pathPlanId: shares.pathPlanId,
  createdBy: shares.createdBy,
  createdAt: shares.createdAt,
  expiresAt: shares.expiresAt,
  revokedAt: shares.revokedAt,
};

export function createSharesRepository(db: Database) {
  return {
    /** A new share; the plain code is returned once. */
    async create(input: {
      companyId: string;
      pathPlanId: string;
      userId: string;
      expiresInSeconds: number;
    }): Promise<{ share: ShareRecord; code: string }> {
      const code = newShareCode();
      const [share] = await db
        .insert(shares)
        .values({
          id: uuidv7(),
          codeHash: hash(code),
          companyId: input.companyId,
          pathPlanId: input.pathPlanId,
          createdBy: input.userId,
          expiresAt: sql`now() + make_interval(secs => ${input.expiresInSeconds})`,
        })
        .returning(cols);
      return { share: share as ShareRecord, code };
    },

    /** The live share of a code (not expired, not revoked), or null. */
    async byCode(code: string): Promise<ShareRecord | null> {
      const [row] = await db
        .select(cols)
        .from(shares)
        .where(
          and(eq(shares.codeHash, hash(code)), isNull(shares.revokedAt), gt(shares.expiresAt, sql`now()`)),
        );
      return (row as ShareRecord) ?? null;
    },

    async get(userId: string, id: string): Promise<ShareRecord | null> {
      const [row] = await db
        .select(cols)
        .from(shares)
        .where(and(eq(shares.id, id), accessibleTo(db, userId, shares.companyId)));
      return (row as ShareRecord) ?? null;
    },

    async listForPlan(userId: string, pathPlanId: string): Promise<ShareRecord[]> {
      return (await db
        .select(cols)
        .from(shares)
        .where(and(eq(shares.pathPlanId, pathPlanId), accessibleTo(db, userId, shares.companyId)))
        .orderBy(desc(shares.createdAt))) as ShareRecord[];
    },

    /** Revokes a share the user can access; false when there is none. Revoking twice is fine. */
    async revoke(userId: string, id: string): Promise<boolean> {
      const rows = await db
        .update(shares)
        .set({ revokedAt: sql`coalesce(${shares.revokedAt}, now())` })
        .where(and(eq(shares.id, id), accessibleTo(db, userId, shares.companyId)))
        .returning({ id: shares.id });
      return rows.length === 1;
    },
  };
}
