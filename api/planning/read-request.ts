/** The direct request mapping lives in formats/ (shared with the job workers and the CLI). */
export {
  DEFAULT_MAX_OPTIMIZER_TIME_S,
  type DirectRequest,
  type FieldError,
  planningBoundary,
  type ReadResult,
  readDirectRequest,
} from '../../formats/direct-request.ts';
