/**
 * The file reader thread: reads what the request thread would have read,
 * sends refusals and parse errors back as their own classes, and refuses a
 * file that takes longer than its time cap, or a read when the queue is full.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { PlanningError } from '../core/types/index.ts';
import { repoRoot } from '../test/helpers/corpus.ts';
import { overlapBomb } from './archive-testing.ts';
import { createBoundaryFilePool, ReaderBusyError } from './boundary-file-pool.ts';
import { readShapefileZip } from './boundary-shapefile.ts';
import { DEFAULT_ARCHIVE_LIMITS, FileRefusal } from './file-limits.ts';

const dk = resolve(repoRoot, 'test/fixtures/shapefile/dk');
const shpZip = zipSync(
  Object.fromEntries(
    ['shp', 'shx', 'dbf', 'prj'].map((e) => [
      `Marker_2026.${e}`,
      readFileSync(resolve(dk, `Marker_2026.${e}`)),
    ]),
  ),
);

const pool = createBoundaryFilePool();
afterAll(() => pool.close());

describe('the file reader thread', () => {
  it('reads a shapefile zip as the request thread would', async () => {
    const found = await pool.read('shapefile-zip', shpZip, DEFAULT_ARCHIVE_LIMITS);
    expect(found).toEqual(await readShapefileZip(shpZip));
    expect(found.polygons).toHaveLength(100);
  });

  it('sends refusals and parse errors back as FileRefusal and PlanningError', async () => {
    const bomb = await overlapBomb(4, 4 << 20);
    const e = await pool.read('shapefile-zip', bomb, DEFAULT_ARCHIVE_LIMITS).catch((x) => x);
    expect(e).toBeInstanceOf(FileRefusal);
    expect(e).toMatchObject({
      code: 'ARCHIVE_ENTRY_OVERLAP',
      status: 422,
      details: { limit: 'overlappingEntries' },
    });
    const p = await pool
      .read('kml', strToU8('<kml><Document/></kml>'), DEFAULT_ARCHIVE_LIMITS)
      .catch((x) => x);
    expect(p).toBeInstanceOf(PlanningError);
    expect(p.message).toMatch(/no Polygon/);
    await expect(pool.verifyZip(shpZip, DEFAULT_ARCHIVE_LIMITS, 'a.zip')).resolves.toBeUndefined();
  });

  it('refuses a file that takes longer than the time cap (422 FILE_TOO_COMPLEX), and reads when the queue is full (busy)', async () => {
    const slow = createBoundaryFilePool({ timeoutMs: 1 });
    try {
      const e = await slow.read('shapefile-zip', shpZip, DEFAULT_ARCHIVE_LIMITS).catch((x) => x);
      expect(e).toBeInstanceOf(FileRefusal);
      expect(e).toMatchObject({
        code: 'FILE_TOO_COMPLEX',
        status: 422,
        details: { limit: 'timeoutMs', limitValue: 1 },
      });
    } finally {
      await slow.close();
    }
    const one = createBoundaryFilePool({ threads: 1, maxQueue: 0 });
    try {
      const first = one.read('shapefile-zip', shpZip, DEFAULT_ARCHIVE_LIMITS);
      await expect(one.read('shapefile-zip', shpZip, DEFAULT_ARCHIVE_LIMITS)).rejects.toBeInstanceOf(
        ReaderBusyError,
      );
      expect((await first).polygons).toHaveLength(100);
    } finally {
      await one.close();
    }
  });
});
