/**
 * Outgoing mail. With an SMTP server (TRAMLINE_SMTP_URL, e.g.
 * `smtp://127.0.0.1:2525` or `smtps://user:pass@mail.example.com`) every
 * message goes through nodemailer over a connection made for it and closed
 * after it, so a mail server that comes up after the service still gets
 * later mail, and a restarted one needs no reconnect logic. Without one, or
 * when the server refuses or cannot be reached, the message is kept in the
 * database outbox (`mail_outbox`) for the operator and a log line says so:
 * kind, outbox id and the recipient's domain, never the text (its links
 * carry one-time tokens) nor the SMTP credentials.
 */
import nodemailer from 'nodemailer';
import type { Store } from '../../store/db.ts';
import { ConfigError } from '../config.ts';

export interface MailMessage {
  /** What the mail is for: 'invite' | 'confirm-account' | 'confirm-email' | 'recover'. */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Where a message went: handed to the SMTP server, or kept in the outbox. */
export type MailDelivery = 'sent' | 'kept';

export interface Mailer {
  send(message: MailMessage): Promise<MailDelivery>;
}

export interface MailOptions {
  /** SMTP URL (TRAMLINE_SMTP_URL); none: mail is kept in the outbox. */
  smtpUrl?: string;
  /** Sender (TRAMLINE_MAIL_FROM), e.g. `Tramline <noreply@plan.example.com>`. */
  from?: string;
  /** Give up on an SMTP server after this long [ms] (default 10000). */
  timeoutMs?: number;
}

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const DEFAULT_FROM = 'Tramline <noreply@localhost>';

/** Mail settings from the environment: TRAMLINE_SMTP_URL, TRAMLINE_MAIL_FROM. */
export function mailOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): MailOptions {
  const smtpUrl = env.TRAMLINE_SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(smtpUrl);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') || !u.hostname) {
      throw new ConfigError(
        'TRAMLINE_SMTP_URL must be an smtp:// or smtps:// URL with a host, like smtp://127.0.0.1:2525 or smtps://user:password@mail.example.com.',
      );
    }
  }
  return { smtpUrl, from: env.TRAMLINE_MAIL_FROM || undefined };
}

/** The recipient's domain only: enough to tell mail apart in a log, without naming a person. */
const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1);

/** The SMTP error without anything of the URL (which may hold credentials). */
function describe(err: unknown, smtpUrl: string): string {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const text = [e.code, e.responseCode, e.message].filter((x) => x !== undefined).join(' ');
  return text.split(smtpUrl).join('<smtp url>').slice(0, 500);
}

export function createMailer(store: Store, log: Log, opts: MailOptions = {}): Mailer {
  const from = opts.from ?? DEFAULT_FROM;
  const timeout = opts.timeoutMs ?? 10_000;

  const keep = async (m: MailMessage, status: 'kept' | 'failed', error: string | null) => {
    const id = await store.mailOutbox.add({
      kind: m.kind,
      recipient: m.to.toLowerCase(),
      subject: m.subject,
      textBody: m.text,
      htmlBody: m.html ?? null,
      status,
      error,
    });
    const fields = { mailKind: m.kind, outboxId: id, recipientDomain: domainOf(m.to) };
    if (status === 'kept') log.info(fields, 'mail kept in the outbox (no SMTP server configured)');
    else
      log.warn({ ...fields, smtpError: error }, 'mail kept in the outbox: the SMTP server did not take it');
  };

  return {
    async send(m) {
      if (!opts.smtpUrl) {
        await keep(m, 'kept', null);
        return 'kept';
      }
      // One connection per message (no pool): nothing to go stale between mails.
      const transport = nodemailer.createTransport({
        url: opts.smtpUrl,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
      });
      try {
        const info = await transport.sendMail({
          from,
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
        });
        log.info(
          { mailKind: m.kind, recipientDomain: domainOf(m.to), messageId: info.messageId },
          'mail sent',
        );
        return 'sent';
      } catch (err) {
        await keep(m, 'failed', describe(err, opts.smtpUrl));
        return 'kept';
      } finally {
        transport.close();
      }
    },
  };
}

/**
 * Contact messages of users (POST /api/contact) as mail to the operator's
 * address (TRAMLINE_CONTACT_EMAIL); none without an address, and the
 * messages stay queued in the database.
 */
export function contactMailer(
  mailer: Mailer,
  operatorAddress: string | undefined,
):
  | ((m: { userId: string; replyTo: string | null; subject: string; text: string }) => Promise<void>)
  | undefined {
  const to = operatorAddress?.trim();
  if (!to) return undefined;
  return async (m) => {
    await mailer.send({
      kind: 'contact',
      to,
      subject: `[Tramline contact] ${m.subject}`,
      text: `From user ${m.userId}${m.replyTo ? ` <${m.replyTo}>` : ''}:\n\n${m.text}\n`,
    });
  };
}
