import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { postgresReachable } from './store/testing.ts';

/**
 * Two projects: `default` runs every test (store-backed HTTP tests on an
 * in-memory PGlite); `postgres` runs the store-backed HTTP tests again on a
 * real PostgreSQL database made for the run (TRAMLINE_TEST_POSTGRES_URL,
 * default postgres://postgres@127.0.0.1:5432/postgres). Without a reachable
 * PostgreSQL the `postgres` project is left out, except in CI, where it
 * runs and fails.
 */
const POSTGRES_TESTS = ['api/platform/**/*.test.ts', 'api/api.test.ts'];

const withPostgres = Boolean(process.env.CI) || (await postgresReachable());

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test files wait on servers, databases and browsers more than they compute: at least two
    // run at once even on a machine of two cores (vitest's default there would be one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['**/*.test.ts'],
          exclude: ['node_modules/**', 'data/**', 'dist/**'],
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
