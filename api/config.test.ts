/** Server settings read from the environment. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('leaves the planning heap to the pool by default and reads TRAMLINE_PLAN_HEAP_MB', () => {
    expect(loadConfig({}).planHeapMb).toBeUndefined();
    expect(loadConfig({ TRAMLINE_PLAN_HEAP_MB: '256' }).planHeapMb).toBe(256);
  });

  it('refuses a planning heap that is not a whole number of at least 16 MB', () => {
    for (const v of ['8', '64.5', 'lots']) {
      expect(() => loadConfig({ TRAMLINE_PLAN_HEAP_MB: v }), v).toThrow(ConfigError);
    }
  });
});
