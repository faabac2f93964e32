/**
 * `tramline oauth-clients ...`: OAuth 2.0 clients of the service (api/routes/oauth.ts),
 * straight on the database the server uses (DATABASE_URL, or the embedded
 * one under TRAMLINE_DATA_DIR / --data-dir; stop the server first then).
 */
import { parseArgs } from 'node:util';
import { registerOAuthClient } from '../../api/account/oauth-clients.ts';
import { openStore, type Store } from '../../store/db.ts';
import type { CommandIO } from './keys.ts';

const defaultIO: CommandIO = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

export const HELP = `Usage: tramline oauth-clients <command> [options]

Commands:
  create --name NAME [--redirect-uri URI ...] [--confidential [--service-user EMAIL]]
        Register a client and print its client_id (and, for a confidential one,
        its secret: shown this once, only a hash is kept). A public client (an app
        in a browser or on a device) signs users in with authorization_code and
        PKCE and needs a redirect URI; a confidential one (a backend) also gets
        client_credentials tokens acting as --service-user (made when new).
        Redirect URIs: https, http on localhost, or an app scheme (com.example.app:/cb).
  revoke CLIENT_ID   Revoke a client: its codes and refreshes stop working.

Options for every command:
  --data-dir DIR   embedded database directory (default: TRAMLINE_DATA_DIR or ./data);
                   ignored when DATABASE_URL is set
  -h, --help       this help
`;

const options = {
  name: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  confidential: { type: 'boolean' },
  'service-user': { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[], io: CommandIO = defaultIO): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    io.stderr(`tramline oauth-clients: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.stdout : io.stderr)(HELP);
    return values.help ? 0 : 2;
  }
  const [command, ...args] = positionals;
  const usage = (m: string) => {
    io.stderr(`tramline oauth-clients: ${m}\n\n${HELP}`);
    return 2;
  };
  if (command === 'create' && (!values.name || args.length))
    return usage('create needs --name and takes no arguments');
  if (command === 'revoke' && args.length !== 1) return usage('revoke needs one CLIENT_ID');
  if (command !== 'create' && command !== 'revoke') return usage(`unknown command "${command}"`);
  let store: Store | undefined;
  try {
    store = await openStore({
      databaseUrl: process.env.DATABASE_URL || undefined,
      dataDir: values['data-dir'] ?? (process.env.TRAMLINE_DATA_DIR || './data'),
    });
    if (command === 'revoke') {
      if (!(await store.oauth.revokeClient(args[0]))) {
        io.stderr(`tramline oauth-clients: no live client ${args[0]}\n`);
        return 1;
      }
      io.stdout(`revoked ${args[0]}\n`);
      return 0;
    }
    const made = await registerOAuthClient(store, {
      name: values.name!,
      redirectUris: values['redirect-uri'] ?? [],
      confidential: values.confidential ?? false,
      serviceUserEmail: values['service-user'],
    });
    io.stdout(`client_id: ${made.clientId}\n`);
    if (made.clientSecret) io.stdout(`client_secret: ${made.clientSecret}   (shown this once)\n`);
    return 0;
  } catch (e) {
    io.stderr(`tramline oauth-clients: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}
