/**
 * The first key: `TRAMLINE_BOOTSTRAP_API_KEY` registers, idempotently, an
 * admin user (a Partner Admin) and a company with unlimited credits that own
 * that key. Starting again with the same key changes nothing; a revoked
 * bootstrap key stays revoked.
 */
import type { Store } from './db.ts';

export const BOOTSTRAP_COMPANY_NAME = 'Tramline';

export interface BootstrapResult {
  created: boolean;
  revoked: boolean;
  userId: string;
  companyId: string;
  keyId: string;
}

export async function ensureBootstrapKey(
  store: Store,
  key: string,
  email = 'admin@localhost',
): Promise<BootstrapResult> {
  const attempt = () =>
    store.transaction(async (r) => {
      const existing = await r.apiKeys.findByKey(key);
      if (existing) {
        return {
          created: false,
          revoked: existing.revokedAt !== null,
          userId: existing.userId,
          companyId: existing.companyId,
          keyId: existing.id,
        };
      }
      const user = await r.accounts.ensureUserByEmail(email, { firstName: 'Admin', partnerAdmin: true });
      if (!user.partnerAdmin) await r.accounts.setPartnerAdmin(user.id, true);
      await r.platformAdmins.grant(user.id, null);
      const company =
        (await r.accounts.firstAdminCompany(user.id)) ??
        (await r.accounts.createCompany(BOOTSTRAP_COMPANY_NAME));
      await r.accounts.grantAccess(user.id, company.id, 'admin');
      await r.credits.set(company.id, 0, true);
      const { record } = await r.apiKeys.create({
        userId: user.id,
        companyId: company.id,
        name: 'bootstrap',
        key,
      });
      return { created: true, revoked: false, userId: user.id, companyId: company.id, keyId: record.id };
    });
  try {
    return await attempt();
  } catch (e) {
    // Another process registered it at the same moment (unique key hash or e-mail): read it back.
    return attempt().catch(() => {
      throw e;
    });
  }
}

/** Creates a user (or finds one by e-mail), a company for them and a key; returns the plain key once. */
export async function createKeyForNewAccount(
  store: Store,
  opts: {
    name?: string;
    email?: string;
    companyName?: string;
    credits?: number;
    unlimited?: boolean;
    partnerAdmin?: boolean;
  },
): Promise<{
  key: string;
  keyId: string;
  masked: string;
  userId: string;
  companyId: string;
  credits: number;
  unlimited: boolean;
}> {
  return store.transaction(async (r) => {
    const user = opts.email
      ? await r.accounts.ensureUserByEmail(opts.email)
      : await r.accounts.createUser({ firstName: opts.name ?? null });
    if (opts.partnerAdmin && !user.partnerAdmin) await r.accounts.setPartnerAdmin(user.id, true);
    let company = await r.accounts.firstAdminCompany(user.id);
    if (!company) {
      company = await r.accounts.createCompany(opts.companyName ?? opts.email ?? opts.name ?? 'Company');
      await r.accounts.grantAccess(user.id, company.id, 'admin');
    }
    let balance = await r.credits.get(company.id);
    if (opts.credits !== undefined || opts.unlimited !== undefined) {
      balance = await r.credits.set(company.id, opts.credits ?? balance.credits, opts.unlimited ?? false);
    } else if (balance.credits === 0 && !balance.unlimited) {
      balance = await r.credits.set(company.id, 0, false);
    }
    const { record, key } = await r.apiKeys.create({
      userId: user.id,
      companyId: company.id,
      name: opts.name,
    });
    return {
      key,
      keyId: record.id,
      masked: record.masked,
      userId: user.id,
      companyId: company.id,
      credits: balance.credits,
      unlimited: balance.unlimited,
    };
  });
}
