/**
 * The mailer: over a real SMTP server, one connection per message (so a
 * server that comes up later still gets later mail); without one, or when
 * it is down, mail is kept in the outbox and the log names no secret.
 */
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startSmtpInbox } from '../../test/helpers/smtp-inbox.ts';
import { ConfigError } from '../config.ts';
import { testStore } from '../testing.ts';
import { createMailer, mailOptionsFromEnv } from './mailer.ts';
import { recoverMail } from './templates.ts';

function recordingLog() {
  const lines: { level: string; obj: object; msg: string }[] = [];
  return {
    lines,
    info: (obj: object, msg: string) => lines.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj, msg }),
  };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const secretLink = 'https://plan.example.test/account/reset-password?token=tlt_SECRET-TOKEN-123';
let closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of closers) await c();
  closers = [];
});

describe('mailer', () => {
  it('keeps mail in the outbox without an SMTP server; the log line has no link and no address', async () => {
    const store = await testStore();
    const log = recordingLog();
    const to = `Outbox-${Date.now()}@Example.org`;
    const mailer = createMailer(store, log);
    expect(await mailer.send(recoverMail({ to, url: secretLink, ttlSeconds: 3600 }))).toBe('kept');
    const [kept] = await store.mailOutbox.list({ recipient: to });
    expect(kept).toMatchObject({ kind: 'recover', recipient: to.toLowerCase(), status: 'kept', error: null });
    expect(kept.subject).toBe('Password reset for your Tramline account');
    expect(kept.textBody).toContain(secretLink);
    expect(kept.htmlBody).toContain('tlt_SECRET-TOKEN-123');
    expect(log.lines).toHaveLength(1);
    const line = JSON.stringify(log.lines[0]);
    expect(line).not.toContain('SECRET');
    expect(line).not.toContain('Outbox-');
    expect(log.lines[0].obj).toMatchObject({
      mailKind: 'recover',
      outboxId: kept.id,
      recipientDomain: 'Example.org',
    });
  });

  it('connects per message: a server that comes up after a failed mail gets the next one', async () => {
    const store = await testStore();
    const port = await freePort();
    const log = recordingLog();
    const smtpUrl = `smtp://user:hunter2-password@127.0.0.1:${port}`;
    const mailer = createMailer(store, log, {
      smtpUrl,
      from: 'Tramline <noreply@example.test>',
      timeoutMs: 3000,
    });
    const to = `late-${Date.now()}@example.org`;
    // Down: kept as failed, logged without credentials or link.
    expect(await mailer.send(recoverMail({ to, url: secretLink, ttlSeconds: 3600 }))).toBe('kept');
    const [failed] = await store.mailOutbox.list({ recipient: to });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/ECONNREFUSED/);
    expect(failed.error).not.toContain('hunter2');
    const warn = JSON.stringify(log.lines.find((l) => l.level === 'warn'));
    expect(warn).not.toContain('hunter2');
    expect(warn).not.toContain('SECRET');

    // Up now, on that port: the next mail goes through without restarting anything.
    const inbox = await startSmtpInbox(port);
    closers.push(() => inbox.close());
    expect(await mailer.send(recoverMail({ to, url: secretLink, ttlSeconds: 3600 }))).toBe('sent');
    const got = await inbox.waitFor(to);
    expect(got.subject).toBe('Password reset for your Tramline account');
    expect(got.text).toContain(secretLink);
    expect(got.parsed.from?.value[0].address).toBe('noreply@example.test');
    expect(await mailer.send(recoverMail({ to, url: secretLink, ttlSeconds: 3600 }))).toBe('sent');
    expect(inbox.mails.filter((m) => m.to.includes(to))).toHaveLength(2);
  });

  it('reads TRAMLINE_SMTP_URL and TRAMLINE_MAIL_FROM and refuses what is not an SMTP URL', () => {
    expect(mailOptionsFromEnv({})).toEqual({ smtpUrl: undefined, from: undefined });
    expect(
      mailOptionsFromEnv({ TRAMLINE_SMTP_URL: 'smtp://127.0.0.1:2525', TRAMLINE_MAIL_FROM: 'A <a@b.c>' }),
    ).toEqual({ smtpUrl: 'smtp://127.0.0.1:2525', from: 'A <a@b.c>' });
    expect(() => mailOptionsFromEnv({ TRAMLINE_SMTP_URL: 'http://mail.example.com' })).toThrow(ConfigError);
    expect(() => mailOptionsFromEnv({ TRAMLINE_SMTP_URL: 'not a url' })).toThrow(/smtp:\/\//);
  });
});
