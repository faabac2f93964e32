/** Users, companies and company accesses. All SQL about accounts lives here. */
import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companies, companyAccesses, users } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

/** admin: also manages access and deletes the company; editor: reads and writes its data; viewer: reads. */
export type CompanyRole = 'admin' | 'editor' | 'viewer';

export const COMPANY_ROLES: readonly CompanyRole[] = ['admin', 'editor', 'viewer'];

/** A stored role as the API tells it: 'member', written before roles, is an editor. */
export function companyRole(stored: string): CompanyRole {
  return stored === 'admin' || stored === 'viewer' ? stored : 'editor';
}

export interface User {
  id: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  partnerUserId: string | null;
  partnerAdmin: boolean;
  /** Never leaves the store layer except to verify a password. */
  passwordHash: string | null;
  createdAt: Date;
}

export interface Company {
  id: string;
  name: string;
  partnerCompanyId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface CompanyAccess {
  companyId: string;
  companyName: string;
  role: CompanyRole;
}

export interface NewUser {
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  partnerUserId?: string | null;
  partnerAdmin?: boolean;
  passwordHash?: string | null;
}

export function createAccountsRepository(db: Database) {
  return {
    async createUser(u: NewUser): Promise<User> {
      const [row] = await db
        .insert(users)
        .values({
          id: uuidv7(),
          email: u.email ? u.email.toLowerCase() : null,
          firstName: u.firstName ?? null,
          lastName: u.lastName ?? null,
          partnerUserId: u.partnerUserId ?? null,
          partnerAdmin: u.partnerAdmin ?? false,
          passwordHash: u.passwordHash ?? null,
        })
        .returning();
      return row;
    },

    async findUserById(id: string): Promise<User | null> {
      const [row] = await db.select().from(users).where(eq(users.id, id));
      return row ?? null;
    },

    async findUserByEmail(email: string): Promise<User | null> {
      const [row] = await db.select().from(users).where(eq(users.email, email.toLowerCase()));
      return row ?? null;
    },

    /** The user with this e-mail, created if absent (idempotent, safe under concurrency). */
    async ensureUserByEmail(email: string, extra: Omit<NewUser, 'email'> = {}): Promise<User> {
      const e = email.toLowerCase();
      await db
        .insert(users)
        .values({
          id: uuidv7(),
          email: e,
          firstName: extra.firstName ?? null,
          lastName: extra.lastName ?? null,
          partnerUserId: extra.partnerUserId ?? null,
          partnerAdmin: extra.partnerAdmin ?? false,
        })
        .onConflictDoNothing({ target: users.email });
      const [row] = await db.select().from(users).where(eq(users.email, e));
      return row;
    },

    async setPartnerAdmin(userId: string, partnerAdmin: boolean): Promise<void> {
      await db.update(users).set({ partnerAdmin }).where(eq(users.id, userId));
    },

    async createCompany(name: string, partnerCompanyId: string | null = null): Promise<Company> {
      const [row] = await db.insert(companies).values({ id: uuidv7(), name, partnerCompanyId }).returning();
      return row;
    },

    async findCompanyById(id: string): Promise<Company | null> {
      const [row] = await db.select().from(companies).where(eq(companies.id, id));
      return row ?? null;
    },

    /** Grants (or changes) a user's access to a company. Idempotent. */
    async grantAccess(userId: string, companyId: string, role: CompanyRole = 'editor'): Promise<void> {
      await db
        .insert(companyAccesses)
        .values({ id: uuidv7(), userId, companyId, role })
        .onConflictDoUpdate({ target: [companyAccesses.userId, companyAccesses.companyId], set: { role } });
    },

    /** Companies the user may act in, oldest access first. */
    async listAccesses(userId: string): Promise<CompanyAccess[]> {
      const rows = await db
        .select({ companyId: companies.id, companyName: companies.name, role: companyAccesses.role })
        .from(companyAccesses)
        .innerJoin(companies, eq(companies.id, companyAccesses.companyId))
        .where(eq(companyAccesses.userId, userId))
        .orderBy(asc(companyAccesses.createdAt), asc(companyAccesses.id));
      return rows.map((r) => ({ ...r, role: companyRole(r.role) }));
    },

    /** The first company where the user is an admin, if any. */
    async firstAdminCompany(userId: string): Promise<Company | null> {
      const [row] = await db
        .select({ company: companies })
        .from(companyAccesses)
        .innerJoin(companies, eq(companies.id, companyAccesses.companyId))
        .where(and(eq(companyAccesses.userId, userId), eq(companyAccesses.role, 'admin')))
        .orderBy(asc(companyAccesses.createdAt), asc(companyAccesses.id))
        .limit(1);
      return row?.company ?? null;
    },
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;
