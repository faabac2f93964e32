/**
 * `tramline serve [--port N] [--host H] [--data-dir DIR]`: the HTTP service,
 * the same as `npm start`. Settings come from the environment (api/config.ts);
 * the flags override PORT, HOST and TRAMLINE_DATA_DIR.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../api/config.ts';
import { restartWithServerSettings } from '../../api/process-settings.ts';

export interface CommandIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const defaultIO: CommandIO = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

export const SERVE_HELP = `Usage: tramline serve [options]

Run the HTTP service (direct planning, OpenAPI at /api/openapi.json, docs at /docs).
Without DATABASE_URL it keeps its data in an embedded database under the data
directory; nothing needs to be set up.

Options:
  --port N          port (default: PORT or 8080)
  --host H          address to listen on (default: HOST or 0.0.0.0)
  --data-dir DIR    embedded database directory (default: TRAMLINE_DATA_DIR or ./data)
  -h, --help        this help

Environment: DATABASE_URL, TRAMLINE_BOOTSTRAP_API_KEY, TRAMLINE_BOOTSTRAP_EMAIL,
TRAMLINE_RATE_LIMIT_PER_MIN, TRAMLINE_PLAN_THREADS, TRAMLINE_PLAN_QUEUE, TRAMLINE_PLAN_HEAP_MB,
TRAMLINE_TRUST_PROXY, DATABASE_POOL_SIZE, LOG_LEVEL.
`;

export async function run(argv: string[], io: CommandIO = defaultIO): Promise<number> {
  let values: { port?: string; host?: string; 'data-dir'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    io.stderr(`tramline serve: ${(e as Error).message}\n\n${SERVE_HELP}`);
    return 2;
  }
  if (values.help) {
    io.stdout(SERVE_HELP);
    return 0;
  }
  // The same V8 options and malloc settings as `npm start` (api/process-settings.ts).
  restartWithServerSettings();
  const { runServer } = await import('../../api/server.ts');
  try {
    const env = { ...process.env };
    if (values.port !== undefined) env.PORT = values.port;
    if (values.host !== undefined) env.HOST = values.host;
    if (values['data-dir'] !== undefined) env.TRAMLINE_DATA_DIR = values['data-dir'];
    return await runServer(loadConfig(env));
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr(`tramline serve: ${e.message}\n`);
      return 2;
    }
    io.stderr(`tramline serve: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}
