/** GET /api/healthz: liveness and readiness, no key needed. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import { ErrorResponse, withHeaders } from '../openapi/responses.ts';
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
  { title: 'Health' },
);

export async function healthRoutes(
  app: FastifyInstance,
  opts: { store: Store; pool: PlanPool },
): Promise<void> {
  const started = performance.now();
  app.get(
    '/api/healthz',
    {
      schema: {
        tags: ['Service'],
        summary: 'Health check',
        description:
          'Answers 200 when the database answers, 503 otherwise. No API key needed. Planner load is reported, not judged.',
        security: [],
        response: {
          200: withHeaders(Health, 'Healthy.'),
          503: withHeaders(Health, 'The database does not answer.'),
          429: withHeaders(ErrorResponse, 'Rate limit of the client address exceeded.'),
        },
      },
    },
    async (_req, reply) => {
      const dbOk = await opts.store.ping();
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
