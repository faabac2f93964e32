/**
 * Settings of the server process that only take effect when the process
 * starts: V8 options of the request thread and glibc malloc's environment.
 * `npm start` (server.ts) and `tramline serve` both call
 * `restartWithServerSettings()` before loading the server, so the service
 * runs the same however it is started.
 *
 *   --max-semi-space-size=4   the request thread's young generation: V8
 *                             sizes it from host memory (up to 3 x 64 MB),
 *                             which costs resident memory and buys nothing
 *                             measurable here.
 *   --liftoff-only            V8's baseline WebAssembly compiler only: the
 *                             embedded database starts with 0.6 s less CPU
 *                             and about 65 MB less memory, its statements
 *                             about 15% slower.
 *   MALLOC_ARENA_MAX=2        glibc otherwise gives threads up to 8 arenas
 *                             per CPU; answers are allocated on the
 *                             planning threads and freed on the request
 *                             thread, and memory freed into many arenas
 *                             stays resident.
 *   MALLOC_MMAP_THRESHOLD_=131072
 *                             blocks of 128 KB and more (a plan's answer is
 *                             200 KB to several MB) are mapped on their own
 *                             and go back to the system when freed; glibc
 *                             otherwise raises the threshold after the first
 *                             such block is freed and keeps answers in its
 *                             heaps (HTTP benchmark under load: peak RSS
 *                             about 405 -> 380 MB).
 *
 * Options and variables already set (on the command line, in NODE_OPTIONS
 * or in the environment) are kept as they are.
 */

export const SERVER_NODE_OPTIONS: readonly string[] = ['--max-semi-space-size=4', '--liftoff-only'];

export const SERVER_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

const optionName = (o: string) => o.split('=', 1)[0];

/** What this process lacks of the server settings (options, variables). */
export function missingServerSettings(
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): { options: string[]; env: Record<string, string> } {
  const given = new Set([...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].map(optionName));
  return {
    options: SERVER_NODE_OPTIONS.filter((o) => !given.has(optionName(o))),
    env: Object.fromEntries(Object.entries(SERVER_ENV).filter(([k]) => env[k] === undefined)),
  };
}

/**
 * When settings are missing, replaces this process with itself (same pid,
 * same arguments and descriptors; `process.execve`, Linux) plus the missing
 * settings; otherwise returns. Where the process cannot be replaced (other
 * systems, or TRAMLINE_RESTART_WITH_SETTINGS=0), it runs on as it is.
 */
export function restartWithServerSettings(): void {
  if (process.env.TRAMLINE_RESTART_WITH_SETTINGS === '0') return;
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never })
    .execve;
  if (process.platform !== 'linux' || typeof execve !== 'function') return;
  const missing = missingServerSettings();
  if (missing.options.length === 0 && Object.keys(missing.env).length === 0) return;
  try {
    execve.call(
      process,
      process.execPath,
      [process.execPath, ...missing.options, ...process.execArgv, ...process.argv.slice(1)],
      { ...process.env, ...missing.env },
    );
  } catch {
    // Not permitted here: run without them.
  }
}
