/**
 * GET /api/healthz: liveness and readiness, no key needed, not rate limited.
 *
 * The database check is shared: at most one ping per `databaseCheckMs`
 * (default 1 s), and concurrent checks wait for the same ping. A load
 * balancer probing every 100 ms so costs the database one statement a
 * second, and under planning load the answer does not queue behind the
 * request thread's database work (on the embedded store every statement
 * runs on that thread).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { PlanPool } from '../planning/pool.ts';

const Health = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    databaseKind: Type.Union([Type.Literal('pglite'), Type.Literal('postgres')]),
    planner: Type.Object({
      threads: Type.Integer(),
      running: Type.Integer(),
      queued: Type.Integer(),
      maxQueue: Type.Integer(),
    }),
    uptimeSeconds: Type.Number(),
  },
  { $id: 'Health', title: 'Health' },
);

export async function healthRoutes(
  app: FastifyInstance,
  opts: { store: Store; pool: PlanPool; databaseCheckMs?: number },
): Promise<void> {
  const started = performance.now();
  const checkMs = opts.databaseCheckMs ?? 1000;
  let last: { at: number; ok: boolean } | undefined;
  let pending: Promise<boolean> | undefined;
  const databaseOk = (): Promise<boolean> | boolean => {
    if (last && performance.now() - last.at < checkMs) return last.ok;
    pending ??= opts.store
      .ping()
      .then((ok) => {
        last = { at: performance.now(), ok };
        return ok;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  app.get(
    '/api/healthz',
    {
      schema: {
        tags: ['Service'],
        summary: 'Health check',
        description:
          'Answers 200 when the database answers (checked at most once a second), 503 otherwise. No API key needed, and never rate limited (probes do not count against the client address). Planner load is reported, not judged.',
        security: [],
        response: {
          200: { ...Health, description: 'Healthy.' },
          503: { ...Health, description: 'The database does not answer.' },
        },
      },
    },
    async (_req, reply) => {
      const dbOk = await databaseOk();
      return reply.code(dbOk ? 200 : 503).send({
        status: dbOk ? 'ok' : 'unavailable',
        database: dbOk ? 'ok' : 'unavailable',
        databaseKind: opts.store.kind,
        planner: opts.pool.stats(),
        uptimeSeconds: Math.round((performance.now() - started) / 100) / 10,
      });
    },
  );
}
