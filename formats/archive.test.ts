/**
 * Zips read within limits: the zip bombs of an attack on the service (many
 * entries naming one deflated stream; one file of 256 MB of zeros; headers
 * that understate an entry) are refused from the central directory or as
 * soon as unpacking passes a cap, naming the limit; ordinary zips read as
 * fflate writes them; damaged zips are parse errors, never anything else.
 */
import fc from 'fast-check';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { PlanningError } from '../core/types/index.ts';
import { listZip, unzipEntries, verifyZip } from './archive.ts';
import { buildZip, deflatedZeros, overlapBomb, plainBomb, understatedBomb } from './archive-testing.ts';
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS, FileRefusal } from './file-limits.ts';

const MB = 1024 * 1024;

function refusal(f: () => unknown): FileRefusal {
  try {
    f();
  } catch (e) {
    if (e instanceof FileRefusal) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('zip bombs', () => {
  it('refuses entries that share one deflated stream (8 x 512 MB named in a 510 KB zip) from the directory alone', async () => {
    const bomb = await overlapBomb(8, 512 * MB);
    expect(bomb.length).toBeLessThan(600_000);
    // What the service did before: fflate unpacks every entry (4 GB). Shown on a small one: 8 x 4 MB from one stream.
    const small = await overlapBomb(8, 4 * MB);
    expect(Object.values(unzipSync(small)).reduce((n, v) => n + v.length, 0)).toBe(32 * MB);

    const t0 = performance.now();
    const e = refusal(() => unzipEntries(bomb, DEFAULT_ARCHIVE_LIMITS));
    expect(performance.now() - t0).toBeLessThan(200);
    expect(e).toMatchObject({ code: 'ARCHIVE_ENTRY_OVERLAP', status: 422 });
    expect(e.details).toMatchObject({ limit: 'overlappingEntries', entries: ['zeros-0.shp', 'zeros-1.shp'] });
    expect(refusal(() => listZip(small, DEFAULT_ARCHIVE_LIMITS)).code).toBe('ARCHIVE_ENTRY_OVERLAP');
  });

  it('refuses one entry of 256 MB of zeros by its declared size, and by its ratio under a larger entry limit', async () => {
    const bomb = await plainBomb(256 * MB);
    expect(bomb.length).toBeLessThan(300_000);
    const e = refusal(() => unzipEntries(bomb, DEFAULT_ARCHIVE_LIMITS));
    expect(e).toMatchObject({ code: 'ARCHIVE_ENTRY_TOO_LARGE', status: 413 });
    expect(e.details).toMatchObject({ limit: 'maxEntryBytes', limitValue: 64 * MB, entry: 'zeros.shp' });
    expect(e.message).toMatch(/256 MB.*at most 64 MB/);
    const roomy: ArchiveLimits = {
      ...DEFAULT_ARCHIVE_LIMITS,
      maxEntryBytes: 512 * MB,
      maxTotalBytes: 512 * MB,
    };
    const r = refusal(() => unzipEntries(bomb, roomy));
    expect(r).toMatchObject({ code: 'ARCHIVE_RATIO_TOO_HIGH', status: 422 });
    expect(r.details).toMatchObject({ limit: 'maxRatio', limitValue: 200 });
  });

  it('stops unpacking an entry whose headers understate it as soon as it passes the declared size', async () => {
    const bomb = await understatedBomb(256 * MB, 1000);
    const before = process.memoryUsage().arrayBuffers;
    const t0 = performance.now();
    const e = refusal(() => unzipEntries(bomb, DEFAULT_ARCHIVE_LIMITS));
    expect(performance.now() - t0).toBeLessThan(200);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * MB);
    expect(e).toMatchObject({ code: 'ARCHIVE_SIZE_MISMATCH', status: 422 });
    expect(e.details).toMatchObject({ limitValue: 1000, entry: 'small.shp' });
  });

  it('holds entries that lie to the entry, total and ratio limits while unpacking', async () => {
    const z = await deflatedZeros(3 * MB);
    const lying = (declared: number) => buildZip([{ name: 'a.xml', ...z, size: declared }]);
    const limits = (l: Partial<ArchiveLimits>) => ({ ...DEFAULT_ARCHIVE_LIMITS, maxRatio: 100_000, ...l });
    // Declared 3 MB, true 3 MB: within 2 MB entry limit? No: refused from the directory.
    expect(refusal(() => listZip(lying(3 * MB), limits({ maxEntryBytes: 2 * MB }))).code).toBe(
      'ARCHIVE_ENTRY_TOO_LARGE',
    );
    // Two honest entries of 3 MB under a 5 MB total.
    const two = buildZip([
      { name: 'a.xml', ...z },
      { name: 'b.xml', ...z },
    ]);
    const t = refusal(() => unzipEntries(two, limits({ maxTotalBytes: 5 * MB })));
    expect(t).toMatchObject({ code: 'ARCHIVE_TOO_LARGE', status: 413 });
    expect(t.details).toMatchObject({ limit: 'maxTotalBytes', limitValue: 5 * MB });
    expect(unzipEntries(two, limits({})).get('b.xml')?.length).toBe(3 * MB);
    expect(verifyZip(two, limits({})).map((e) => e.name)).toEqual(['a.xml', 'b.xml']);
  });

  it('refuses more entries than allowed before reading any, and encrypted entries', () => {
    const many = zipSync(
      Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}.txt`, new Uint8Array(1)])),
    );
    const e = refusal(() => listZip(many, DEFAULT_ARCHIVE_LIMITS));
    expect(e).toMatchObject({ code: 'ARCHIVE_TOO_MANY_ENTRIES', status: 413 });
    expect(e.details).toMatchObject({ limit: 'maxEntries', limitValue: 1000, entries: 1001 });
    expect(listZip(many, { ...DEFAULT_ARCHIVE_LIMITS, maxEntries: 1001 })).toHaveLength(1001);
    const locked = buildZip([
      { name: 'a.shp', packed: new Uint8Array(12), size: 0, crc: 0, method: 0, flags: 1 },
    ]);
    expect(refusal(() => listZip(locked, DEFAULT_ARCHIVE_LIMITS)).code).toBe('ARCHIVE_ENCRYPTED');
  });
});

describe('ordinary zips', () => {
  it('read as fflate writes them, stored or deflated, skipping folders and macOS resource forks', () => {
    const files = {
      'a/b.shp': new Uint8Array(5000).map((_, i) => i % 251),
      'a/c.dbf': new TextEncoder().encode('x'.repeat(10_000)),
      'a/': new Uint8Array(0),
      '__MACOSX/a/._b.shp': new Uint8Array(3),
      'empty.txt': new Uint8Array(0),
    };
    for (const level of [0, 6, 9] as const) {
      const out = unzipEntries(zipSync(files, { level }), DEFAULT_ARCHIVE_LIMITS);
      expect([...out.keys()].sort()).toEqual(['a/b.shp', 'a/c.dbf', 'empty.txt']);
      expect(out.get('a/b.shp')).toEqual(files['a/b.shp']);
      expect(out.get('a/c.dbf')).toEqual(files['a/c.dbf']);
    }
  });

  it('finds damaged data by its CRC-32', () => {
    const zip = zipSync({ 'a.txt': new TextEncoder().encode('hello world') }, { level: 0 });
    const i = Buffer.from(zip).indexOf('hello');
    zip[i] = 0x48;
    expect(() => unzipEntries(zip, DEFAULT_ARCHIVE_LIMITS)).toThrow(/CRC-32/);
  });

  it('round-trips any files, and any damage to a zip is a parse error or a refusal, never another error', () => {
    const fileSet = fc.dictionary(
      fc.stringMatching(/^[a-z]{1,8}\.(shp|dbf|xml)$/),
      fc.uint8Array({ maxLength: 3000 }),
      { maxKeys: 5 },
    );
    fc.assert(
      fc.property(fileSet, fc.constantFrom(0, 1, 9), (files, level) => {
        const out = unzipEntries(zipSync(files, { level: level as 0 | 1 | 9 }), DEFAULT_ARCHIVE_LIMITS);
        expect(Object.fromEntries([...out].map(([k, v]) => [k, [...v]]))).toEqual(
          Object.fromEntries(Object.entries(files).map(([k, v]) => [k, [...v]])),
        );
      }),
      { numRuns: 100, seed: 11 },
    );
    fc.assert(
      fc.property(
        fileSet,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }),
        fc.nat(),
        (files, hits, cut) => {
          const zip = zipSync(files, { level: 6 });
          for (const [at, v] of hits) zip[at % zip.length] = v;
          const damaged = cut % 3 === 0 ? zip.subarray(0, cut % (zip.length + 1)) : zip;
          try {
            unzipEntries(damaged, DEFAULT_ARCHIVE_LIMITS);
          } catch (e) {
            expect(e instanceof PlanningError || e instanceof FileRefusal, String(e)).toBe(true);
          }
        },
      ),
      { numRuns: 400, seed: 7 },
    );
  });
});
