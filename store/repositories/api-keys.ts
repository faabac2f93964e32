/**
 * API keys: `tl_` + 43 base64url characters (32 random bytes). Only the
 * SHA-256 of a key is stored; the key itself is shown once, at creation.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { apiKeys, creditBalances, users } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

export const API_KEY_PREFIX = 'tl_';

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** `tl_AbCd…wXyZ`: enough to recognise a key in a list, useless to an attacker. */
export function maskApiKey(key: string): string {
  const body = key.startsWith(API_KEY_PREFIX) ? key.slice(API_KEY_PREFIX.length) : key;
  const prefix = key.startsWith(API_KEY_PREFIX) ? API_KEY_PREFIX : '';
  if (body.length < 12) return `${prefix}****`;
  return `${prefix}${body.slice(0, 4)}…${body.slice(-4)}`;
}

/**
 * Whether a header value could be a key at all (printable ASCII, sane length),
 * so junk is refused without touching the database.
 */
export function plausibleApiKey(v: unknown): v is string {
  return typeof v === 'string' && v.length >= 16 && v.length <= 256 && /^[\x21-\x7e]+$/.test(v);
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  companyId: string;
  name: string;
  masked: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/**
 * Who a request speaks for: a valid API key, or a live sign-in session
 * (then `keyId` is the session id and `companyId` the company it bills).
 */
export interface KeyPrincipal {
  /** How the caller authenticated (absent means an API key). */
  kind?: 'apiKey' | 'session';
  keyId: string;
  keyName: string;
  keyMasked: string;
  userId: string;
  companyId: string;
  partnerAdmin: boolean;
  /**
   * The billed company never runs out of credits (known for keys; absent for
   * sessions), so planning need not touch its balance.
   */
  unlimitedCredits?: boolean;
}

/** How long a process trusts a key it has looked up [ms] (TRAMLINE_KEY_CACHE_SECONDS, default 5 s). */
export const DEFAULT_KEY_CACHE_TTL_MS = 5000;

/**
 * Keys this process has recently resolved, by key hash, so a request does not
 * pay a database lookup. What this process changes (revoking a key, the
 * partner admin flag, an unlimited balance) clears the cache at once; a
 * change made by another process (another server or the CLI on a shared
 * PostgreSQL) takes effect here within the TTL. Only valid keys are kept;
 * unknown ones are looked up every time (and rate limited per address).
 */
export interface KeyCache {
  get(hash: string): KeyPrincipal | undefined;
  /** Keeps a principal looked up when the cache was at `generation`, unless it was cleared since. */
  set(hash: string, principal: KeyPrincipal, generation: number): void;
  /** Bumped by every clear(); a lookup that straddles a clear is not kept. */
  readonly generation: number;
  clear(): void;
}

export function createKeyCache(ttlMs = DEFAULT_KEY_CACHE_TTL_MS, maxEntries = 10_000): KeyCache {
  const entries = new Map<string, { principal: KeyPrincipal; expires: number }>();
  let generation = 0;
  return {
    get(hash) {
      const e = entries.get(hash);
      if (!e) return undefined;
      if (performance.now() >= e.expires) {
        entries.delete(hash);
        return undefined;
      }
      return e.principal;
    },
    set(hash, principal, gen) {
      if (ttlMs <= 0 || gen !== generation) return;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(hash, { principal: Object.freeze(principal), expires: performance.now() + ttlMs });
    },
    get generation() {
      return generation;
    },
    clear() {
      generation++;
      entries.clear();
    },
  };
}

const publicColumns = {
  id: apiKeys.id,
  userId: apiKeys.userId,
  companyId: apiKeys.companyId,
  name: apiKeys.name,
  masked: apiKeys.masked,
  createdAt: apiKeys.createdAt,
  revokedAt: apiKeys.revokedAt,
};

/** A cache that keeps nothing (repositories made without one). */
const NO_CACHE = createKeyCache(0);

export function createApiKeysRepository(db: Database, cache: KeyCache = NO_CACHE) {
  return {
    /**
     * Stores a key for a user, billed to a company. Pass `key` to register a
     * given key (the bootstrap key); otherwise a new one is generated. The
     * plain key is returned once and never stored.
     */
    async create(input: {
      userId: string;
      companyId: string;
      name?: string;
      key?: string;
    }): Promise<{ record: ApiKeyRecord; key: string }> {
      const key = input.key ?? generateApiKey();
      const [record] = await db
        .insert(apiKeys)
        .values({
          id: uuidv7(),
          userId: input.userId,
          companyId: input.companyId,
          name: input.name ?? '',
          keyHash: hashApiKey(key),
          masked: maskApiKey(key),
        })
        .returning(publicColumns);
      return { record, key };
    },

    /** The key record for a plain key, revoked or not. */
    async findByKey(key: string): Promise<ApiKeyRecord | null> {
      const [row] = await db
        .select(publicColumns)
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, hashApiKey(key)));
      return row ?? null;
    },

    /**
     * The principal of a valid (existing, unrevoked) key; null otherwise.
     * From the key cache, else one indexed lookup (kept in the cache).
     */
    async authenticate(key: string): Promise<KeyPrincipal | null> {
      const hash = hashApiKey(key);
      const cached = cache.get(hash);
      if (cached) return cached;
      const generation = cache.generation;
      const r = await db.execute(sql`
        select k.id as "keyId", k.name as "keyName", k.masked as "keyMasked", k.user_id as "userId",
               k.company_id as "companyId", u.partner_admin as "partnerAdmin",
               coalesce(b.unlimited, false) as "unlimitedCredits"
          from ${apiKeys} k
          join ${users} u on u.id = k.user_id
          left join ${creditBalances} b on b.company_id = k.company_id
         where k.key_hash = ${hash} and k.revoked_at is null`);
      const row = rowsOf<KeyPrincipal>(r)[0];
      if (!row) return null;
      const principal: KeyPrincipal = {
        keyId: row.keyId,
        keyName: row.keyName,
        keyMasked: row.keyMasked,
        userId: row.userId,
        companyId: row.companyId,
        partnerAdmin: row.partnerAdmin === true,
        unlimitedCredits: row.unlimitedCredits === true,
      };
      cache.set(hash, principal, generation);
      return principal;
    },

    /** Revokes a key of this user; false when it is not theirs, unknown or already revoked. */
    async revokeOwn(id: string, userId: string): Promise<boolean> {
      const rows = await db
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      cache.clear();
      return rows.length > 0;
    },

    /** A key of this user (revoked or not), or null. */
    async findOwn(id: string, userId: string): Promise<ApiKeyRecord | null> {
      const [row] = await db
        .select(publicColumns)
        .from(apiKeys)
        .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId)));
      return row ?? null;
    },

    async list(userId?: string): Promise<ApiKeyRecord[]> {
      const q = db.select(publicColumns).from(apiKeys);
      return (userId ? q.where(eq(apiKeys.userId, userId)) : q).orderBy(
        asc(apiKeys.createdAt),
        asc(apiKeys.id),
      );
    },

    /** Revokes a key; true when it was active. */
    async revoke(id: string): Promise<boolean> {
      const rows = await db
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      cache.clear();
      return rows.length > 0;
    },
  };
}

/** Rows of `db.execute` on either driver. */
function rowsOf<T>(r: unknown): T[] {
  return (Array.isArray(r) ? r : ((r as { rows?: T[] }).rows ?? [])) as T[];
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
