/**
 * API keys: `tl_` + 43 base64url characters (32 random bytes). Only the
 * SHA-256 of a key is stored; the key itself is shown once, at creation.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { apiKeys, users } from '../schema.ts';
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

export function createApiKeysRepository(db: Database) {
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

    /** The principal of a valid (existing, unrevoked) key; null otherwise. One indexed lookup. */
    async authenticate(key: string): Promise<KeyPrincipal | null> {
      const [row] = await db
        .select({
          keyId: apiKeys.id,
          keyName: apiKeys.name,
          keyMasked: apiKeys.masked,
          userId: apiKeys.userId,
          companyId: apiKeys.companyId,
          partnerAdmin: users.partnerAdmin,
        })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(and(eq(apiKeys.keyHash, hashApiKey(key)), isNull(apiKeys.revokedAt)));
      return row ?? null;
    },

    /** Revokes a key of this user; false when it is not theirs, unknown or already revoked. */
    async revokeOwn(id: string, userId: string): Promise<boolean> {
      const rows = await db
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
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
      return rows.length > 0;
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
