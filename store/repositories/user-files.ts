/**
 * Files users upload to a company, bytes in the database (bytea), so every
 * server process and both stores (PGlite, PostgreSQL) serve them. Reads and
 * writes are scoped to the companies the user can access in one statement.
 */
import { createHash } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { userFiles } from '../schema.ts';
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

export function createUserFilesRepository(db: Database) {
  const scoped = (userId: string, id: string) =>
    and(eq(userFiles.id, id), accessibleTo(db, userId, userFiles.companyId));
  return {
    async create(input: {
      companyId: string;
      userId: string;
      fileName: string;
      kind: string;
      mediaType: string;
      content: Buffer;
    }): Promise<UserFileRecord> {
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
