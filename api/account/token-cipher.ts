/**
 * Encryption at rest of third-party tokens (a vendor account link): AES-256-GCM
 * with a 256-bit key from the environment (TRAMLINE_VENDOR_TOKEN_KEY, 32
 * bytes as base64, base64url or hex; e.g. `openssl rand -base64 32`). Each
 * value gets a random 96-bit IV; the row it belongs to is bound in as
 * additional data, so a value copied to another row does not decrypt.
 * Stored as `v1.<iv>.<ciphertext and tag>` (base64url). The key never
 * reaches the database.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError } from '../config.ts';

export interface TokenCipher {
  encrypt(plain: string, context: string): string;
  /** The plain text; throws when the value was changed, belongs to another context or another key. */
  decrypt(sealed: string, context: string): string;
}

/** The key of TRAMLINE_VENDOR_TOKEN_KEY (undefined when unset). */
export function tokenKeyFromEnv(env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const raw = env.TRAMLINE_VENDOR_TOKEN_KEY?.trim();
  if (!raw) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32)
    throw new ConfigError(
      'TRAMLINE_VENDOR_TOKEN_KEY must be 32 random bytes as base64 or hex (e.g. the output of `openssl rand -base64 32`).',
    );
  return key;
}

export function createTokenCipher(key: Buffer): TokenCipher {
  if (key.length !== 32) throw new Error('the token key must be 32 bytes');
  return {
    encrypt(plain, context) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final(), c.getAuthTag()]);
      return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    decrypt(sealed, context) {
      const [v, ivText, bodyText] = sealed.split('.');
      if (v !== 'v1' || !ivText || !bodyText) throw new Error('not an encrypted token');
      const body = Buffer.from(bodyText, 'base64url');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
      d.setAAD(Buffer.from(context, 'utf8'));
      d.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([d.update(body.subarray(0, body.length - 16)), d.final()]).toString('utf8');
    },
  };
}
