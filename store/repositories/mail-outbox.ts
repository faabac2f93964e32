/** Mail kept for the operator when no SMTP server took it (see api/mail/mailer.ts). */
import { desc, eq } from 'drizzle-orm';
import type { Database } from '../database.ts';
import { mailOutbox } from '../schema.ts';
import { uuidv7 } from '../uuidv7.ts';

export interface OutboxMail {
  kind: string;
  recipient: string;
  subject: string;
  textBody: string;
  htmlBody: string | null;
  status: 'kept' | 'failed';
  error: string | null;
}

export type StoredOutboxMail = OutboxMail & { id: string; createdAt: Date };

export function createMailOutboxRepository(db: Database) {
  return {
    async add(mail: OutboxMail): Promise<string> {
      const id = uuidv7();
      await db.insert(mailOutbox).values({ id, ...mail });
      return id;
    },

    /** The newest kept mail, optionally to one recipient (lower-cased). */
    async list(opts: { recipient?: string; limit?: number } = {}): Promise<StoredOutboxMail[]> {
      const q = db.select().from(mailOutbox);
      const rows = await (opts.recipient
        ? q.where(eq(mailOutbox.recipient, opts.recipient.toLowerCase()))
        : q
      )
        .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
        .limit(opts.limit ?? 100);
      return rows.map((r) => ({
        ...r,
        status: r.status as OutboxMail['status'],
        createdAt: new Date(r.createdAt),
      }));
    },
  };
}

export type MailOutboxRepository = ReturnType<typeof createMailOutboxRepository>;
