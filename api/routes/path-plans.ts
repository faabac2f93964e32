/**
 * The direct interface: stateless planning, nothing stored.
 *   POST /api/path-plans/direct           -> PathPlanNormalizedModel
 *   POST /api/path-plans/direct/geojson   -> FeatureCollection
 *   POST /api/path-plan                   -> PathPlanNormalizedModel (2.2 subset request)
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DirectPathPlanModel, PlanFeatureCollection, planErrors, rateHeaders } from '../openapi/responses.ts';
import { type PlanService, releaseWhenSent } from '../planning/plan-service.ts';
import type { PlanFormat } from '../planning/plan-task.ts';
import {
  type DirectPlanRequest,
  DirectPlanRequest as DirectPlanRequestSchema,
  PathPlanRequest,
} from '../planning/schemas.ts';
import { sinceArrival } from '../request-timing.ts';

const CONTENT_TYPE: Record<PlanFormat, string> = {
  model: 'application/json; charset=utf-8',
  geojson: 'application/geo+json; charset=utf-8',
};

/**
 * The Server-Timing header of a plan [ms]: `plan` on the planning thread
 * (planning and serialising), `pool` waiting for a thread and moving the
 * task and the answer between threads, `total` from the request's arrival
 * to its answer being ready to send.
 */
export function serverTiming(planMs: number, poolMs: number, totalMs: number): string {
  const f = (v: number) => (Math.round(v * 10) / 10).toString();
  return `plan;dur=${f(planMs)}, pool;dur=${f(poolMs)}, total;dur=${f(totalMs)}`;
}

const serverTimingHeader = {
  'Server-Timing': {
    type: 'string',
    description:
      'Where the time of this answer went [ms] (W3C Server Timing): plan = planning and serialising on a planning thread, pool = waiting for a planning thread and handing the task and answer over, total = from the request arriving to the answer being ready to send. Example: plan;dur=14.2, pool;dur=0.4, total;dur=17.9',
  },
};

const ok = (schema: unknown, mediaType: string, description: string) => ({
  description,
  headers: { ...rateHeaders, ...serverTimingHeader },
  content: { [mediaType]: { schema } },
});

const billing =
  " Costs 1 credit of the key's company, charged only when the plan succeeds (402 when none is left). Needs X-API-KEY. Nothing is stored.";

export async function pathPlanRoutes(
  app: FastifyInstance,
  opts: { planService: PlanService },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const handle = (format: PlanFormat) => async (req: FastifyRequest, reply: FastifyReply) => {
    const controller = new AbortController();
    // The client went away before the answer: stop planning (the credit is refunded).
    const onClose = () => {
      if (!reply.raw.writableEnded) controller.abort();
    };
    reply.raw.once('close', onClose);
    try {
      // req.principal is set: the onRequest hook refused requests without a valid key.
      const out = await opts.planService.plan(
        req.body as DirectPlanRequest,
        req.principal!,
        format,
        controller.signal,
      );
      reply.header('content-type', CONTENT_TYPE[format]);
      reply.header('server-timing', serverTiming(out.ms, out.poolMs, sinceArrival(req.raw)));
      if (typeof out.body !== 'string') releaseWhenSent(reply.raw, out.body);
      return reply.send(out.body);
    } finally {
      reply.raw.off('close', onClose);
    }
  };

  r.post(
    '/api/path-plans/direct',
    {
      schema: {
        tags: ['Direct planning'],
        summary: 'Plan a field; answer the v2.0.0 normalized model',
        description: `Plans the field of the request (v2.0.0 or quick-start outline) and answers the PathPlanNormalizedModel.${billing}`,
        body: DirectPlanRequestSchema,
        response: { 200: ok(DirectPathPlanModel, 'application/json', 'The plan.'), ...planErrors },
      },
    },
    handle('model'),
  );

  r.post(
    '/api/path-plans/direct/geojson',
    {
      schema: {
        tags: ['Direct planning'],
        summary: 'Plan a field; answer GeoJSON',
        description: `Same request as /api/path-plans/direct; answers the plan as a GeoJSON FeatureCollection (application/geo+json).${billing}`,
        body: DirectPlanRequestSchema,
        response: {
          200: ok(PlanFeatureCollection, 'application/geo+json', 'The plan as GeoJSON.'),
          ...planErrors,
        },
      },
    },
    handle('geojson'),
  );

  r.post(
    '/api/path-plan',
    {
      schema: {
        tags: ['Direct planning'],
        summary: 'Plan a field from the 2.2 subset; answer the normalized model',
        description: `Accepts only boundary, operationType, exteriorHeadlandPasses, interiorHeadlandPasses and equipment; answers the PathPlanNormalizedModel.${billing}`,
        body: PathPlanRequest,
        response: { 200: ok(DirectPathPlanModel, 'application/json', 'The plan.'), ...planErrors },
      },
    },
    handle('model'),
  );
}
