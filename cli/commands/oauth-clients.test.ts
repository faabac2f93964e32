/** `tramline oauth-clients`: registers clients on the embedded database the server would open. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../api/auth/passwords.ts';
import { openStore } from '../../store/db.ts';
import { run } from './oauth-clients.ts';

const dir = mkdtempSync(join(tmpdir(), 'tramline-oauth-clients-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const io = {
    out: '',
    err: '',
    stdout: (s: string) => {
      io.out += s;
    },
    stderr: (s: string) => {
      io.err += s;
    },
  };
  return io;
}

describe('tramline oauth-clients', () => {
  it('creates public and confidential clients, shows a secret once, revokes', async () => {
    const dataDir = join(dir, 'db');
    const pub = capture();
    expect(
      await run(
        ['create', '--name', 'Scout', '--redirect-uri', 'https://scout.example/cb', '--data-dir', dataDir],
        pub,
      ),
    ).toBe(0);
    const publicId = /client_id: (tlc_\S+)/.exec(pub.out)![1];
    expect(pub.out).not.toContain('client_secret');
    const conf = capture();
    expect(
      await run(
        [
          'create',
          '--name',
          'ERP',
          '--confidential',
          '--service-user',
          'erp@example.org',
          '--data-dir',
          dataDir,
        ],
        conf,
      ),
    ).toBe(0);
    const confId = /client_id: (tlc_\S+)/.exec(conf.out)![1];
    const secret = /client_secret: (tls_\S+)/.exec(conf.out)![1];

    const store = await openStore({ dataDir });
    try {
      expect(await store.oauth.getClient(publicId)).toMatchObject({
        name: 'Scout',
        secretHash: null,
        redirectUris: ['https://scout.example/cb'],
      });
      const c = (await store.oauth.getClient(confId))!;
      expect(c.secretHash).not.toContain(secret);
      expect(await verifyPassword(secret, c.secretHash)).toBe(true);
      expect(c.serviceUserId).toBe((await store.accounts.findUserByEmail('erp@example.org'))!.id);
    } finally {
      await store.close();
    }
    const rev = capture();
    expect(await run(['revoke', publicId, '--data-dir', dataDir], rev)).toBe(0);
    expect(await run(['revoke', publicId, '--data-dir', dataDir], capture())).toBe(1);

    const bad = capture();
    expect(
      await run(
        ['create', '--name', 'Bad', '--redirect-uri', 'http://evil.example/cb', '--data-dir', dataDir],
        bad,
      ),
    ).toBe(1);
    expect(bad.err).toMatch(/must be https/);
    expect(await run(['create', '--data-dir', dataDir], capture())).toBe(2);
    expect(await run(['explode'], capture())).toBe(2);
  });
});
