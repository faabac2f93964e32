/**
 * The mail the service sends, as plain text and simple HTML: an invitation,
 * the confirmation of a new account or a changed e-mail address, and a
 * password reset. Every link is absolute, on the public origin of the
 * service, and carries a one-time token; the text says how long it works.
 */
import type { MailMessage } from './mailer.ts';

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const hours = (seconds: number): string => {
  const h = Math.round(seconds / 3600);
  return h >= 48 ? `${Math.round(h / 24)} days` : h === 1 ? '1 hour' : `${h} hours`;
};

function message(
  kind: string,
  to: string,
  subject: string,
  paragraphs: string[],
  link: { url: string; label: string },
  after: string[],
): MailMessage {
  const text = [...paragraphs, `${link.label}: ${link.url}`, ...after, '-- Tramline'].join('\n\n');
  const p = (s: string) => `<p>${escapeHtml(s)}</p>`;
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif; line-height: 1.4">',
    ...paragraphs.map(p),
    `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`,
    `<p style="font-size: small">${escapeHtml(link.url)}</p>`,
    ...after.map(p),
    '<p>-- Tramline</p></body></html>',
  ].join('\n');
  return { kind, to, subject, text, html };
}

export function inviteMail(p: {
  to: string;
  inviter: string;
  companyName: string | null;
  url: string;
  ttlSeconds: number;
}): MailMessage {
  const where = p.companyName ? ` to work with ${p.companyName}` : '';
  return message(
    'invite',
    p.to,
    `${p.inviter} invited you to Tramline`,
    [
      `${p.inviter} invited you${where} on Tramline, the route planning service for farm machines.`,
      `Follow the link to accept the invitation and choose your password. It works once, for ${hours(p.ttlSeconds)}.`,
    ],
    { url: p.url, label: 'Accept the invitation' },
    ['If you did not expect this invitation, ignore this mail; no account is used without you.'],
  );
}

export function confirmAccountMail(p: { to: string; url: string; ttlSeconds: number }): MailMessage {
  return message(
    'confirm-account',
    p.to,
    'Confirm your e-mail address for Tramline',
    [
      'Welcome to Tramline. Please confirm that this e-mail address is yours.',
      `The link works once, for ${hours(p.ttlSeconds)}.`,
    ],
    { url: p.url, label: 'Confirm my e-mail address' },
    ['If you did not register, ignore this mail.'],
  );
}

export function confirmEmailMail(p: { to: string; url: string; ttlSeconds: number }): MailMessage {
  return message(
    'confirm-email',
    p.to,
    'Confirm your new e-mail address for Tramline',
    [
      'You asked to use this e-mail address for your Tramline account. Your account keeps its old address until you confirm.',
      `The link works once, for ${hours(p.ttlSeconds)}.`,
    ],
    { url: p.url, label: 'Confirm my new e-mail address' },
    ['If you did not ask for this, ignore this mail; nothing changes.'],
  );
}

export function recoverMail(p: { to: string; url: string; ttlSeconds: number }): MailMessage {
  return message(
    'recover',
    p.to,
    'Password reset for your Tramline account',
    [
      'Someone (hopefully you) asked to reset the password of the Tramline account of this e-mail address.',
      `Follow the link to choose a new password. It works once, for ${hours(p.ttlSeconds)}. Setting a new password signs the account out everywhere.`,
    ],
    { url: p.url, label: 'Reset my password' },
    ['If you did not ask for a password reset, ignore this mail; your password stays as it is.'],
  );
}
