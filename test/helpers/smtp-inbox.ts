/**
 * Test support: a real SMTP server (smtp-server) on an ephemeral port of
 * 127.0.0.1 that parses every message it takes (mailparser) and keeps it,
 * so tests read what the service mailed the way a mail client would.
 */
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  parsed: ParsedMail;
}

export interface SmtpInbox {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** The first mail to `to` (any, when omitted) matching `match`, waiting up to `timeoutMs` for it. */
  waitFor(to?: string, match?: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpInbox(port = 0): Promise<SmtpInbox> {
  const mails: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            parsed,
          });
          for (const w of waiters) w();
          done();
        })
        .catch((err) => done(err));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.server.address() as AddressInfo).port;
  const find = (to?: string, match?: (m: ReceivedMail) => boolean) =>
    mails.find((m) => (!to || m.to.includes(to.toLowerCase())) && (!match || match(m)));
  return {
    url: `smtp://127.0.0.1:${actual}`,
    port: actual,
    mails,
    waitFor(to, match, timeoutMs = 15_000) {
      const hit = find(to, match);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = find(to, match);
          if (!m) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to ?? 'anyone'} within ${timeoutMs} ms (${mails.length} received)`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail's text whose URL starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): URL {
  const m = mail.text.match(/https?:\/\/\S+/g)?.find((u) => u.startsWith(prefix));
  if (!m) throw new Error(`no link to ${prefix} in: ${mail.text}`);
  return new URL(m);
}
