#!/usr/bin/env node
/**
 * The tramline command. Each subcommand is a module under cli/commands/
 * exporting `run(argv, io?)` that returns the exit code; it is loaded only
 * when asked for, so `tramline plan` does not load the server.
 *
 * Exit codes shared by all commands: 0 done, 1 failed, 2 usage error.
 */

export interface Command {
  summary: string;
  load: () => Promise<{ run: (argv: string[]) => number | Promise<number> }>;
}

/** The subcommands; add one line per command. */
export const COMMANDS: Record<string, Command> = {
  plan: {
    summary:
      'plan a field (GeoJSON, WKT or KML) and write the plan (GeoJSON, JSON model, SVG) or export it (ISOXML, shapefile, KML, GPX, display layouts)',
    load: () => import('./commands/plan.ts'),
  },
  serve: {
    summary: 'run the HTTP service',
    load: () => import('./commands/serve.ts'),
  },
  worker: {
    summary: 'run job workers (bulk guidance, exports) against the PostgreSQL of DATABASE_URL',
    load: () => import('./commands/worker.ts'),
  },
  keys: {
    summary: 'create, list and revoke API keys; credit balances',
    load: () => import('./commands/keys.ts'),
  },
  'oauth-clients': {
    summary: 'register and revoke OAuth 2.0 clients (apps that sign users in, machine clients)',
    load: () => import('./commands/oauth-clients.ts'),
  },
  credits: {
    summary: 'show or change the credit balance of a key',
    load: async () => ({ run: (await import('./commands/keys.ts')).runCredits }),
  },
};

export function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}   ${c.summary}`);
  return `Usage: tramline <command> [options]

Commands:
${lines.join('\n')}

Run "tramline <command> --help" for a command's options.
`;
}

export interface MainIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const defaultIO: MainIO = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

export async function main(argv: string[], io: MainIO = defaultIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(help());
    return 2;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const sub = rest[0];
    if (sub !== undefined && Object.hasOwn(COMMANDS, sub))
      return (await COMMANDS[sub].load()).run(['--help']);
    io.stdout(help());
    return 0;
  }
  if (name === '--version' || name === '-v') {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    io.stdout(`tramline ${pkg.version}\n`);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    io.stderr(`tramline: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  return (await COMMANDS[name].load()).run(rest);
}

if (import.meta.main) {
  // A closed pipe (tramline plan ... | head) ends the output quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  process.exitCode = await main(process.argv.slice(2));
}
