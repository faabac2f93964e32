/**
 * Shares of an equipment scenario set (spec 4.4 Sharing): a code that opens
 * the set (its scenarios, totals and fields, as GET
 * /api/equipment-scenarios/{id} answers it) without a key, until it expires
 * or is revoked (DELETE /api/shares/{shareId}, as for plan shares).
 *
 *   POST /api/shares/equipment-scenario          make a share (the code is shown once)
 *   GET  /api/shares/{code}/equipment-scenario   the shared set (no key)
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import {
  createEquipmentScenariosRepository,
  type ScenarioShareRecord,
} from '../../store/repositories/equipment-scenarios.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, iso, notFound, principalOf, Uuid } from './common.ts';
import { ScenarioSetSchema, scenarioSetView } from './equipment-scenario-models.ts';
import { DEFAULT_SHARE_DAYS, MAX_SHARE_DAYS } from './shares.ts';

export const scenarioShareOut = (s: ScenarioShareRecord) => ({
  shareId: s.id,
  type: 'equipment-scenario' as const,
  equipmentScenarioId: s.scenarioId,
  companyId: s.companyId,
  createdAt: iso(s.createdAt),
  expiresAt: iso(s.expiresAt),
  revokedAt: s.revokedAt ? iso(s.revokedAt) : null,
  active: !s.revokedAt && new Date(s.expiresAt).getTime() > Date.now(),
});

export const ScenarioShare = named(
  'EquipmentScenarioShare',
  Type.Object({
    shareId: Type.String({ format: 'uuid' }),
    type: Type.Literal('equipment-scenario'),
    equipmentScenarioId: Type.String({ format: 'uuid' }),
    companyId: Type.String({ format: 'uuid' }),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    active: Type.Boolean({ description: 'Neither expired nor revoked.' }),
  }),
);

const ShareNormalizedEquipmentScenario = named('ShareNormalizedEquipmentScenarioResponseModel', {
  ...ScenarioSetSchema,
  description: 'The shared scenario set, as GET /api/equipment-scenarios/{equipmentScenarioId} answers it.',
});

export async function equipmentScenarioShareRoutes(
  app: FastifyInstance,
  opts: { store: Store },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const scenarios = createEquipmentScenariosRepository(opts.store.db);
  const tags = ['Shares'];

  r.post(
    '/api/shares/equipment-scenario',
    {
      schema: {
        tags,
        summary: 'Share a scenario set by code',
        description: `Answers the share with its \`code\` (shown only here) and the anonymous \`url\` that reads the set. Expires after \`expiresInDays\` (1..${MAX_SHARE_DAYS}, default ${DEFAULT_SHARE_DAYS}); DELETE /api/shares/{shareId} revokes it.`,
        body: named(
          'EquipmentScenarioShareRequest',
          Type.Object(
            {
              equipmentScenarioId: Uuid('The scenario set to share.'),
              expiresInDays: Type.Optional(
                Type.Integer({ minimum: 1, maximum: MAX_SHARE_DAYS, default: DEFAULT_SHARE_DAYS }),
              ),
            },
            { additionalProperties: false },
          ),
        ),
        response: answers(
          {
            201: {
              schema: named(
                'CreatedEquipmentScenarioShare',
                Type.Object({
                  ...ScenarioShare.properties,
                  code: Type.String({ description: 'The share code; shown only here.' }),
                  url: Type.String({ description: 'Path of the anonymous read of the set.' }),
                }),
              ),
              description: 'The share.',
            },
          },
          400,
          404,
          415,
        ),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const set = await scenarios.get(p.userId, req.body.equipmentScenarioId);
      if (!set) throw notFound('equipment scenario', req.body.equipmentScenarioId);
      const { share, code } = await scenarios.createShare({
        companyId: set.companyId,
        scenarioId: set.id,
        userId: p.userId,
        expiresInSeconds: (req.body.expiresInDays ?? DEFAULT_SHARE_DAYS) * 86_400,
      });
      reply.code(201);
      return { ...scenarioShareOut(share), code, url: `/api/shares/${code}/equipment-scenario` };
    },
  );

  r.get(
    '/api/shares/:code/equipment-scenario',
    {
      schema: {
        tags,
        summary: 'A shared scenario set (no key)',
        description:
          'The set of a live scenario share: its scenarios in request order with totals and fields. An unknown, expired or revoked code is 404.',
        security: [{}],
        params: Type.Object(
          { code: Type.String({ minLength: 10, maxLength: 100, description: 'A share code (tls_...).' }) },
          { additionalProperties: false },
        ),
        response: answers(
          { 200: { schema: ShareNormalizedEquipmentScenario, description: 'The set.' } },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const s = await scenarios.shareByCode(req.params.code);
      const set = s ? await scenarios.getAny(s.scenarioId) : null;
      if (!s || !set || set.companyId !== s.companyId)
        throw new ApiError(404, 'NOT_FOUND', 'No scenario set under a live share with this code.');
      reply.header('cache-control', 'private, no-store');
      return scenarioSetView(opts.store, set);
    },
  );
}
