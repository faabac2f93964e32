/**
 * Wheel traffic of stored plans (spec 4.4 Seasonal planning):
 *
 *   POST /api/wheel-traffic-summary/{pathPlanId}/geojson          the wheel tracks by passes (1, 2, 3 or more)
 *   POST /api/path-plans/{pathPlanId}/update-equipment-snapshot   the plan's track and tyre widths set and its
 *                                                                 trafficked area measured again (no replanning)
 *
 * The tracks are those of the wheels of each axle along the driven parts of
 * the active groups (core/metrics/wheel-traffic.ts); their union is the
 * plan's traffickedArea. Another company's plans answer 404.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { planWheelTraffic, withEquipmentSnapshot } from '../../formats/plan-wheel-traffic.ts';
import type { Store } from '../../store/db.ts';
import { createEquipmentRepository } from '../../store/repositories/equipment.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, etagOf, notFound, preconditionFailed, principalOf, setEtag, Uuid } from './common.ts';

const Widths = {
  trackWidths: Type.Optional(
    Type.Array(Type.Number({ minimum: 0, maximum: 20 }), {
      maxItems: 16,
      description: 'Distance between the wheel centres of each axle [m]. Default: the plan’s equipment.',
    }),
  ),
  tireWidths: Type.Optional(
    Type.Array(Type.Number({ minimum: 0, maximum: 5 }), {
      maxItems: 16,
      description: 'Tyre width of each axle [m]. Default: the plan’s equipment.',
    }),
  ),
};

const params = Type.Object({ pathPlanId: Uuid('A stored plan.') }, { additionalProperties: false });

const WheelTrafficCollection = named(
  'WheelTrafficFeatureCollection',
  Type.Object(
    {
      type: Type.Literal('FeatureCollection'),
      features: Type.Array(
        Type.Object({
          type: Type.Literal('Feature'),
          geometry: Type.Object({
            type: Type.Literal('MultiPolygon'),
            coordinates: Type.Array(Type.Array(Type.Array(Type.Array(Type.Number())))),
          }),
          properties: Type.Object({
            passes: Type.Integer({
              minimum: 1,
              maximum: 3,
              description: 'Passes of a wheel over this ground: 1, 2, or 3 for three or more.',
            }),
            area: Type.Number({ description: 'Area of the feature [m²].' }),
          }),
        }),
        { description: 'One feature per number of passes that occurs; together the trafficked ground.' },
      ),
      traffickedArea: Type.Number({ description: 'Area of the union of the features [m²].' }),
      traffickedAreaPercent: Type.Number({ description: 'traffickedArea / field area [%].' }),
      trackWidths: Type.Array(Type.Number(), { description: 'The track widths measured with [m].' }),
      tireWidths: Type.Array(Type.Number(), { description: 'The tyre widths measured with [m].' }),
    },
    {
      description:
        'Wheel tracks of a plan: per axle two tyre-wide bands at ±trackWidth/2 from the centre line of every driven part of the active routes, counted by passes, within the field. Empty without tyre widths.',
    },
  ),
);

const SnapshotResult = named(
  'EquipmentSnapshotResult',
  Type.Object({
    pathPlanId: Type.String({ format: 'uuid' }),
    trackWidths: Type.Array(Type.Number()),
    tireWidths: Type.Array(Type.Number()),
    traffickedArea: Type.Number({ description: 'The plan’s stats.traffickedArea now [m²].' }),
    traffickedAreaPercent: Type.Number(),
    etag: Type.String({ description: 'The plan’s new version.' }),
  }),
);

export async function wheelTrafficRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const plans = createPathPlansRepository(opts.store.db);
  const machines = createEquipmentRepository(opts.store.db);

  r.post(
    '/api/wheel-traffic-summary/:pathPlanId/geojson',
    {
      schema: {
        tags: ['Path plans'],
        summary: 'The wheel tracks of a plan by passes, as GeoJSON',
        description:
          'Polygons of the ground the wheels run on, one MultiPolygon feature per number of passes (1, 2, 3 or more) with its area; their union is the plan’s traffickedArea. With trackWidths and tireWidths in the body, measured for those instead of the plan’s equipment (nothing is stored).',
        params,
        body: Type.Optional(
          named('WheelTrafficRequest', Type.Object(Widths, { additionalProperties: false })),
        ),
        response: answers(
          {
            200: {
              schema: WheelTrafficCollection,
              description: 'The wheel tracks.',
              mediaType: 'application/geo+json',
            },
          },
          400,
          404,
          415,
        ),
      },
    },
    async (req, reply) => {
      const stored = await plans.get(principalOf(req).userId, req.params.pathPlanId);
      if (!stored) throw notFound('plan', req.params.pathPlanId);
      reply.header('content-type', 'application/geo+json; charset=utf-8');
      return reply.send(JSON.stringify(planWheelTraffic(stored.model, req.body ?? undefined)));
    },
  );

  r.post(
    '/api/path-plans/:pathPlanId/update-equipment-snapshot',
    {
      schema: {
        tags: ['Path plans'],
        summary: 'Set a plan’s track and tyre widths and measure its wheel traffic again',
        description:
          'For a plan made without tyre data (or with other tyres): the body’s trackWidths and tireWidths, or those of the stored machine `equipmentId`, become the plan’s equipment widths, and the trafficked area of every group, zone and the plan is measured along the route as it is (no replanning, no credits). With an empty body the plan’s own widths are measured again. 412 when the plan changed meanwhile.',
        params,
        body: Type.Optional(
          named(
            'EquipmentSnapshotRequest',
            Type.Object(
              {
                equipmentId: Type.Optional(
                  Uuid('A stored machine of the plan’s company whose widths to take (not with the widths).'),
                ),
                ...Widths,
              },
              { additionalProperties: false },
            ),
          ),
        ),
        response: answers(
          { 200: { schema: SnapshotResult, description: 'The plan’s new figures.' } },
          400,
          404,
          412,
          415,
        ),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const body = req.body ?? {};
      const stored = await plans.get(userId, req.params.pathPlanId);
      if (!stored) throw notFound('plan', req.params.pathPlanId);
      let widths: { trackWidths?: number[]; tireWidths?: number[] } = body;
      if (body.equipmentId) {
        if (body.trackWidths || body.tireWidths) {
          throw validationError([
            { path: '/equipmentId', message: 'must not be given with trackWidths or tireWidths' },
          ]);
        }
        const e = await machines.get(userId, body.equipmentId);
        if (!e || e.companyId !== stored.companyId) throw notFound('equipment', body.equipmentId);
        widths = { trackWidths: e.trackWidths, tireWidths: e.tireWidths };
      }
      const model = withEquipmentSnapshot(stored.model, widths);
      if (!(await plans.replaceModelIfVersion(userId, stored.id, model, stored.version)))
        throw preconditionFailed('plan', stored.id);
      setEtag(reply, stored.version + 1);
      return {
        pathPlanId: stored.id,
        trackWidths: model.equipment.trackWidths,
        tireWidths: model.equipment.tireWidths,
        traffickedArea: model.stats.traffickedArea ?? 0,
        traffickedAreaPercent: model.stats.traffickedAreaPercent ?? 0,
        etag: etagOf(stored.version + 1),
      };
    },
  );
}
