import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { postgresReachable } from './store/testing.ts';

/**
 * Projects: `default` runs every test (store-backed HTTP tests on an
 * in-memory PGlite) but the few of `default-isolated`; `postgres` runs the store-backed HTTP tests again on a
 * real PostgreSQL database made for the run (TRAMLINE_TEST_POSTGRES_URL,
 * default postgres://postgres@127.0.0.1:5432/postgres). Without a reachable
 * PostgreSQL the `postgres` project is left out, except in CI, where it
 * runs and fails.
 */
const POSTGRES_TESTS = ['api/platform/**/*.test.ts', 'api/api.test.ts'];

/**
 * Files that change the process's globals for good and so run in a process
 * of their own (project `default-isolated`): `gpxparser` installs a browser
 * environment (jsdom-global: window, document, URL, Blob) when it loads.
 */
const OWN_PROCESS_TESTS = ['formats/export/readers.test.ts', 'cli/commands/plan-export.test.ts'];

const withPostgres = Boolean(process.env.CI) || (await postgresReachable());

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files share their worker process (each file loading the server, the planner and
    // their dependencies anew took about twice the CPU); each file closes what it opened
    // (test/helpers/file-scope.ts). TRAMLINE_TEST_ISOLATE=1 gives every file its own process.
    isolate: process.env.TRAMLINE_TEST_ISOLATE === '1',
    setupFiles: ['test/helpers/file-scope-setup.ts'],
    // Most test files wait on servers, databases and browsers more than they compute: at least two
    // run at once even on a machine of two cores (vitest's default there would be one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['**/*.test.ts'],
          exclude: ['node_modules/**', 'data/**', 'dist/**', ...OWN_PROCESS_TESTS],
        },
      },
      {
        extends: true,
        test: {
          name: 'default-isolated',
          include: OWN_PROCESS_TESTS,
          isolate: true,
          env: { TRAMLINE_TEST_OWN_PROCESS: '1' },
        },
      },
      ...(withPostgres
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: POSTGRES_TESTS,
                exclude: ['node_modules/**'],
                globalSetup: ['store/postgres-test-setup.ts'],
                env: { TRAMLINE_TEST_PROJECT: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
