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

  it('reads the registration switch, the file quotas and the archive limits', () => {
    const d = loadConfig({});
    expect(d.openRegistration).toBe(true);
    expect(d.fileQuota).toEqual({ maxFiles: 500, maxBytes: 1024 * 1024 * 1024 });
    expect(d.archiveLimits).toEqual({
      maxEntries: 1000,
      maxEntryBytes: 64 * 1024 * 1024,
      maxTotalBytes: 128 * 1024 * 1024,
      maxRatio: 200,
    });
    for (const off of ['false', '0', 'off', 'NO'])
      expect(loadConfig({ TRAMLINE_OPEN_REGISTRATION: off }).openRegistration).toBe(false);
    expect(loadConfig({ TRAMLINE_OPEN_REGISTRATION: 'true' }).openRegistration).toBe(true);
    expect(() => loadConfig({ TRAMLINE_OPEN_REGISTRATION: 'maybe' })).toThrow(ConfigError);
    const c = loadConfig({
      TRAMLINE_FILES_PER_COMPANY: '20',
      TRAMLINE_FILE_STORAGE_PER_COMPANY_MB: '100',
      TRAMLINE_ARCHIVE_MAX_ENTRIES: '50',
      TRAMLINE_ARCHIVE_MAX_ENTRY_MB: '8',
      TRAMLINE_ARCHIVE_MAX_TOTAL_MB: '16',
      TRAMLINE_ARCHIVE_MAX_RATIO: '50',
    });
    expect(c.fileQuota).toEqual({ maxFiles: 20, maxBytes: 100 * 1024 * 1024 });
    expect(c.archiveLimits).toEqual({
      maxEntries: 50,
      maxEntryBytes: 8 << 20,
      maxTotalBytes: 16 << 20,
      maxRatio: 50,
    });
    expect(() => loadConfig({ TRAMLINE_ARCHIVE_MAX_RATIO: '1' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRAMLINE_FILES_PER_COMPANY: '-1' })).toThrow(ConfigError);
  });
});
