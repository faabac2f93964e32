/** The planning pool's memory tiers: compact threads, one large-heap thread for plans that do not fit. */
import { describe, expect, it } from 'vitest';
import type { PlanTaskInput } from './plan-task.ts';
import { createPlanPool, PlanOutOfMemoryError } from './pool.ts';
import { SLOW_TASK_FILE } from './testing/slow-task.ts';

const task = (operationType: string) =>
  ({
    request: {},
    format: 'geojson',
    meta: { pathPlanId: 'p', pathPlanName: 'n', createdAt: '', operationType },
  }) as unknown as PlanTaskInput;

describe('plan pool memory', () => {
  it('plans what a compact thread holds there, and retries what it cannot on the large-heap thread', async () => {
    const pool = createPlanPool({ threads: 1, filename: SLOW_TASK_FILE, heapMb: 32 });
    try {
      expect(await pool.run(task('hold-4'), { timeoutMs: 20_000 })).toMatchObject({ ok: true });
      const big = await pool.run(task('hold-80'), { timeoutMs: 20_000 });
      expect(big).toMatchObject({ ok: true });
      expect(JSON.parse((big as { body: string }).body)).toMatchObject({ held: 80 });
      // The compact thread was replaced: the pool still plans.
      expect(await pool.run(task('hold-1'), { timeoutMs: 20_000 })).toMatchObject({ ok: true });
      expect(pool.stats()).toMatchObject({ running: 0, queued: 0 });
    } finally {
      await pool.close();
    }
  }, 30_000);

  it('refuses a plan that outgrows the large-heap thread too', async () => {
    const pool = createPlanPool({ threads: 1, filename: SLOW_TASK_FILE, heapMb: 32, largeHeapMb: 32 });
    try {
      await expect(pool.run(task('hold-80'), { timeoutMs: 20_000 })).rejects.toBeInstanceOf(
        PlanOutOfMemoryError,
      );
      expect(await pool.run(task('hold-1'), { timeoutMs: 20_000 })).toMatchObject({ ok: true });
    } finally {
      await pool.close();
    }
  }, 30_000);
});
