/** The server's start-up settings: what a process lacks, keeping what is already set. */
import { describe, expect, it } from 'vitest';
import { missingServerSettings } from './process-settings.ts';

describe('missingServerSettings', () => {
  it('names every option and variable a bare process lacks', () => {
    expect(missingServerSettings([], {})).toEqual({
      options: ['--max-semi-space-size=4', '--liftoff-only'],
      env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
    });
  });

  it('keeps options given on the command line or in NODE_OPTIONS, and variables already set', () => {
    expect(
      missingServerSettings(['--max-semi-space-size=16'], {
        NODE_OPTIONS: '--liftoff-only',
        MALLOC_ARENA_MAX: '4',
        MALLOC_MMAP_THRESHOLD_: '262144',
      }),
    ).toEqual({ options: [], env: {} });
  });
});
