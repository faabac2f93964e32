/**
 * Registering OAuth 2.0 clients with the service (the operator does it:
 * `tramline oauth-clients create`). A public client (an app in a browser or
 * on a device) has no secret and signs users in with authorization_code and
 * PKCE; a confidential one (a backend) gets a secret, shown once, and may
 * also use client_credentials, acting as its service user.
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/db.ts';
import { hashPassword } from '../auth/passwords.ts';

export interface NewOAuthClient {
  name: string;
  redirectUris: string[];
  confidential: boolean;
  /** For client_credentials: the e-mail of the user the client acts as (made when absent). */
  serviceUserEmail?: string;
}

/** Redirect URIs must be absolute https URLs (http only on loopback hosts), without a fragment. */
export function checkRedirectUri(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URL`;
  }
  if (u.hash) return `"${uri}" has a fragment (#...), which redirect URIs may not have`;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  if (u.protocol === 'https:' || (u.protocol === 'http:' && loopback)) return null;
  // A private-use scheme of a native app (com.example.app:/callback, RFC 8252 7.1).
  if (/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(u.protocol)) return null;
  return `"${uri}" must be https (http only on localhost, or an app's private-use scheme like com.example.app:)`;
}

export async function registerOAuthClient(
  store: Store,
  c: NewOAuthClient,
): Promise<{ clientId: string; clientSecret: string | null }> {
  for (const uri of c.redirectUris) {
    const problem = checkRedirectUri(uri);
    if (problem) throw new Error(problem);
  }
  if (!c.confidential && c.redirectUris.length === 0)
    throw new Error('a public client needs at least one redirect URI');
  const clientId = `tlc_${randomBytes(12).toString('base64url')}`;
  const clientSecret = c.confidential ? `tls_${randomBytes(32).toString('base64url')}` : null;
  let serviceUserId: string | null = null;
  if (c.serviceUserEmail) {
    if (!c.confidential) throw new Error('only a confidential client may have a service user');
    serviceUserId = (await store.accounts.ensureUserByEmail(c.serviceUserEmail)).id;
  }
  await store.oauth.createClient({
    clientId,
    name: c.name,
    secretHash: clientSecret ? await hashPassword(clientSecret) : null,
    redirectUris: c.redirectUris,
    serviceUserId,
  });
  return { clientId, clientSecret };
}
