/**
 * `tramline keys ...` and `tramline credits ...`: API keys and credit
 * balances, straight on the database the server uses (DATABASE_URL, or the
 * embedded one under TRAMLINE_DATA_DIR / --data-dir). With the embedded
 * database, stop the server first (one process at a time).
 */
import { parseArgs } from 'node:util';
import { createKeyForNewAccount } from '../../store/bootstrap.ts';
import { openStore, type Store } from '../../store/db.ts';
import { UUID_RE } from '../../store/uuidv7.ts';

export interface CommandIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const defaultIO: CommandIO = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

export const KEYS_HELP = `Usage: tramline keys <command> [options]

Commands:
  create [--name NAME] [--email EMAIL] [--company NAME] [--credits N | --unlimited] [--partner-admin]
        Create an API key and print it (shown this once; only its hash is kept).
        With --email the key belongs to that user (created if new) and bills the
        user's company; otherwise a new user and company are created.
        --credits sets the company's balance (default: unchanged, 0 for a new company).
  list [--email EMAIL]       List keys (masked) with their user and company.
  revoke KEY_ID              Revoke a key; it gets 401 from then on.
  credits show KEY_ID|EMAIL  The balance of the company a key (or a user's key) bills.
  credits set KEY_ID|EMAIL N        Set that balance to N credits.
  credits add KEY_ID|EMAIL N        Add N credits (negative N removes, never below 0).
  credits set KEY_ID|EMAIL unlimited   Never charge that company.

Options for every command:
  --data-dir DIR   embedded database directory (default: TRAMLINE_DATA_DIR or ./data);
                   ignored when DATABASE_URL is set
  -h, --help       this help
`;

export const CREDITS_HELP = `Usage: tramline credits <show|set|add> KEY_ID|EMAIL [N|unlimited] [--data-dir DIR]

The same as "tramline keys credits ...": see "tramline keys --help".
`;

class UsageError extends Error {}

const options = {
  name: { type: 'string' },
  email: { type: 'string' },
  company: { type: 'string' },
  credits: { type: 'string' },
  unlimited: { type: 'boolean' },
  'partner-admin': { type: 'boolean' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `tramline keys ...` */
export async function run(argv: string[], io: CommandIO = defaultIO): Promise<number> {
  return main(argv, io, KEYS_HELP, 'keys');
}

/** `tramline credits ...` (an alias of `tramline keys credits ...`). */
export async function runCredits(argv: string[], io: CommandIO = defaultIO): Promise<number> {
  return main(['credits', ...argv], io, CREDITS_HELP, 'credits');
}

async function main(argv: string[], io: CommandIO, help: string, name: string): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true }>
  >;
  // Negative amounts (`credits add ID -5`) are values, not options.
  const negatives = argv.filter((a) => /^-\d+$/.test(a));
  const args = negatives.length ? [...argv.filter((a) => !/^-\d+$/.test(a)), '--', ...negatives] : argv;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    io.stderr(`tramline ${name}: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.stdout : io.stderr)(help);
    return values.help ? 0 : 2;
  }
  let store: Store | undefined;
  try {
    const [command, ...args] = positionals;
    if (!['create', 'list', 'revoke', 'credits'].includes(command))
      throw new UsageError(`unknown command "${command}"`);
    store = await openStore({
      databaseUrl: process.env.DATABASE_URL || undefined,
      dataDir: values['data-dir'] ?? (process.env.TRAMLINE_DATA_DIR || './data'),
    });
    switch (command) {
      case 'create':
        return await create(store, values, args, io);
      case 'list':
        return await list(store, values.email, io);
      case 'revoke':
        return await revoke(store, args, io);
      default:
        return await credits(store, args, io);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`tramline ${name}: ${e.message}\n\n${help}`);
      return 2;
    }
    io.stderr(`tramline ${name}: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}

function parseCredits(v: string): number {
  const n = Number(v);
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(n))
    throw new UsageError(`credits must be a whole number, got "${v}"`);
  return n;
}

async function create(
  store: Store,
  v: {
    name?: string;
    email?: string;
    company?: string;
    credits?: string;
    unlimited?: boolean;
    'partner-admin'?: boolean;
  },
  args: string[],
  io: CommandIO,
): Promise<number> {
  if (args.length) throw new UsageError(`keys create takes no arguments, got "${args.join(' ')}"`);
  if (v.credits !== undefined && v.unlimited) throw new UsageError('give --credits or --unlimited, not both');
  const credits = v.credits === undefined ? undefined : parseCredits(v.credits);
  if (credits !== undefined && credits < 0) throw new UsageError('--credits must be >= 0');
  if (v.email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(v.email))
    throw new UsageError(`"${v.email}" is not an e-mail address`);
  const made = await createKeyForNewAccount(store, {
    name: v.name,
    email: v.email,
    companyName: v.company,
    credits,
    unlimited: v.unlimited ? true : undefined,
    partnerAdmin: v['partner-admin'],
  });
  io.stdout(`${made.key}\n`);
  io.stderr(
    `Created key ${made.keyId} (${made.masked}) for user ${made.userId}, billing company ${made.companyId} ` +
      `(${made.unlimited ? 'unlimited credits' : `${made.credits} credits`}). The key is shown only this once.\n`,
  );
  return 0;
}

async function list(store: Store, email: string | undefined, io: CommandIO): Promise<number> {
  let userId: string | undefined;
  if (email) {
    const u = await store.accounts.findUserByEmail(email);
    if (!u) throw new Error(`no user with e-mail ${email}`);
    userId = u.id;
  }
  const keys = await store.apiKeys.list(userId);
  const rows = [['ID', 'KEY', 'NAME', 'USER', 'COMPANY', 'CREATED', 'REVOKED']];
  for (const k of keys) {
    rows.push([
      k.id,
      k.masked,
      k.name || '-',
      k.userId,
      k.companyId,
      k.createdAt.toISOString(),
      k.revokedAt ? k.revokedAt.toISOString() : '-',
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  io.stdout(
    `${rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n')}\n`,
  );
  return 0;
}

async function revoke(store: Store, args: string[], io: CommandIO): Promise<number> {
  if (args.length !== 1 || !UUID_RE.test(args[0]))
    throw new UsageError('keys revoke takes one key id (see "tramline keys list")');
  if (await store.apiKeys.revoke(args[0])) {
    io.stderr(`Revoked key ${args[0]}.\n`);
    return 0;
  }
  io.stderr(`No active key ${args[0]}.\n`);
  return 1;
}

/** The company billed by a key id, or by the first key of a user with this e-mail. */
async function companyOf(store: Store, who: string): Promise<string> {
  if (UUID_RE.test(who)) {
    const k = (await store.apiKeys.list()).find((x) => x.id === who);
    if (!k) throw new Error(`no key ${who}`);
    return k.companyId;
  }
  const u = await store.accounts.findUserByEmail(who);
  if (!u) throw new Error(`no user with e-mail ${who}`);
  const keys = await store.apiKeys.list(u.id);
  if (keys.length) return keys[0].companyId;
  const c = await store.accounts.firstAdminCompany(u.id);
  if (!c) throw new Error(`user ${who} has no company`);
  return c.id;
}

async function credits(store: Store, args: string[], io: CommandIO): Promise<number> {
  const [op, who, amount, ...rest] = args;
  if (!['show', 'set', 'add'].includes(op ?? '') || !who || rest.length) {
    throw new UsageError('credits <show|set|add> KEY_ID|EMAIL [N|unlimited]');
  }
  const companyId = await companyOf(store, who);
  let b = await store.credits.get(companyId);
  if (op === 'set') {
    if (amount === undefined) throw new UsageError('credits set needs N or "unlimited"');
    if (amount === 'unlimited') b = await store.credits.set(companyId, b.credits, true);
    else {
      const n = parseCredits(amount);
      if (n < 0) throw new UsageError('credits set needs N >= 0');
      b = await store.credits.set(companyId, n, false);
    }
  } else if (op === 'add') {
    if (amount === undefined) throw new UsageError('credits add needs N');
    b = await store.credits.add(companyId, parseCredits(amount));
  } else if (amount !== undefined) {
    throw new UsageError('credits show takes no amount');
  }
  io.stdout(`${companyId} ${b.unlimited ? 'unlimited' : b.credits}\n`);
  return 0;
}
