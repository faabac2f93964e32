/**
 * Shares (spec 4.4 Sharing): a code that opens one stored plan without a
 * key. Whoever holds the code reads exactly that plan, until the share
 * expires (30 days unless asked otherwise) or is revoked; every other path
 * with the code answers 404.
 *
 *   POST   /api/shares/path-plan                                  make a share (the code is shown once)
 *   GET    /api/shares/{shareId}                                   a share (key)
 *   DELETE /api/shares/{shareId}                                   revoke (key)
 *   GET    /api/shares/{code}                                      what a code opens (no key)
 *   GET    /api/shares/{code}/path-plans-normalized/{pathPlanId}   the plan (no key)
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import { createEquipmentScenariosRepository } from '../../store/repositories/equipment-scenarios.ts';
import { createNotificationsRepository } from '../../store/repositories/notifications.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { createSharesRepository, type ShareRecord } from '../../store/repositories/shares.ts';
import { ApiError } from '../errors.ts';
import { PathPlanNormalizedModel as ModelSchema } from '../openapi/responses.ts';
import { answers, iso, notFound, principalOf, Uuid } from './common.ts';
import { ScenarioShare, scenarioShareOut } from './equipment-scenario-shares.ts';

export const DEFAULT_SHARE_DAYS = 30;
export const MAX_SHARE_DAYS = 365;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const Share = Type.Object(
  {
    shareId: Type.String({ format: 'uuid' }),
    type: Type.Literal('path-plan'),
    pathPlanId: Type.String({ format: 'uuid' }),
    companyId: Type.String({ format: 'uuid' }),
    createdAt: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
    revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    active: Type.Boolean({ description: 'Neither expired nor revoked.' }),
  },
  { $id: 'Share', title: 'Share' },
);

const shareOut = (s: ShareRecord) => ({
  shareId: s.id,
  type: 'path-plan' as const,
  pathPlanId: s.pathPlanId,
  companyId: s.companyId,
  createdAt: iso(s.createdAt),
  expiresAt: iso(s.expiresAt),
  revokedAt: s.revokedAt ? iso(s.revokedAt) : null,
  active: !s.revokedAt && new Date(s.expiresAt).getTime() > Date.now(),
});

const codeParam = Type.String({ minLength: 10, maxLength: 100, description: 'A share code (tls_...).' });

export async function shareRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const shares = createSharesRepository(opts.store.db);
  const plans = createPathPlansRepository(opts.store.db);
  const scenarios = createEquipmentScenariosRepository(opts.store.db);
  const notices = createNotificationsRepository(opts.store.db);
  const tags = ['Shares'];

  r.post(
    '/api/shares/path-plan',
    {
      schema: {
        tags,
        summary: 'Share a stored plan by code',
        description: `Answers the share with its \`code\` (shown only here) and the anonymous \`url\` that reads the plan. Expires after \`expiresInDays\` (1..${MAX_SHARE_DAYS}, default ${DEFAULT_SHARE_DAYS}).`,
        body: Type.Object(
          {
            pathPlanId: Uuid('The plan to share.'),
            expiresInDays: Type.Optional(
              Type.Integer({ minimum: 1, maximum: MAX_SHARE_DAYS, default: DEFAULT_SHARE_DAYS }),
            ),
          },
          { additionalProperties: false },
        ),
        response: answers(
          {
            201: {
              schema: Type.Object(
                {
                  ...Share.properties,
                  code: Type.String({ description: 'The share code; shown only here.' }),
                  url: Type.String({ description: 'Path of the anonymous read of the plan.' }),
                },
                { $id: 'CreatedShare', title: 'CreatedShare' },
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
      const plan = await plans.row(p.userId, req.body.pathPlanId);
      if (!plan) throw notFound('plan', req.body.pathPlanId);
      const { share, code } = await shares.create({
        companyId: plan.companyId,
        pathPlanId: plan.id,
        userId: p.userId,
        expiresInSeconds: (req.body.expiresInDays ?? DEFAULT_SHARE_DAYS) * 86_400,
      });
      reply.code(201);
      return { ...shareOut(share), code, url: `/api/shares/${code}/path-plans-normalized/${plan.id}` };
    },
  );

  r.get(
    '/api/shares/:shareIdOrCode',
    {
      schema: {
        tags,
        summary: 'A share (by id, with a key) or what a code opens (no key)',
        description:
          'With a share id (UUID) and a key: the share (of a plan or of an equipment scenario set). With a code and no key: `{ type, pathPlanIds, expiresAt }` of a live plan share, `{ type, equipmentScenarioId, expiresAt }` of a live scenario share (404 when unknown, expired or revoked).',
        params: Type.Object(
          { shareIdOrCode: Type.String({ minLength: 10, maxLength: 100 }) },
          { additionalProperties: false },
        ),
        security: [{}, { apiKey: [] }, { bearer: [] }],
        response: answers(
          {
            200: {
              schema: Type.Union([
                Share,
                ScenarioShare,
                Type.Object(
                  {
                    type: Type.Literal('path-plan'),
                    pathPlanIds: Type.Array(Type.String()),
                    expiresAt: Type.String(),
                  },
                  { $id: 'SharedPlans', title: 'SharedPlans' },
                ),
                Type.Object(
                  {
                    type: Type.Literal('equipment-scenario'),
                    equipmentScenarioId: Type.String(),
                    expiresAt: Type.String(),
                  },
                  { $id: 'SharedEquipmentScenario', title: 'SharedEquipmentScenario' },
                ),
              ]),
              description: 'The share.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const v = req.params.shareIdOrCode;
      if (UUID_RE.test(v)) {
        if (!req.principal) return reply.code(401).send();
        const s = await shares.get(req.principal.userId, v);
        if (s) return shareOut(s);
        const sc = await scenarios.getShare(req.principal.userId, v);
        if (!sc) throw notFound('share', v);
        return scenarioShareOut(sc);
      }
      const s = await shares.byCode(v);
      if (!s) {
        const sc = await scenarios.shareByCode(v);
        if (sc)
          return {
            type: 'equipment-scenario' as const,
            equipmentScenarioId: sc.scenarioId,
            expiresAt: iso(sc.expiresAt),
          };
        throw new ApiError(404, 'NOT_FOUND', 'No live share with this code (unknown, expired or revoked).');
      }
      await notices.shareOpened(s);
      return { type: 'path-plan' as const, pathPlanIds: [s.pathPlanId], expiresAt: iso(s.expiresAt) };
    },
  );

  r.delete(
    '/api/shares/:shareIdOrCode',
    {
      schema: {
        tags,
        summary: 'Revoke a share',
        description: 'The code stops working at once. Revoking a revoked share is fine.',
        params: Type.Object(
          // One parameter name with GET /api/shares/{shareIdOrCode}: OpenAPI takes them for one path.
          { shareIdOrCode: Uuid('The share id (a share code does not revoke).') },
          { additionalProperties: false },
        ),
        response: answers({ 204: { schema: null, description: 'Revoked.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const id = req.params.shareIdOrCode;
      if (!(await shares.revoke(userId, id)) && !(await scenarios.revokeShare(userId, id)))
        throw notFound('share', id);
      return reply.code(204).send();
    },
  );

  r.get(
    '/api/shares/:code/path-plans-normalized/:pathPlanId',
    {
      schema: {
        tags,
        summary: 'A shared plan (no key)',
        description:
          'The plan of a live share, as GET /api/path-plans-normalized/{id} answers it. Any other plan id, or an expired or revoked code, is 404.',
        security: [{}],
        params: Type.Object(
          { code: codeParam, pathPlanId: Uuid('The shared plan.') },
          { additionalProperties: false },
        ),
        response: answers({ 200: { schema: ModelSchema, description: 'The plan.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const s = await shares.byCode(req.params.code);
      if (!s || s.pathPlanId !== req.params.pathPlanId) {
        throw new ApiError(404, 'NOT_FOUND', 'No plan with this id under a live share with this code.');
      }
      const plan = await plans.getAny(s.pathPlanId);
      if (!plan || plan.companyId !== s.companyId)
        throw new ApiError(404, 'NOT_FOUND', 'The shared plan no longer exists.');
      await notices.shareOpened(s);
      reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('cache-control', 'private, no-store');
      return reply.send(JSON.stringify(plan.model));
    },
  );

  r.post(
    '/api/shares/:code/plans',
    {
      schema: {
        tags,
        summary: 'The plans of a share as a table (no key; normalized models)',
        description:
          'TableSharePathPlanNormalizedResponseModel: a page of the live share’s plans as PathPlanNormalizedModels with the total. An unknown, expired or revoked code is 404.',
        security: [{}],
        params: Type.Object({ code: codeParam }, { additionalProperties: false }),
        body: Type.Optional(
          Type.Object(
            {
              offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 20.' })),
            },
            { additionalProperties: false },
          ),
        ),
        response: answers(
          {
            200: {
              schema: Type.Object(
                {
                  items: Type.Array(ModelSchema),
                  total: Type.Integer(),
                  expiresAt: Type.String({ format: 'date-time' }),
                },
                {
                  $id: 'TableSharePathPlanNormalizedResponseModel',
                  title: 'TableSharePathPlanNormalizedResponseModel',
                },
              ),
              description: 'A page of the shared plans.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const s = await shares.byCode(req.params.code);
      if (!s)
        throw new ApiError(404, 'NOT_FOUND', 'No live share with this code (unknown, expired or revoked).');
      const plan = await plans.getAny(s.pathPlanId);
      const all = plan && plan.companyId === s.companyId ? [plan.model] : [];
      const offset = req.body?.offset ?? 0;
      const limit = req.body?.limit ?? 20;
      await notices.shareOpened(s);
      reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('cache-control', 'private, no-store');
      return reply.send(
        JSON.stringify({
          items: all.slice(offset, offset + limit),
          total: all.length,
          expiresAt: iso(s.expiresAt),
        }),
      );
    },
  );
}
