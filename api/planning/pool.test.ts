/** The planning pool's memory bound (a plan holds at most a thread's heap; more is refused, and the pool goes on), and answers freed once sent. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { releaseWhenSent } from './plan-service.ts';
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
  it('plans what a thread holds, refuses what outgrows its heap, and replaces the thread', async () => {
    const pool = createPlanPool({ threads: 1, filename: SLOW_TASK_FILE, heapMb: 32 });
    try {
      const small = await pool.run(task('hold-4'), { timeoutMs: 20_000 });
      expect(JSON.parse((small as { body: string }).body)).toMatchObject({ held: 4 });
      const t0 = performance.now();
      await expect(pool.run(task('hold-80'), { timeoutMs: 20_000 })).rejects.toBeInstanceOf(
        PlanOutOfMemoryError,
      );
      // Refused when the thread ran out of memory, not at the time cap.
      expect(performance.now() - t0).toBeLessThan(10_000);
      expect(await pool.run(task('hold-1'), { timeoutMs: 20_000 })).toMatchObject({ ok: true });
      expect(pool.stats()).toMatchObject({ running: 0, queued: 0 });
    } finally {
      await pool.close();
    }
  }, 30_000);

  it('plans on a larger heap what the compact one refuses', async () => {
    const pool = createPlanPool({ threads: 1, filename: SLOW_TASK_FILE, heapMb: 160 });
    try {
      const big = await pool.run(task('hold-80'), { timeoutMs: 20_000 });
      expect(JSON.parse((big as { body: string }).body)).toMatchObject({ held: 80 });
    } finally {
      await pool.close();
    }
  }, 30_000);
});

describe('releaseWhenSent', () => {
  it('frees a body that owns its buffer on finish, and keeps it when the response only closes', () => {
    const owned = Buffer.from(new TextEncoder().encode('{"a":1}').buffer);
    const res = new EventEmitter();
    releaseWhenSent(res, owned);
    expect(owned.byteLength).toBe(7);
    res.emit('finish');
    expect(owned.byteLength).toBe(0);

    const kept = Buffer.from(new TextEncoder().encode('{"b":2}').buffer);
    const closed = new EventEmitter();
    releaseWhenSent(closed, kept);
    closed.emit('close');
    expect(kept.toString()).toBe('{"b":2}');

    // A view of part of a buffer (e.g. Node's pooled small buffers) is left alone.
    const pooled = Buffer.from('{"c":3}');
    const done = new EventEmitter();
    releaseWhenSent(done, pooled);
    done.emit('finish');
    expect(pooled.toString()).toBe('{"c":3}');
  });
});
