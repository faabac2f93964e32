/**
 * Tenant scoping: every stored resource belongs to a company, and a user
 * reaches it only through a company access. Repositories put this
 * condition in the same statement as the read or write, so there is no
 * window between checking access and acting.
 *
 * Within a write request (`writeScope`, entered by the central role hook of
 * api/auth/company-roles.ts), the companies where the user is only a
 * viewer are left out, so a write that reaches a repository without the
 * hook having named its company still cannot change a viewer's company.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { and, inArray, ne, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../database.ts';
import { companyAccesses } from '../schema.ts';

/** The scope of the request being served: whether it may change data. */
export interface RequestScope {
  write: boolean;
}

/** Entered once per request by the API; jobs and tools run outside it (no restriction). */
export const writeScope = new AsyncLocalStorage<RequestScope>();

/** `column IN (companies the user can access)`; within a write request, companies they can write. */
export function accessibleTo(db: Database, userId: string, column: PgColumn): SQL {
  const write = writeScope.getStore()?.write === true;
  return inArray(
    column,
    db
      .select({ id: companyAccesses.companyId })
      .from(companyAccesses)
      .where(
        write
          ? and(inArray(companyAccesses.userId, [userId]), ne(companyAccesses.role, 'viewer'))
          : inArray(companyAccesses.userId, [userId]),
      ),
  );
}

/** Outcome of a conditional write: done, nothing there (for this user), or a stale version. */
export type WriteOutcome<T> = { ok: true; value: T } | { ok: false; reason: 'not-found' | 'stale' };
