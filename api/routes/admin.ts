/**
 * Admin (spec 4.4 "Admin"), for platform admins only (403 NotAuthorized
 * otherwise; the bootstrap key's user is one):
 *   POST /api/admin/admin-user                  grant or revoke the platform admin role { userId | email, admin }
 *   POST /api/admin/copy-company                deep copy of a company into another (or a new one), as a job
 *   GET  /api/admin/copy-company/jobs/{jobId}   that job
 *   POST /api/admin/test-field-decomposition    the decomposition of a boundary with its cells and timing
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { automaticZones } from '../../core/decompose/field-zones.ts';
import type { JobSystem } from '../../jobs/runtime.ts';
import type { Store } from '../../store/db.ts';
import { createJobsRepository } from '../../store/repositories/jobs.ts';
import { ApiError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, idParams, iso, principalOf, Timestamp, Uuid } from './common.ts';
import {
  AutomaticRequest,
  AutomaticResponse,
  automaticAnswer,
  prepareDecomposition,
} from './geometry-decomposition.ts';

const TAGS = ['Admin'];

const AdminUserRequest = named(
  'AdminUserRequest',
  Type.Object(
    {
      userId: Type.Optional(Uuid('The user; or give email.')),
      email: Type.Optional(
        Type.String({ format: 'email', maxLength: 320, description: 'The user; or give userId.' }),
      ),
      admin: Type.Boolean({ description: 'true grants the platform admin role, false revokes it.' }),
    },
    { additionalProperties: false },
  ),
);

const AdminUserResponse = named(
  'AdminUserResponse',
  Type.Object({
    userId: Uuid('The user.'),
    email: Type.Union([Type.String(), Type.Null()]),
    platformAdmin: Type.Boolean(),
  }),
);

const CopyCompanyRequest = named(
  'CopyCompanyRequest',
  Type.Object(
    {
      sourceCompanyId: Uuid('The company to copy.'),
      targetCompanyId: Type.Optional(Uuid('The company to copy into; default a new company.')),
      name: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'Name of the new company (without targetCompanyId); default "<source name> (copy)".',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const CopyCompanyAccepted = named(
  'CopyCompanyAccepted',
  Type.Object({
    jobId: Uuid('Poll GET /api/admin/copy-company/jobs/{jobId}.'),
    status: Type.Literal('queued'),
    targetCompanyId: Uuid('The company the copy goes into.'),
  }),
);

const CopyCompanyJob = named(
  'CopyCompanyJob',
  Type.Object({
    jobId: Uuid('The job.'),
    status: Type.Union(['queued', 'running', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
    sourceCompanyId: Uuid('The company copied.'),
    targetCompanyId: Uuid('The company copied into.'),
    copied: Type.Optional(
      Type.Record(Type.String(), Type.Integer(), {
        description: 'Records copied by kind (growers, farms, fields, boundaries, pathPlans, ...).',
      }),
    ),
    skipped: Type.Optional(
      Type.Record(Type.String(), Type.Integer(), {
        description: 'Equipment, operators and settings left out because the target already has their name.',
      }),
    ),
    errorCode: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    createdAt: Timestamp,
    finishedAt: Type.Union([Timestamp, Type.Null()]),
  }),
);

const DecompositionTestResponse = named(
  'FieldDecompositionTestResponse',
  Type.Object({
    ...AutomaticResponse.properties,
    cellCount: Type.Integer({ description: "Zones of role 'cell'." }),
    timing: Type.Object({
      prepareMs: Type.Number({ description: 'Reading and repairing the boundary [ms].' }),
      decomposeMs: Type.Number({ description: 'The decomposition [ms].' }),
      totalMs: Type.Number(),
    }),
  }),
);

/** 403 unless the caller is a platform admin. */
async function requirePlatformAdmin(store: Store, req: FastifyRequest): Promise<string> {
  const userId = principalOf(req).userId;
  if (!(await store.platformAdmins.isAdmin(userId))) {
    throw new ApiError(403, 'NotAuthorized', 'Only a platform admin may use the admin endpoints.');
  }
  return userId;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export async function adminRoutes(
  app: FastifyInstance,
  opts: { store: Store; jobs: JobSystem },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;

  r.post(
    '/api/admin/admin-user',
    {
      schema: {
        tags: TAGS,
        summary: 'Grant or revoke the platform admin role',
        description: 'The last platform admin cannot be revoked (409 LAST_PLATFORM_ADMIN).',
        body: AdminUserRequest,
        response: answers(
          { 200: { schema: AdminUserResponse, description: 'The user and their role now.' } },
          400,
          403,
          404,
          409,
        ),
      },
    },
    async (req) => {
      const me = await requirePlatformAdmin(store, req);
      const { userId, email, admin } = req.body;
      if ((userId === undefined) === (email === undefined)) {
        throw validationError([
          { path: '/body', message: 'must name the user by exactly one of userId and email' },
        ]);
      }
      const user = userId
        ? await store.accounts.findUserById(userId)
        : await store.accounts.findUserByEmail(email!);
      if (!user) throw new ApiError(404, 'NOT_FOUND', `No user ${userId ?? email}.`);
      await store.transaction(async (tx) => {
        if (admin) return tx.platformAdmins.grant(user.id, me);
        if ((await tx.platformAdmins.isAdmin(user.id)) && (await tx.platformAdmins.count()) <= 1) {
          throw new ApiError(
            409,
            'LAST_PLATFORM_ADMIN',
            'The last platform admin cannot be revoked; grant another first.',
          );
        }
        await tx.platformAdmins.revoke(user.id);
      });
      return { userId: user.id, email: user.email ?? null, platformAdmin: admin };
    },
  );

  r.post(
    '/api/admin/copy-company',
    {
      schema: {
        tags: TAGS,
        summary: 'Copy a company deeply, as a job',
        description:
          'Copies growers, farms, fields, boundaries (with their origins), plan groups and plans, equipment, operators and company settings under new ids into the target company, or into a new company the caller administers. Answers 202; poll GET /api/admin/copy-company/jobs/{jobId}.',
        body: CopyCompanyRequest,
        response: answers(
          { 202: { schema: CopyCompanyAccepted, description: 'The copy is queued.' } },
          400,
          403,
          404,
        ),
      },
    },
    async (req, reply) => {
      const me = await requirePlatformAdmin(store, req);
      const { sourceCompanyId, targetCompanyId, name } = req.body;
      const source = await store.accounts.findCompanyById(sourceCompanyId);
      if (!source) throw new ApiError(404, 'NOT_FOUND', `No company ${sourceCompanyId}.`);
      if (targetCompanyId !== undefined && name !== undefined) {
        throw validationError([
          { path: '/body/name', message: 'names a new company; leave it out with targetCompanyId' },
        ]);
      }
      if (targetCompanyId === sourceCompanyId) {
        throw validationError([
          { path: '/body/targetCompanyId', message: 'must differ from sourceCompanyId' },
        ]);
      }
      let target = targetCompanyId;
      if (target !== undefined) {
        if (!(await store.accounts.findCompanyById(target)))
          throw new ApiError(404, 'NOT_FOUND', `No company ${target}.`);
      } else {
        target = await store.transaction(async (tx) => {
          const c = await tx.accounts.createCompany(name ?? `${source.name} (copy)`.slice(0, 200));
          await tx.accounts.grantAccess(me, c.id, 'admin');
          return c.id;
        });
      }
      const { jobId } = await opts.jobs.enqueueTask({
        companyId: target,
        userId: me,
        kind: 'copy-company',
        request: { sourceCompanyId, targetCompanyId: target },
      });
      reply.code(202).header('location', `/api/admin/copy-company/jobs/${jobId}`);
      return { jobId, status: 'queued' as const, targetCompanyId: target };
    },
  );

  r.get(
    '/api/admin/copy-company/jobs/:jobId',
    {
      schema: {
        tags: TAGS,
        summary: 'A company copy job',
        params: idParams('jobId'),
        response: answers({ 200: { schema: CopyCompanyJob, description: 'The job.' } }, 400, 403, 404),
      },
    },
    async (req, reply) => {
      await requirePlatformAdmin(store, req);
      const job = await createJobsRepository(store.db).byId(req.params.jobId);
      if (!job || job.kind !== 'copy-company')
        throw new ApiError(404, 'NOT_FOUND', `No company copy job ${req.params.jobId}.`);
      const request = job.request as { sourceCompanyId: string; targetCompanyId: string };
      const result = (job.result ?? {}) as Record<string, unknown>;
      if (job.status === 'queued' || job.status === 'running') reply.header('retry-after', '5');
      return {
        jobId: job.id,
        status: job.status,
        sourceCompanyId: request.sourceCompanyId,
        targetCompanyId: request.targetCompanyId,
        ...(result.copied ? { copied: result.copied as Record<string, number> } : {}),
        ...(result.skipped ? { skipped: result.skipped as Record<string, number> } : {}),
        ...(typeof result.errorCode === 'string'
          ? { errorCode: result.errorCode, message: String(result.message) }
          : {}),
        createdAt: iso(job.createdAt),
        finishedAt: job.finishedAt ? iso(job.finishedAt) : null,
      };
    },
  );

  r.post(
    '/api/admin/test-field-decomposition',
    {
      schema: {
        tags: TAGS,
        summary: 'Decompose a boundary and time it',
        description:
          'The automatic decomposition (as POST /api/geometry-operations/automatic-decomposition) with the number of cells and how long preparing the field and decomposing it took.',
        body: named('FieldDecompositionTestRequest', { ...AutomaticRequest }),
        response: answers(
          { 200: { schema: DecompositionTestResponse, description: 'Zones and timing.' } },
          400,
          403,
          413,
          422,
        ),
      },
    },
    async (req) => {
      await requirePlatformAdmin(store, req);
      const t0 = performance.now();
      const { field, frame, opts: o } = prepareDecomposition(req.body);
      const t1 = performance.now();
      const res = automaticZones(field, o);
      const t2 = performance.now();
      return {
        ...automaticAnswer(frame, res),
        cellCount: res.zones.filter((z) => z.role === 'cell').length,
        timing: { prepareMs: round(t1 - t0), decomposeMs: round(t2 - t1), totalMs: round(t2 - t0) },
      };
    },
  );
}
