/**
 * One direct planning request, start to end:
 *   outline checks (400) -> options the planner cannot plan (422
 *   OPTION_NOT_SUPPORTED) -> vertex limit (413) -> size estimate (422
 *   PLAN_TOO_COMPLEX) -> pool saturated (503) -> take one credit (402) ->
 *   plan in the worker pool under a hard time cap -> on any failure give
 *   the credit back.
 * So a plan costs one credit exactly when it succeeds; taking the credit
 * before planning (and refunding) keeps concurrent requests from spending
 * more than the balance.
 */

import { DemError, type DemInfo } from '../../formats/dem-geotiff.ts';
import { createDemIndex, type DemIndex, geoJsonBBox } from '../../formats/dem-index.ts';
import type { Store } from '../../store/db.ts';
import type { KeyPrincipal } from '../../store/repositories/api-keys.ts';
import { uuidv7 } from '../../store/uuidv7.ts';
import { ApiError, fromPlanningError, validationError } from '../errors.ts';
import {
  type ComplexityLimits,
  DEFAULT_COMPLEXITY_LIMITS,
  estimateComplexity,
  measureBoundary,
  tooComplex,
} from './complexity.ts';
import type { PlanFormat } from './plan-task.ts';
import {
  PlanCancelledError,
  PlanOutOfMemoryError,
  type PlanPool,
  PlanTimeoutError,
  PoolBusyError,
} from './pool.ts';
import { readDirectRequest } from './read-request.ts';
import { type DirectPlanRequest, MAX_FIELD_VERTICES } from './schemas.ts';
import { describeUnsupported, unsupportedOptions } from './supported-options.ts';

/** Credits one plan costs. */
export const PLAN_CREDIT_COST = 1;

export interface PlanServiceOptions {
  store: Store;
  pool: PlanPool;
  /** Added to maxOptimizerTime for the hard cap [ms] (default 5000). */
  graceMs?: number;
  complexity?: ComplexityLimits;
  maxVertices?: number;
  /** Retry-After of a 503 [s] (default 2). */
  busyRetryAfterSeconds?: number;
  now?: () => Date;
  /** Directory of the DEM files for includeSlopes (TRAMLINE_DEM_DIR); indexed at start. */
  demDir?: string;
  /** The DEM index itself (default: of demDir); with neither, includeSlopes is answered 422 DEM_NOT_AVAILABLE. */
  dems?: DemIndex;
}

export interface PlanOutcome {
  /** The serialised plan (UTF-8 JSON). */
  body: string | Buffer;
  pathPlanId: string;
  /** Planning and serialising on the planning thread [ms]. */
  ms: number;
  /** From handing the task to the pool to its answer being back, less `ms` [ms]: waiting for a thread and moving the task and answer between threads. */
  poolMs: number;
}

export function createPlanService(opts: PlanServiceOptions) {
  const graceMs = opts.graceMs ?? 5000;
  const limits = opts.complexity ?? DEFAULT_COMPLEXITY_LIMITS;
  const maxVertices = opts.maxVertices ?? MAX_FIELD_VERTICES;
  const retryAfter = String(opts.busyRetryAfterSeconds ?? 2);
  const now = opts.now ?? (() => new Date());
  const busy = () =>
    new ApiError(
      503,
      'SERVICE_BUSY',
      `All planning workers are busy; retry after ${retryAfter} s.`,
      {},
      { 'retry-after': retryAfter },
    );

  const dems = opts.dems ?? (opts.demDir ? createDemIndex(opts.demDir) : undefined);
  // Indexed at start; a directory that cannot be read is found out again at the first lookup.
  dems?.refresh().catch(() => {});

  /** The DEM files covering the field (422 DEM_NOT_AVAILABLE when none does). */
  const findDems = async (boundary: unknown): Promise<{ demPaths: string[] }> => {
    const bbox = geoJsonBBox(boundary);
    let found: DemInfo[] = [];
    // Server paths stay out of the answer.
    let why = dems ? 'on this server' : '(this server has no DEM directory)';
    try {
      if (dems) found = await dems.find(bbox);
    } catch (e) {
      if (!(e instanceof DemError)) throw e;
      why = '(the DEM directory of this server cannot be read)';
    }
    if (!found.length) {
      throw new ApiError(
        422,
        'DEM_NOT_AVAILABLE',
        `No elevation model covers the field (extent ${bbox.map((v) => Math.round(v * 1e6) / 1e6).join(', ')} as minLon, minLat, maxLon, maxLat) ${why}. Plan without includeSlopes and trackDirection 'Contour', or add a GeoTIFF DEM covering the field.`,
        { details: { bbox } },
      );
    }
    return { demPaths: found.map((d) => d.path) };
  };

  // Requests between taking a credit and settling it; closing waits for them,
  // so a refund never meets a closed database.
  const inFlight = new Set<Promise<unknown>>();

  const service = {
    /** Waits until every started plan has settled its credit. */
    async drain(): Promise<void> {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },

    plan(
      body: DirectPlanRequest,
      principal: KeyPrincipal,
      format: PlanFormat,
      signal?: AbortSignal,
    ): Promise<PlanOutcome> {
      const p = service.planOnce(body, principal, format, signal);
      inFlight.add(p);
      const done = () => inFlight.delete(p);
      p.then(done, done);
      return p;
    },

    /** plan() without the bookkeeping of requests in flight. */
    async planOnce(
      body: DirectPlanRequest,
      principal: KeyPrincipal,
      format: PlanFormat,
      signal?: AbortSignal,
    ): Promise<PlanOutcome> {
      const read = readDirectRequest(body);
      if (!read.ok) throw validationError(read.errors);
      const req = read.request;

      const unsupported = unsupportedOptions(body, { slopes: true });
      if (unsupported.length) {
        throw new ApiError(422, 'OPTION_NOT_SUPPORTED', describeUnsupported(unsupported), {
          details: { options: unsupported },
        });
      }

      const measure = measureBoundary(req.boundary);
      if (measure.vertices > maxVertices) {
        throw new ApiError(
          413,
          'PAYLOAD_TOO_LARGE',
          `The field has ${measure.vertices} vertices; at most ${maxVertices} are accepted. Simplify the boundary.`,
          { details: { vertices: measure.vertices, maxVertices } },
        );
      }
      const complexity = estimateComplexity(measure, {
        swathWidth: req.plan.machine.swathWidth,
        exteriorHeadlandPasses: req.plan.exteriorHeadlandPasses ?? 0,
        interiorHeadlandPasses: req.plan.interiorHeadlandPasses ?? 0,
      });
      const why = tooComplex(complexity, limits);
      if (why) throw new ApiError(422, 'PLAN_TOO_COMPLEX', why, { details: { ...complexity, limits } });

      // Only a plan that asks for slopes or tracks along the contour looks for a DEM.
      let slopes: { demPaths: string[] } | undefined;
      let ground: { demPaths: string[] } | undefined;
      if (body.includeSlopes === true || body.trackDirection === 'Contour') {
        const found = await findDems(req.plan.boundary);
        if (body.includeSlopes === true) slopes = found;
        if (body.trackDirection === 'Contour') ground = found;
      }

      if (opts.pool.saturated()) throw busy();

      // A key of an unlimited account (known from the key lookup) costs no balance statement at all.
      const taken = principal.unlimitedCredits
        ? ({ ok: true, balance: { companyId: principal.companyId, credits: 0, unlimited: true } } as const)
        : await opts.store.credits.take(principal.companyId, PLAN_CREDIT_COST);
      if (!taken.ok) {
        throw new ApiError(
          402,
          'INSUFFICIENT_CREDITS',
          `A plan costs ${PLAN_CREDIT_COST} credit; the account has ${taken.available}.`,
          { creditsAvailable: taken.available, creditsRequired: PLAN_CREDIT_COST },
        );
      }
      let charged = false;
      try {
        const pathPlanId = uuidv7();
        const timeoutMs = req.maxOptimizerTime * 1000 + graceMs;
        let out: Awaited<ReturnType<PlanPool['run']>>;
        const sentAt = performance.now();
        try {
          out = await opts.pool.run(
            {
              request: req.plan,
              format,
              optimizerTimeMs: req.maxOptimizerTime * 1000,
              bodyAs: 'bytes',
              ...(slopes ? { slopes } : {}),
              ...(ground ? { ground } : {}),
              meta: {
                pathPlanId,
                pathPlanName: req.pathPlanName,
                createdAt: now().toISOString(),
                operationType: req.operationType,
              },
            },
            { timeoutMs, signal },
          );
        } catch (e) {
          if (e instanceof PoolBusyError) throw busy();
          if (e instanceof PlanTimeoutError) {
            throw new ApiError(
              422,
              'PLAN_TOO_COMPLEX',
              `Planning this field needs more than the time cap of ${req.maxOptimizerTime} s (routeOptions.maxOptimizerTime, at most 60). Raise the cap, use a wider swath or simplify the field.`,
              { details: { ...complexity, timeCapSeconds: req.maxOptimizerTime } },
            );
          }
          if (e instanceof PlanOutOfMemoryError) {
            throw new ApiError(
              422,
              'PLAN_TOO_COMPLEX',
              'Planning this field needs more memory than the service allows for one plan. Use a wider swath or simplify the field.',
              { details: { ...complexity } },
            );
          }
          if (e instanceof PlanCancelledError)
            throw new ApiError(499, 'CLIENT_CLOSED_REQUEST', 'The client went away.');
          throw e;
        }
        if (!out.ok && out.code === 'DEM_NOT_AVAILABLE')
          throw new ApiError(
            422,
            out.code,
            "The elevation model covering the field could not be read on this server. Plan without includeSlopes and trackDirection 'Contour', or retry later.",
            { details: { bbox: geoJsonBBox(req.plan.boundary) } },
          );
        if (!out.ok) throw fromPlanningError(out.code, out.message, out.details, req.boundaryPath);
        charged = true;
        // Asked as bytes (PlanTaskBytesOutput); a stand-in task may still answer a string.
        const raw = out.body as string | Uint8Array;
        const body = typeof raw === 'string' ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
        return { body, pathPlanId, ms: out.ms, poolMs: Math.max(0, performance.now() - sentAt - out.ms) };
      } finally {
        // Unlimited balances were not lowered: nothing to give back.
        if (!charged && !taken.balance.unlimited)
          await opts.store.credits.refund(principal.companyId, PLAN_CREDIT_COST);
      }
    },
  };
  return service;
}

export type PlanService = ReturnType<typeof createPlanService>;

/**
 * Gives an answer's memory back as soon as the response has been written
 * (`finish`: every byte handed to the operating system), instead of at the
 * request thread's next full collection: an answer outlives the young
 * generation's collections while it is sent under load, and up to some
 * 60 MB of sent answers then waited for a full collection (the request
 * thread's V8 triggers one only when that much outside memory has built
 * up). The body must own its whole ArrayBuffer (plan-task's answers do);
 * it reads as empty afterwards. A response that ends without `finish`
 * (the client went away) keeps its body for the collector, since a write
 * may still hold it.
 */
export function releaseWhenSent(res: { once(event: 'finish', fn: () => void): unknown }, body: Buffer): void {
  if (body.byteOffset !== 0 || body.byteLength !== body.buffer.byteLength) return;
  const buffer = body.buffer as ArrayBuffer;
  res.once('finish', () => {
    if (!buffer.detached) buffer.transfer(0);
  });
}
