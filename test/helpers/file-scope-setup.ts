/**
 * Vitest setup file: closes what each test file left open (see
 * file-scope.ts), and fails a file that leaves a browser environment in the
 * process (test files share their process: PGlite, fetch and FormData would
 * take the browser's paths in the files after it).
 */
import { afterAll } from 'vitest';
import { closeFileScope } from './file-scope.ts';

// Files that run in a process of their own may leave what they like.
const ownProcess = process.env.TRAMLINE_TEST_OWN_PROCESS === '1' || process.env.TRAMLINE_TEST_ISOLATE === '1';
const hadWindow = 'window' in globalThis;

afterAll(async () => {
  await closeFileScope();
  if (!ownProcess && !hadWindow && 'window' in globalThis) {
    throw new Error(
      'this test file left a global `window` (a browser environment) in the test process: list it in OWN_PROCESS_TESTS in vitest.config.ts',
    );
  }
});
