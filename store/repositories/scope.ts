/**
 * Tenant scoping: every stored resource belongs to a company, and a user
 * reaches it only through a company access. Repositories put this
 * condition in the same statement as the read or write, so there is no
 * window between checking access and acting.
 */
import { inArray, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../database.ts';
import { companyAccesses } from '../schema.ts';

/** `column IN (companies the user can access)`. */
export function accessibleTo(db: Database, userId: string, column: PgColumn): SQL {
  return inArray(
    column,
    db
      .select({ id: companyAccesses.companyId })
      .from(companyAccesses)
      .where(inArray(companyAccesses.userId, [userId])),
  );
}

/** Outcome of a conditional write: done, nothing there (for this user), or a stale version. */
export type WriteOutcome<T> = { ok: true; value: T } | { ok: false; reason: 'not-found' | 'stale' };
