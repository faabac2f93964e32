/**
 * Files users upload to a company, bytes in the database (bytea), so every
 * server process and both stores (PGlite, PostgreSQL) serve them. Reads and
 * writes are scoped to the companies the user can access in one statement.
 */
import { createHash } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { companies, userFiles } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';
import { accessibleTo } from './scope.ts';

export interface UserFileRecord {
  id: string;
  companyId: string;
  uploadedBy: string | null;
  fileName: string;
  kind: string;
  mediaType: string;
  size: number;
  sha256: string;
  hidden: boolean;
  createdAt: Date;
}

const meta = {
  id: userFiles.id,
  companyId: userFiles.companyId,
  uploadedBy: userFiles.uploadedBy,
  fileName: userFiles.fileName,
  kind: userFiles.kind,
  mediaType: userFiles.mediaType,
  size: userFiles.size,
  sha256: userFiles.sha256,
  hidden: userFiles.hidden,
  createdAt: userFiles.createdAt,
};

export interface NewUserFile {
  companyId: string;
  userId: string;
  fileName: string;
  kind: string;
  mediaType: string;
  content: Buffer;
}

/** What a company keeps as user files. */
export interface UserFileUsage {
  files: number;
  bytes: number;
}

/** Why a file was not stored: the quota it would pass, its limit and the use before it. */
export interface QuotaRefusal {
  quota: 'files' | 'bytes';
  limit: number;
  used: UserFileUsage;
}

async function createIn(db: Database, input: NewUserFile): Promise<UserFileRecord> {
  const [row] = await db
    .insert(userFiles)
    .values({
      id: uuidv7(),
      companyId: input.companyId,
      uploadedBy: input.userId,
      fileName: input.fileName,
      kind: input.kind,
      mediaType: input.mediaType,
      size: input.content.length,
      sha256: createHash('sha256').update(input.content).digest('hex'),
      content: input.content,
    })
    .returning(meta);
  return row as UserFileRecord;
}

async function usageIn(db: Database, companyId: string): Promise<UserFileUsage> {
  const [r] = await db
    .select({
      files: sql<number>`count(*)::int`,
      bytes: sql<number>`coalesce(sum(${userFiles.size}), 0)::bigint`,
    })
    .from(userFiles)
    .where(eq(userFiles.companyId, companyId));
  return { files: Number(r?.files ?? 0), bytes: Number(r?.bytes ?? 0) };
}

export function createUserFilesRepository(db: Database) {
  const scoped = (userId: string, id: string) =>
    and(eq(userFiles.id, id), accessibleTo(db, userId, userFiles.companyId));
  return {
    create: (input: NewUserFile) => createIn(db, input),

    /** Files and bytes a company keeps. */
    usage: (companyId: string) => usageIn(db, companyId),

    /**
     * Stores a file unless the company would then keep more than
     * `quota.maxFiles` files or `quota.maxBytes` bytes. Uploads to one
     * company wait for each other (its row is locked), so concurrent uploads
     * cannot pass the quota together.
     */
    async createWithinQuota(
      input: NewUserFile,
      quota: { maxFiles: number; maxBytes: number },
    ): Promise<{ file: UserFileRecord } | { refused: QuotaRefusal }> {
      return db.transaction(async (t) => {
        const tx = t as unknown as Database;
        await tx
          .select({ id: companies.id })
          .from(companies)
          .where(eq(companies.id, input.companyId))
          .for('update');
        const used = await usageIn(tx, input.companyId);
        if (used.files + 1 > quota.maxFiles)
          return { refused: { quota: 'files' as const, limit: quota.maxFiles, used } };
        if (used.bytes + input.content.length > quota.maxBytes)
          return { refused: { quota: 'bytes' as const, limit: quota.maxBytes, used } };
        return { file: await createIn(tx, input) };
      });
    },

    async list(userId: string, companyId: string, includeHidden: boolean): Promise<UserFileRecord[]> {
      return (await db
        .select(meta)
        .from(userFiles)
        .where(
          and(
            eq(userFiles.companyId, companyId),
            accessibleTo(db, userId, userFiles.companyId),
            includeHidden ? undefined : eq(userFiles.hidden, false),
          ),
        )
        .orderBy(desc(userFiles.createdAt), desc(userFiles.id))) as UserFileRecord[];
    },

    async get(userId: string, id: string): Promise<UserFileRecord | null> {
      const [row] = await db.select(meta).from(userFiles).where(scoped(userId, id));
      return (row as UserFileRecord) ?? null;
    },

    /** Metadata and bytes. */
    async content(userId: string, id: string): Promise<(UserFileRecord & { content: Buffer }) | null> {
      const [row] = await db
        .select({ ...meta, content: userFiles.content })
        .from(userFiles)
        .where(scoped(userId, id));
      return (row as UserFileRecord & { content: Buffer }) ?? null;
    },

    async setHidden(userId: string, id: string, hidden: boolean): Promise<UserFileRecord | null> {
      const [row] = await db.update(userFiles).set({ hidden }).where(scoped(userId, id)).returning(meta);
      return (row as UserFileRecord) ?? null;
    },

    async delete(userId: string, id: string): Promise<boolean> {
      const rows = await db.delete(userFiles).where(scoped(userId, id)).returning({ id: userFiles.id });
      return rows.length === 1;
    },

    /** Bytes stored for a company (for quotas and summaries). */
    async totalSize(companyId: string): Promise<number> {
      const [r] = await db
        .select({ n: sql<number>`coalesce(sum(${userFiles.size}), 0)::bigint` })
        .from(userFiles)
        .where(eq(userFiles.companyId, companyId));
      return Number(r?.n ?? 0);
    },
  };
}
