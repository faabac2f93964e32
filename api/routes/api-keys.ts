/**
 * API keys of the current user:
 *   POST   /api/create-api-key   a new key; the full key is in this answer only
 *   GET    /api/user-api-keys    the user's keys, masked
 *   DELETE /api/api-keys/{id}    revokes one; the next call with it gets 401
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { ApiKeyRecord } from '../../store/repositories/api-keys.ts';
import { ApiError } from '../errors.ts';
import { answers, idParams, iso, notFound, optionalBody, principalOf, Timestamp, Uuid } from './common.ts';

const ApiKeyItem = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    maskedKey: Type.String({ description: 'tl_ and the first and last 4 characters of the key.' }),
    companyId: Type.String({ format: 'uuid', description: 'The company whose credits the key spends.' }),
    createdAt: Timestamp,
    revokedAt: Type.Union([Timestamp, Type.Null()]),
    active: Type.Boolean(),
  },
  { $id: 'ApiKey', title: 'ApiKey' },
);

const CreatedApiKey = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    key: Type.String({ description: 'The full key. Shown only in this answer; only its hash is stored.' }),
    maskedKey: Type.String(),
    companyId: Type.String({ format: 'uuid' }),
    createdAt: Timestamp,
  },
  { $id: 'CreatedApiKey', title: 'CreatedApiKey' },
);

const CreateApiKeyRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200, description: 'A label for the key (default empty).' })),
    companyId: Type.Optional(
      Uuid(
        'The company whose credits the key spends; one the user can access. Default: the company of the calling key (for a session, its billing company).',
      ),
    ),
  },
  { additionalProperties: false, $id: 'CreateApiKeyRequest', title: 'CreateApiKeyRequest' },
);

const item = (k: ApiKeyRecord) => ({
  id: k.id,
  name: k.name,
  maskedKey: k.masked,
  companyId: k.companyId,
  createdAt: iso(k.createdAt),
  revokedAt: k.revokedAt ? iso(k.revokedAt) : null,
  active: k.revokedAt === null,
});

export async function apiKeyRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;

  r.post(
    '/api/create-api-key',
    {
      preValidation: optionalBody,
      schema: {
        tags: ['API keys'],
        summary: 'Create an API key',
        description:
          'Creates a key for the calling user. The answer is the only place the full key appears; listings show it masked. The body may be empty.',
        body: CreateApiKeyRequest,
        response: answers({ 201: { schema: CreatedApiKey, description: 'The new key.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const companyId = req.body.companyId ?? p.companyId;
      const role = await store.companies.role(p.userId, companyId);
      if (!role) {
        if (req.body.companyId) throw notFound('company', companyId);
        throw new ApiError(
          400,
          'VALIDATION_ERROR',
          'Invalid request: /companyId is required: the session has no company to bill.',
          { errors: [{ path: '/companyId', message: 'is required: the session has no company to bill' }] },
        );
      }
      const { record, key } = await store.apiKeys.create({
        userId: p.userId,
        companyId,
        name: req.body.name ?? '',
      });
      return reply.code(201).send({
        id: record.id,
        name: record.name,
        key,
        maskedKey: record.masked,
        companyId: record.companyId,
        createdAt: iso(record.createdAt),
      });
    },
  );

  r.get(
    '/api/user-api-keys',
    {
      schema: {
        tags: ['API keys'],
        summary: "The current user's API keys, masked",
        description: 'Active and revoked keys, oldest first; never the full key.',
        response: answers({ 200: { schema: Type.Array(ApiKeyItem), description: 'The keys.' } }),
      },
    },
    async (req) => (await store.apiKeys.list(principalOf(req).userId)).map(item),
  );

  r.delete(
    '/api/api-keys/:id',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Revoke an API key',
        description:
          "Revokes one of the current user's keys; calls with it get 401 from then on. Revoking a revoked key answers 204 again. Another user's key ids answer 404.",
        params: idParams('id'),
        response: answers({ 204: { schema: null, description: 'Revoked.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const k = await store.apiKeys.findOwn(req.params.id, p.userId);
      if (!k) throw new ApiError(404, 'NOT_FOUND', `No API key ${req.params.id} of yours.`);
      await store.apiKeys.revokeOwn(k.id, p.userId);
      return reply.code(204).send();
    },
  );
}
