/**
 * Company sync (spec 4.4 "Bulk guidance and jobs"; jobs/company-sync.ts):
 *   POST /api/external/companies/sync                     { companyId, vendor, organizationId } -> 202 job
 *   GET  /api/companies-sync/jobs/{jobId}                 created, updated, unchanged, conflicting and failed items
 *   POST /api/companies-sync/error-notification/{jobId}   report an error seen with an ended sync; kept on the job
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { VENDORS, type VendorSettingsMap } from '../../integrations/vendor-oauth.ts';
import type { JobSystem } from '../../jobs/runtime.ts';
import type { Store } from '../../store/db.ts';
import { createJobsRepository, type JobView } from '../../store/repositories/jobs.ts';
import { createVendorConnectionsRepository } from '../../store/repositories/vendor-connections.ts';
import { jobs as jobsTable } from '../../store/schema.ts';
import { deploymentTokenCipher } from '../../store/token-crypto.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, idParams, iso, notFound, principalOf, requireCompany, Timestamp, Uuid } from './common.ts';

const TAGS = ['Vendor integrations'];
const MAX_NOTIFICATIONS = 20;

const SyncRequest = named(
  'CompanySyncRequest',
  Type.Object(
    {
      companyId: Uuid('The company to pull into (its vendor link is used).'),
      vendor: Type.Union(
        VENDORS.map((v) => Type.Literal(v)),
        { description: 'The linked vendor.' },
      ),
      organizationId: Type.String({
        minLength: 1,
        maxLength: 200,
        description: "The vendor's organization id.",
      }),
    },
    { additionalProperties: false },
  ),
);

const SyncAccepted = named(
  'CompanySyncAccepted',
  Type.Object({ jobId: Uuid('Poll GET /api/companies-sync/jobs/{jobId}.'), status: Type.Literal('queued') }),
);

const Outcome = Type.Union([
  Type.Literal('created'),
  Type.Literal('updated'),
  Type.Literal('unchanged'),
  Type.Literal('conflicting'),
  Type.Literal('failed'),
]);

const Notification = Type.Object({
  errorCode: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  reportedBy: Type.String(),
  reportedAt: Timestamp,
});

const SyncJob = named(
  'CompanySyncJob',
  Type.Object({
    jobId: Uuid('The job.'),
    companyId: Uuid('The company.'),
    status: Type.Union([
      Type.Literal('queued'),
      Type.Literal('running'),
      Type.Literal('completed'),
      Type.Literal('failed'),
      Type.Literal('cancelled'),
    ]),
    vendor: Type.String(),
    organizationId: Type.String(),
    created: Type.Integer(),
    updated: Type.Integer(),
    unchanged: Type.Integer(),
    conflicting: Type.Integer({ description: 'Records changed here since the last sync, kept as they are.' }),
    failed: Type.Integer({ description: 'Fields whose boundary could not be read.' }),
    items: Type.Array(
      Type.Object({
        kind: Type.Union([Type.Literal('grower'), Type.Literal('farm'), Type.Literal('field')]),
        externalId: Type.String(),
        name: Type.String(),
        outcome: Outcome,
        localId: Type.Union([Type.String(), Type.Null()]),
        message: Type.Optional(Type.String()),
      }),
    ),
    errorCode: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    errorNotifications: Type.Array(Notification),
    createdAt: Timestamp,
    finishedAt: Type.Union([Timestamp, Type.Null()]),
  }),
);

const NotificationRequest = named(
  'CompanySyncErrorNotification',
  Type.Object(
    {
      message: Type.String({ minLength: 1, maxLength: 2000, description: 'What went wrong, in words.' }),
      errorCode: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    },
    { additionalProperties: false },
  ),
);

function syncBody(job: JobView): Static<typeof SyncJob> {
  const req = job.request as { vendor: string; organizationId: string };
  const r = (job.result ?? {}) as Record<string, unknown>;
  const n = (k: string) => (typeof r[k] === 'number' ? (r[k] as number) : 0);
  return {
    jobId: job.id,
    companyId: job.companyId,
    status: job.status,
    vendor: req.vendor,
    organizationId: req.organizationId,
    created: n('created'),
    updated: n('updated'),
    unchanged: n('unchanged'),
    conflicting: n('conflicting'),
    failed: n('failed'),
    items: Array.isArray(r.items) ? (r.items as Static<typeof SyncJob>['items']) : [],
    ...(typeof r.errorCode === 'string' ? { errorCode: r.errorCode, message: String(r.message) } : {}),
    errorNotifications: Array.isArray(r.errorNotifications)
      ? (r.errorNotifications as Static<typeof Notification>[])
      : [],
    createdAt: iso(job.createdAt),
    finishedAt: job.finishedAt ? iso(job.finishedAt) : null,
  };
}

export async function companySyncRoutes(
  app: FastifyInstance,
  opts: { store: Store; jobs: JobSystem; vendors: VendorSettingsMap },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const connections = createVendorConnectionsRepository(store.db, await deploymentTokenCipher(store.secrets));
  const jobsRepo = createJobsRepository(store.db);

  const syncJob = async (userId: string, jobId: string) => {
    const job = await jobsRepo.view(userId, jobId, ['company-sync']);
    if (!job) throw notFound('company sync job', jobId);
    return job;
  };

  r.post(
    '/api/external/companies/sync',
    {
      schema: {
        tags: TAGS,
        summary: "Pull a vendor organization's fields into a company, as a job",
        description:
          "Uses the company's linked account (POST /api/companies/{companyId}/vendor-connections/{vendor}/...). Growers, farms, fields and boundaries are matched on the vendor's ids: made once, updated when the vendor changed them, reported as conflicting when changed here since the last sync. Needs the company's admin role.",
        body: SyncRequest,
        response: answers({ 202: { schema: SyncAccepted, description: 'Queued.' } }, 400, 403, 404, 409, 422),
      },
    },
    async (req, reply) => {
      const { companyId, vendor, organizationId } = req.body;
      await requireCompany(store, req, companyId, 'admin');
      if (!opts.vendors[vendor]) {
        throw new ApiError(422, 'VENDOR_NOT_CONFIGURED', `${vendor} is not configured on this server.`);
      }
      const link = await connections.get(companyId, vendor);
      if (!link) {
        throw new ApiError(
          409,
          'VENDOR_NOT_CONNECTED',
          `Company ${companyId} has no ${vendor} account linked; link one first.`,
        );
      }
      if (link.organizations.length > 0 && !link.organizations.some((o) => o.id === organizationId)) {
        throw new ApiError(
          422,
          'ORGANIZATION_NOT_GRANTED',
          `The linked ${vendor} account did not grant organization ${organizationId.slice(0, 100)} (granted: ${link.organizations.map((o) => o.id).join(', ')}).`,
        );
      }
      const { jobId } = await opts.jobs.enqueueTask({
        companyId,
        userId: principalOf(req).userId,
        kind: 'company-sync',
        request: { vendor, organizationId },
      });
      reply.code(202).header('location', `/api/companies-sync/jobs/${jobId}`);
      return { jobId, status: 'queued' as const };
    },
  );

  r.get(
    '/api/companies-sync/jobs/:jobId',
    {
      schema: {
        tags: TAGS,
        summary: 'A company sync job',
        params: idParams('jobId'),
        response: answers({ 200: { schema: SyncJob, description: 'The job and what it did.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const job = await syncJob(principalOf(req).userId, req.params.jobId);
      if (job.status === 'queued' || job.status === 'running') reply.header('retry-after', '5');
      return syncBody(job);
    },
  );

  r.post(
    '/api/companies-sync/error-notification/:jobId',
    {
      schema: {
        tags: TAGS,
        summary: 'Report an error seen with a company sync',
        description: `Keeps the report on the ended job (the newest ${MAX_NOTIFICATIONS}), where its poll shows it under errorNotifications. 409 JOB_NOT_ENDED while the job runs.`,
        params: idParams('jobId'),
        body: NotificationRequest,
        response: answers(
          { 200: { schema: SyncJob, description: 'The job with the report.' } },
          400,
          404,
          409,
        ),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const job = await syncJob(userId, req.params.jobId);
      if (job.status === 'queued' || job.status === 'running') {
        throw new ApiError(
          409,
          'JOB_NOT_ENDED',
          `Company sync job ${job.id} is still ${job.status}; report once it has ended.`,
        );
      }
      const note = {
        errorCode: req.body.errorCode ?? null,
        message: req.body.message,
        reportedBy: userId,
        reportedAt: new Date().toISOString(),
      };
      const result = (job.result ?? {}) as Record<string, unknown>;
      const list = [
        ...(Array.isArray(result.errorNotifications) ? result.errorNotifications : []),
        note,
      ].slice(-MAX_NOTIFICATIONS);
      await store.db
        .update(jobsTable)
        .set({ result: { ...result, errorNotifications: list }, updatedAt: sql`now()` })
        .where(eq(jobsTable.id, job.id));
      return syncBody((await syncJob(userId, job.id))!);
    },
  );
}
