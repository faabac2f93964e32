/**
 * Errors of the HTTP interface, defined once and mapped to status codes and
 * bodies in one place (the error handler in app.ts uses `toErrorReply`).
 * Nothing a client sends produces a 5xx; unexpected failures answer 500
 * without details (the log has them, under the same correlation id).
 */
import type { PlanningErrorCode } from '../core/types/index.ts';

export interface FieldError {
  /** JSON pointer into the request body, e.g. `/equipment/swathWidth`. */
  path: string;
  message: string;
}

/** An error with its HTTP answer. `body` members are added to `{ correlationId, errorCode, message }`. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly errorCode: string;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(
    statusCode: number,
    errorCode: string,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.errorCode = errorCode;
    this.extra = extra;
    this.headers = headers;
  }
}

export function validationError(
  errors: FieldError[],
  message?: string,
  errorCode = 'VALIDATION_ERROR',
): ApiError {
  const msg =
    message ??
    (errors.length === 1
      ? `Invalid request: ${errors[0].path || '(body)'} ${errors[0].message}.`
      : `Invalid request: ${errors.length} problems, first ${errors[0].path || '(body)'} ${errors[0].message}.`);
  return new ApiError(400, errorCode, msg, { errors });
}

/**
 * THE mapping of planner refusals to HTTP: input errors (the field itself is
 * unusable, or an option is out of range for it) are invalid requests, 400;
 * requests the planner understood but cannot plan are 422.
 */
export function planningErrorStatus(code: PlanningErrorCode | string): 400 | 422 {
  if (code.startsWith('FIELD_') || code === 'INVALID_OPTION') return 400;
  return 422; // HEADLAND_EXHAUSTS_FIELD, SWATH_WIDER_THAN_FIELD, OPTION_NOT_SUPPORTED, PLAN_TOO_COMPLEX, ...
}

/** A planner refusal as an ApiError. `pathPrefix` points the planner's paths into the body (e.g. `/boundary`). */
export function fromPlanningError(
  code: string,
  message: string,
  details: Record<string, unknown>,
  pathPrefix = '',
): ApiError {
  const status = planningErrorStatus(code);
  const extra: Record<string, unknown> = { details };
  if (status === 400) {
    const p = typeof details.path === 'string' ? details.path : '';
    const field = code.startsWith('FIELD_');
    extra.errors = [{ path: toPointer(p, field ? pathPrefix : ''), message }];
  }
  return new ApiError(status, code, message, extra);
}

/** `features[0].geometry.coordinates[0][3]` or `equipment.swathWidth` to a JSON pointer under `prefix`. */
export function toPointer(path: string, prefix = ''): string {
  if (!path) return prefix;
  if (path.startsWith('/')) return prefix + path;
  const parts = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((s) => s.length > 0);
  return prefix + parts.map((s) => `/${s.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** The 1.5.0 `options` string is gone: say what replaced it. */
export const REMOVED_OPTIONS_MESSAGE =
  "the 1.5.0 'options' string was removed in 2.0.0; use the booleans includeSlopes, extendTracks, useCrossHatches and usePassable instead (usePassable: true replaces the absence of 'excludePassable')";

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Ajv errors (from the route schemas) as `{ path, message }`, unknown properties named, at most 50. */
export function fromAjvErrors(errs: readonly AjvError[], root = '/body'): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errs) {
    let path = e.instancePath ?? '';
    if (path.startsWith(root)) path = path.slice(root.length);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
      const name = e.params.additionalProperty;
      path = `${path}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      message = path === '/options' ? REMOVED_OPTIONS_MESSAGE : `unknown property '${name}'`;
    } else if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') {
      path = `${path}/${e.params.missingProperty}`;
      message = 'is required';
    } else if (e.keyword === 'discriminator') {
      message = `must have a 'type' of ${typeof e.params?.tagValue === 'string' ? 'a supported value' : 'string'} (Polygon, MultiPolygon, Feature or FeatureCollection where a field is expected); ${message}`;
    }
    const k = `${path}\u0000${message}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ path, message });
    if (out.length >= 50) break;
  }
  // The removed `options` first: it explains the rest.
  out.sort((a, b) => Number(b.path === '/options') - Number(a.path === '/options'));
  return out;
}
