/**
 * Encryption of vendor tokens at rest: AES-256-GCM with a random 96-bit IV
 * per value, stored as `v1.<iv>.<tag>.<ciphertext>` (base64url). The key
 * is TRAMLINE_TOKEN_KEY (32 bytes, base64 or hex) when set, else a key the
 * server keeps in its secrets (store/repositories/secrets.ts), made once.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretsRepository } from './repositories/secrets.ts';

export interface TokenCipher {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

export function tokenCipher(key: Buffer): TokenCipher {
  if (key.length !== 32) throw new Error('The token key must be 32 bytes.');
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return ['v1', iv, c.getAuthTag(), body]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    decrypt(sealed) {
      const [v, iv, tag, body] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('Not a sealed token.');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      d.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString('utf8');
    },
  };
}

/** The cipher of this deployment (see above). */
export async function deploymentTokenCipher(
  secrets: SecretsRepository,
  envKey = process.env.TRAMLINE_TOKEN_KEY,
): Promise<TokenCipher> {
  if (envKey) {
    const key = /^[0-9a-f]{64}$/i.test(envKey) ? Buffer.from(envKey, 'hex') : Buffer.from(envKey, 'base64');
    if (key.length !== 32)
      throw new Error('TRAMLINE_TOKEN_KEY must be 32 bytes, as 64 hex digits or base64.');
    return tokenCipher(key);
  }
  const stored = await secrets.ensure('vendor-token-aes256', () => randomBytes(32).toString('base64url'));
  return tokenCipher(Buffer.from(stored, 'base64url'));
}
