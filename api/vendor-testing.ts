/**
 * Test support for vendor links: a local OAuth 2.0 authorization server
 * (authorization code with PKCE S256 and refresh tokens, client
 * authentication by HTTP Basic) over real HTTP, and the browser's part of
 * linking an account (follow the authorization URL, read code and state
 * from the redirect).
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { VendorSettingsMap } from '../integrations/vendor-oauth.ts';
import { type Client, expectOk } from './platform/client.ts';

export interface FakeAuthServer {
  url: string;
  /** grant_type of each token request that passed client authentication. */
  grants: string[];
  /** expires_in [s] of the tokens issued next. */
  expiresIn: number;
  close(): Promise<void>;
}

export async function startFakeAuthServer(o: {
  clientId: string;
  clientSecret: string;
  /** Called with each access token issued (e.g. to let a fake portal accept it). */
  onAccessToken: (token: string) => void;
}): Promise<FakeAuthServer> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const refresh = new Set<string>();
  let issued = 0;
  const me: FakeAuthServer = { url: '', grants: [], expiresIn: 3600, close: async () => {} };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://auth');
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const p = url.searchParams;
      if (
        p.get('client_id') !== o.clientId ||
        p.get('code_challenge_method') !== 'S256' ||
        !p.get('code_challenge')
      ) {
        res.writeHead(400).end('bad authorization request');
        return;
      }
      const code = `code-${++issued}`;
      codes.set(code, { challenge: p.get('code_challenge')!, redirectUri: p.get('redirect_uri')! });
      const back = new URL(p.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', p.get('state')!);
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const f = new URLSearchParams(body);
        const json = (status: number, v: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
        };
        const basic = Buffer.from(`${o.clientId}:${o.clientSecret}`).toString('base64');
        if (req.headers.authorization !== `Basic ${basic}`) return json(401, { error: 'invalid_client' });
        me.grants.push(f.get('grant_type') ?? '');
        if (f.get('grant_type') === 'authorization_code') {
          const c = codes.get(f.get('code') ?? '');
          codes.delete(f.get('code') ?? '');
          const challenge = createHash('sha256')
            .update(f.get('code_verifier') ?? '')
            .digest('base64url');
          if (!c || c.challenge !== challenge || c.redirectUri !== f.get('redirect_uri')) {
            return json(400, { error: 'invalid_grant' });
          }
        } else if (f.get('grant_type') === 'refresh_token') {
          if (!refresh.has(f.get('refresh_token') ?? '')) return json(400, { error: 'invalid_grant' });
        } else return json(400, { error: 'unsupported_grant_type' });
        const access = `access-${++issued}-secret`;
        const rt = `refresh-${issued}-secret`;
        o.onAccessToken(access);
        refresh.add(rt);
        return json(200, {
          access_token: access,
          token_type: 'Bearer',
          expires_in: me.expiresIn,
          refresh_token: rt,
          scope: 'files org',
        });
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  me.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  me.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return me;
}

/** Starts linking, follows the vendor's redirect as a browser would, and answers code and state. */
export async function authorizeAtVendor(
  c: Client,
  companyId: string,
  vendor = 'vendor-a',
): Promise<{ code: string; state: string }> {
  const start = await c.post(`/api/companies/${companyId}/vendor-connections/${vendor}/authorize`, {
    redirectUri: 'https://app.example/vendor-callback',
  });
  expectOk(start);
  const res = await fetch(start.json.authorizationUrl, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(back.searchParams.get('state')).toBe(start.json.state);
  return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! };
}

/** Settings of vendors whose authorization server is `auth` and whose API (portal) is at `apiUrl`. */
export function vendorSettings(
  auth: FakeAuthServer,
  apiUrl: string,
  client: { clientId: string; clientSecret: string },
  vendors: readonly ('vendor-a' | 'vendor-b' | 'vendor-c')[] = ['vendor-a'],
): VendorSettingsMap {
  return Object.fromEntries(
    vendors.map((v) => [
      v,
      { authorizeUrl: `${auth.url}/authorize`, tokenUrl: `${auth.url}/token`, apiUrl, ...client },
    ]),
  );
}
