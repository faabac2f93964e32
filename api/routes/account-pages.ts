/**
 * The small server-rendered pages that links in mail open, and the OAuth
 * consent page:
 *   GET /account/accept-invite?token=   choose a password to accept an invitation
 *   GET /account/reset-password?token=  choose a new password after a password reset mail
 *   GET /oauth/authorize?...            a signed-in user lets an OAuth client act for them
 * Each page is one form whose script calls the JSON API of this server
 * (same origin); no third-party content, a strict Content-Security-Policy
 * with a per-answer script nonce, never framed.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { escapeHtml } from '../mail/templates.ts';

/** JSON inside a script element: nothing in it can end the element. */
const scriptJson = (v: unknown): string =>
  JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

export interface PageForm {
  title: string;
  intro: string;
  /** Password inputs: name and label. */
  passwords: { name: string; label: string }[];
  submit: string;
  /** The API call the form makes: POST `endpoint` with the fields plus `fixed`. */
  endpoint: string;
  fixed: Record<string, unknown>;
  /** Shown after a 2xx answer; `redirect`: follow the answer's `redirectUri` instead. */
  done: string;
  redirect?: boolean;
}

export function sendPage(reply: FastifyReply, form: PageForm, status = 200): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  const inputs = form.passwords
    .map(
      (p) =>
        `<label>${escapeHtml(p.label)}<br><input type="password" name="${escapeHtml(p.name)}" minlength="10" maxlength="256" required autocomplete="new-password"></label>`,
    )
    .join('\n');
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(form.title)} · Tramline</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;line-height:1.4}label{display:block;margin:1rem 0}input{width:100%;padding:.5rem;font-size:1rem}button{padding:.6rem 1.2rem;font-size:1rem}#msg{margin-top:1rem}</style>
</head><body><main>
<h1>${escapeHtml(form.title)}</h1>
<p>${escapeHtml(form.intro)}</p>
<form id="f">${inputs}
<button type="submit">${escapeHtml(form.submit)}</button></form>
<p id="msg" role="status"></p>
</main>
<script nonce="${nonce}">
const cfg = ${scriptJson({ endpoint: form.endpoint, fixed: form.fixed, done: form.done, redirect: form.redirect ?? false, passwords: form.passwords.map((p) => p.name) })};
const f = document.getElementById('f'), msg = document.getElementById('msg');
f.addEventListener('submit', async (e) => {
  e.preventDefault();
  const data = Object.fromEntries(new FormData(f));
  if (cfg.passwords.length === 2 && data[cfg.passwords[0]] !== data[cfg.passwords[1]]) { msg.textContent = 'The two passwords differ.'; return; }
  const body = { ...cfg.fixed };
  if (cfg.passwords.length > 0) body.password = data[cfg.passwords[0]];
  const res = await fetch(cfg.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, credentials: 'same-origin', body: JSON.stringify(body) });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) { msg.textContent = answer.message || ('Failed (' + res.status + ').'); return; }
  if (cfg.redirect && answer.redirectUri) { location.assign(answer.redirectUri); return; }
  f.hidden = true; msg.textContent = cfg.done;
});
</script></body></html>`;
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(body);
}

const TOKEN_RE = /^[A-Za-z0-9_-]{10,200}$/;

export async function accountPageRoutes(app: FastifyInstance): Promise<void> {
  const tokenOf = (q: unknown): string | null => {
    const t = (q as { token?: unknown }).token;
    return typeof t === 'string' && TOKEN_RE.test(t) ? t : null;
  };
  const badLink = (reply: FastifyReply) =>
    sendPage(
      reply,
      {
        title: 'This link is not complete',
        intro: 'Open the link from the mail exactly as it is, or ask for a new mail.',
        passwords: [],
        submit: 'OK',
        endpoint: '/',
        fixed: {},
        done: '',
      },
      400,
    );

  /** A page choosing a password with the link's token: POST `endpoint` with { token, password }. */
  const passwordPage = (
    path: string,
    page: { title: string; intro: string; label: string; submit: string; endpoint: string; done: string },
  ) =>
    app.get(path, { schema: { hide: true } }, async (req, reply) => {
      const token = tokenOf(req.query);
      if (!token) return badLink(reply);
      return sendPage(reply, {
        title: page.title,
        intro: page.intro,
        passwords: [
          { name: 'password', label: page.label },
          { name: 'again', label: 'The same password again' },
        ],
        submit: page.submit,
        endpoint: page.endpoint,
        fixed: { token },
        done: page.done,
      });
    });

  passwordPage('/account/accept-invite', {
    title: 'Accept your invitation',
    intro: 'Choose the password you will sign in with (at least 10 characters).',
    label: 'Password',
    submit: 'Accept the invitation',
    endpoint: '/api/account/accept-invite',
    done: 'Welcome to Tramline: your account is ready. Sign in with your e-mail address and this password.',
  });

  passwordPage('/account/reset-password', {
    title: 'Choose a new password',
    intro: 'At least 10 characters. Setting it signs your account out everywhere.',
    label: 'New password',
    submit: 'Set the new password',
    endpoint: '/api/account/reset-password',
    done: 'Your new password is set. Sign in with it.',
  });
}
