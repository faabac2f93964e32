/**
 * Blocking on a job: endpoints that run their work as a job (pg-boss) and
 * answer its result when it is done within a time-out, else 202 with the
 * job id to poll.
 */
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { createJobsRepository, JobView } from '../../store/repositories/jobs.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';

/** How often a blocked request looks at its job [ms]. */
const POLL_MS = 200;
/** Default and longest wait of a blocking request [s]. */
export const DEFAULT_WAIT_SECONDS = 30;
export const MAX_WAIT_SECONDS = 120;

export const WaitSeconds = Type.Integer({
  minimum: 0,
  maximum: MAX_WAIT_SECONDS,
  description: `How long to wait for the job [s] before answering 202 with its id (default ${DEFAULT_WAIT_SECONDS}; 0: answer 202 at once).`,
});

export const JobPending = named(
  'JobPending',
  Type.Object({
    jobId: Type.String({ format: 'uuid' }),
    status: Type.Union([Type.Literal('queued'), Type.Literal('running')]),
    pollUrl: Type.String({ description: 'Where to poll the job (also the Location header).' }),
  }),
);

const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** The job once it has ended, or null when `waitMs` passed first. */
export async function waitForJob(
  jobs: ReturnType<typeof createJobsRepository>,
  userId: string,
  jobId: string,
  waitMs: number,
): Promise<JobView | null> {
  const until = Date.now() + waitMs;
  for (;;) {
    const v = await jobs.view(userId, jobId);
    if (v && ENDED.has(v.status)) return v;
    if (Date.now() >= until) return null;
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, until - Date.now()))));
  }
}

/** 202 with the job to poll. */
export function sendPending(
  reply: FastifyReply,
  jobId: string,
  pollUrl: string,
  status: 'queued' | 'running',
) {
  reply.code(202).header('location', pollUrl).header('retry-after', '5');
  return { jobId, status, pollUrl };
}

/** The failure of an ended job as the error of the blocking request. */
export function jobFailure(v: JobView): ApiError {
  const e = v.errors[0];
  if (v.status === 'cancelled') return new ApiError(409, 'JOB_CANCELLED', `The job ${v.id} was cancelled.`);
  if (!e) return new ApiError(422, 'JOB_FAILED', `The job ${v.id} failed.`);
  const status = e.errorCode === 'NOT_FOUND' ? 404 : e.errorCode === 'PRECONDITION_FAILED' ? 412 : 422;
  return new ApiError(status, e.errorCode, e.message, { jobId: v.id });
}
