/**
 * What the account routes share: the store, session tokens, the mailer, how
 * links in mail are made (absolute, on TRAMLINE_PUBLIC_URL or this server's
 * own origin) and the lifetimes of one-time tokens.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { TokenService } from '../auth/tokens.ts';
import { ApiError } from '../errors.ts';
import type { MailDelivery, Mailer } from '../mail/mailer.ts';
import { confirmAccountMail } from '../mail/templates.ts';
import { ownOrigins } from '../routes/web.ts';

export interface AccountContext {
  store: Store;
  tokens: TokenService;
  mailer: Mailer;
  /** TRAMLINE_PUBLIC_URL: the origin of links in mail (default: this server's own origin). */
  publicUrl?: string;
  trustProxy?: boolean;
}

/** Lifetimes of one-time tokens [s]. */
export const TOKEN_TTL = {
  invite: 7 * 24 * 3600,
  confirm: 3 * 24 * 3600,
  recover: 3600,
  /** Session hand-over tokens (POST /api/tokens/{tokenId}): default and most. */
  session: 120,
  sessionMax: 600,
  oauthCode: 120,
} as const;

/** An absolute link to `path` (with `?token=`) on the origin browsers reach this server at. */
export function accountLink(ctx: AccountContext, req: FastifyRequest, path: string, token: string): string {
  const base = ownOrigins(req, { publicUrl: ctx.publicUrl, trustProxy: ctx.trustProxy })[0];
  return `${base}${path}?token=${encodeURIComponent(token)}`;
}

/** Runs work after the answer (mail whose delivery must not show in the answer's timing); failures are logged. */
export function afterAnswer(req: FastifyRequest, what: string, work: () => Promise<unknown>): void {
  setImmediate(() => {
    work().catch((err) => req.log.error({ err }, `${what} failed`));
  });
}

export const MailDeliverySchema = Type.Union([Type.Literal('sent'), Type.Literal('kept')], {
  description:
    'sent: handed to the SMTP server; kept: no SMTP server took it, so it waits in the outbox of the service for its operator.',
});

export const TokenParam = Type.String({
  minLength: 10,
  maxLength: 200,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'The one-time token from the link in the mail.',
});

export const invalidToken = (what: string): ApiError =>
  new ApiError(
    400,
    'INVALID_TOKEN',
    `The ${what} link is unknown, used already or expired; ask for a new one.`,
  );

/** Sends the confirmation of a new account's e-mail address (a new link; earlier ones die). */
export async function sendAccountConfirmation(
  ctx: AccountContext,
  req: FastifyRequest,
  userId: string,
  email: string,
): Promise<MailDelivery> {
  const t = await ctx.store.userAccounts.issueToken(userId, 'confirm-account', TOKEN_TTL.confirm);
  if (!t) throw new Error('a new account token clashed');
  const url = accountLink(ctx, req, '/api/account/confirm-account', t.token);
  return ctx.mailer.send(confirmAccountMail({ to: email, url, ttlSeconds: TOKEN_TTL.confirm }));
}
