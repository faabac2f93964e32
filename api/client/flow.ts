/**
 * A client of the published interface, written only against the types
 * generated from the OpenAPI document (`schema.ts`, `npm run openapi`)
 * with openapi-fetch: plan a field directly, keep it under a grower, farm
 * and field, plan the stored boundary as a job too, and export the plans.
 * `api/openapi/client.test.ts` type-checks it against freshly generated
 * types and drives it against a listening server.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.ts';

export type Schemas = components['schemas'];
export type TramlineClient = Client<paths>;

export function tramlineClient(baseUrl: string, apiKey: string): TramlineClient {
  return createClient<paths>({ baseUrl, headers: { 'X-API-KEY': apiKey } });
}

/** The data of an answer, or an error naming the call and quoting the error body. */
function must<T>(what: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) {
    throw new Error(`${what}: HTTP ${r.response.status} ${JSON.stringify(r.error ?? null)}`);
  }
  return r.data;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a job until it is no longer queued or running (every `pollMs`; the server asks for 5 s). */
async function finished(
  read: () => Promise<{ data?: Schemas['JobStatus']; error?: unknown; response: Response }>,
  pollMs: number,
  timeoutMs: number,
): Promise<Schemas['JobStatus']> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = must('job status', await read());
    if (job.status !== 'queued' && job.status !== 'running') return job;
    if (Date.now() > until) throw new Error(`job ${job.jobId} still ${job.status} after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

export interface FlowInput {
  /** The field: rings of [lon, lat] (WGS84), exterior first. */
  rings: number[][][];
  equipment: Schemas['Equipment'];
  exteriorHeadlandPasses: number;
  format: Schemas['PathPlanExportRequest']['format'];
  pollMs?: number;
  timeoutMs?: number;
}

export interface FlowResult {
  plan: Schemas['PathPlanNormalizedModel'];
  growerId: string;
  farmId: string;
  fieldId: string;
  boundaryId: string;
  stored: Schemas['PathPlanListItem'];
  storedModel: Schemas['StoredPathPlanNormalizedModel'];
  guidanceJob: Schemas['JobStatus'];
  exportJob: Schemas['JobStatus'];
  zip: Uint8Array;
}

export async function planStoreExport(client: TramlineClient, input: FlowInput): Promise<FlowResult> {
  const pollMs = input.pollMs ?? 5000;
  const timeoutMs = input.timeoutMs ?? 300_000;

  // 1. The direct interface: one request, one plan, nothing stored.
  const plan = must(
    'direct plan',
    await client.POST('/api/path-plans/direct', {
      body: {
        boundary: { type: 'Polygon', coordinates: input.rings },
        equipment: input.equipment,
        exteriorHeadlandPasses: input.exteriorHeadlandPasses,
      },
    }),
  );

  // 2. The platform: company > grower > farm > field (with its boundary).
  const companies = must('companies', await client.GET('/api/user/current/companies'));
  const companyId = companies[0]!.companyId;
  const grower = must(
    'grower',
    await client.POST('/api/companies/{companyId}/growers', {
      params: { path: { companyId } },
      body: { name: 'Hansen' },
    }),
  );
  const farm = must(
    'farm',
    await client.POST('/api/growers/{growerId}/farms', {
      params: { path: { growerId: grower.growerId } },
      body: { name: 'North' },
    }),
  );
  const saved = must(
    'field',
    await client.POST('/api/fields/save', {
      body: { farmId: farm.farmId, name: 'Big field', boundary: input.rings },
    }),
  );
  const fieldId = saved.field.fieldId;
  const boundaryId = saved.vBoundary.boundaryId;

  // 3. Keep the direct plan with the field, and read it back.
  const stored = must(
    'upsert',
    await client.POST('/api/path-plans/upsert', { body: { plan, fieldId, boundaryId } }),
  );
  const storedModel = must(
    'stored plan',
    await client.GET('/api/path-plans-normalized/{pathPlanId}', {
      params: { path: { pathPlanId: stored.pathPlanId } },
    }),
  );

  // 4. Plan the stored boundary as a job.
  const { equipment, exteriorHeadlandPasses } = input;
  const guidance = must(
    'guidance job',
    await client.POST('/api/guidance', {
      body: { boundaryId, request: { equipment, exteriorHeadlandPasses } },
    }),
  );
  const guidanceJob = await finished(
    () => client.GET('/api/guidance/jobs/{jobId}', { params: { path: { jobId: guidance.jobId } } }),
    pollMs,
    timeoutMs,
  );

  // 5. Export both plans, then download the zip.
  const exporting = must(
    'export job',
    await client.POST('/api/path-plans-export', {
      body: { pathPlanIds: [stored.pathPlanId, ...guidanceJob.pathPlanIds], format: input.format },
    }),
  );
  const exportJob = await finished(
    () => client.GET('/api/path-plans-export/jobs/{jobId}', { params: { path: { jobId: exporting.jobId } } }),
    pollMs,
    timeoutMs,
  );
  if (exportJob.status !== 'completed' || !exportJob.batchId) {
    throw new Error(`export ${exportJob.status}: ${JSON.stringify(exportJob.errors)}`);
  }
  const file = must(
    'export file',
    await client.GET('/api/path-plans-export/{batchId}/file', {
      params: { path: { batchId: exportJob.batchId } },
      parseAs: 'arrayBuffer',
    }),
  );
  return {
    plan,
    growerId: grower.growerId,
    farmId: farm.farmId,
    fieldId,
    boundaryId,
    stored,
    storedModel,
    guidanceJob,
    exportJob,
    zip: new Uint8Array(file),
  };
}
