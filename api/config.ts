/**
 * Server settings from the environment. Every one has a default, so
 * `npm start` needs no set-up.
 *
 *   PORT                         8080
 *   HOST                         0.0.0.0
 *   TRAMLINE_DATA_DIR            ./data (the embedded PGlite database lives in <dir>/pglite)
 *   TRAMLINE_DEM_DIR             <data dir>/dem (GeoTIFF elevation models for includeSlopes, indexed by extent)
 *   DATABASE_URL                 unset; set it to use PostgreSQL (required for several server processes)
 *   DATABASE_POOL_SIZE           10 (PostgreSQL connections per process)
 *   TRAMLINE_BOOTSTRAP_API_KEY   unset; registers this key for an admin with unlimited credits
 *   TRAMLINE_BOOTSTRAP_EMAIL     admin@localhost (the bootstrap admin's e-mail)
 *   TRAMLINE_RATE_LIMIT_PER_MIN  600 (requests per minute per API key)
 *   TRAMLINE_PLAN_THREADS        available CPUs (planning worker threads)
 *   TRAMLINE_PLAN_QUEUE          8 x threads, at least 8 (plans that may wait for a thread; more get 503)
 *   TRAMLINE_PLAN_HEAP_MB        64 (heap of each planning thread: the most one plan may hold; more is 422)
 *   TRAMLINE_KEY_CACHE_SECONDS   5 (how long this process trusts a looked-up API key; revoking through
 *                                this process applies at once, through another process within this time)
 *   TRAMLINE_CACHE_DIR           node_modules/.cache/tramline (template of new embedded databases, store/pglite-cluster.ts)
 *   TRAMLINE_TRUST_PROXY         unset; 'true', a hop count or an address list (Fastify trustProxy)
 *   TRAMLINE_OPEN_REGISTRATION   on; 'false' or '0': POST /api/account/register answers 403
 *   TRAMLINE_FILES_PER_COMPANY   500 (user files a company may keep)
 *   TRAMLINE_FILE_STORAGE_PER_COMPANY_MB  1024 (bytes of user files a company may keep, in MB)
 *   TRAMLINE_ARCHIVE_MAX_ENTRIES 1000 (entries of an uploaded zip)
 *   TRAMLINE_ARCHIVE_MAX_ENTRY_MB  64 (what one entry of an uploaded zip may unpack to)
 *   TRAMLINE_ARCHIVE_MAX_TOTAL_MB  128 (what an uploaded zip may unpack to in all)
 *   TRAMLINE_ARCHIVE_MAX_RATIO   200 (unpacked per packed bytes of an entry over 1 MB)
 *   TRAMLINE_BOUNDARY_SOURCES    unset; a directory of fiboa GeoParquet and GeoJSON files of public field
 *                                boundaries, one provider per file (GET /api/external-boundaries/*)
 *   TRAMLINE_GEOCODER_URL        unset; an external geocoder answering GeoJSON for the location search
 *                                (`{q}` and `{limit}` in it are filled in; without `{q}`, q= is added)
 *   LOG_LEVEL                    info (pino)
 * Read where they are used (checked when the app is built):
 *   TRAMLINE_SMTP_URL, TRAMLINE_MAIL_FROM          outgoing mail (api/mail/mailer.ts); unset: the outbox table
 *   TRAMLINE_OIDC_DISCOVERY_URL, _CLIENT_ID, _CLIENT_SECRET, _PROVIDER_NAME
 *                                external sign-in (api/account/external-idp.ts); unset: none
 */
import { join } from 'node:path';
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS } from '../formats/file-limits.ts';

/** What a company may keep as user files. */
export interface FileQuota {
  maxFiles: number;
  maxBytes: number;
}

export const DEFAULT_FILE_QUOTA: FileQuota = { maxFiles: 500, maxBytes: 1024 * 1024 * 1024 };

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** GeoTIFF DEM files for includeSlopes. */
  demDir: string;
  databaseUrl?: string;
  databasePoolSize: number;
  bootstrapApiKey?: string;
  bootstrapEmail: string;
  rateLimitPerMin: number;
  planThreads?: number;
  planQueue?: number;
  planHeapMb?: number;
  keyCacheSeconds: number;
  trustProxy: boolean | number | string;
  logLevel: string;
  /** Whether anyone may register an account (POST /api/account/register). */
  openRegistration: boolean;
  fileQuota: FileQuota;
  archiveLimits: ArchiveLimits;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const int = (name: string, def: number | undefined, min: number, max: number): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; found "${v}".`);
    }
    return n;
  };
  const bootstrapApiKey = env.TRAMLINE_BOOTSTRAP_API_KEY || undefined;
  if (bootstrapApiKey !== undefined && !/^[\x21-\x7e]{24,256}$/.test(bootstrapApiKey)) {
    throw new ConfigError(
      'TRAMLINE_BOOTSTRAP_API_KEY must be 24 to 256 printable characters without spaces (e.g. the output of `openssl rand -base64 32`).',
    );
  }
  const tp = env.TRAMLINE_TRUST_PROXY;
  const reg = (env.TRAMLINE_OPEN_REGISTRATION ?? '').trim().toLowerCase();
  if (!['', 'true', '1', 'on', 'yes', 'false', '0', 'off', 'no'].includes(reg)) {
    throw new ConfigError(
      `TRAMLINE_OPEN_REGISTRATION must be true or false (1/0, on/off, yes/no); found "${env.TRAMLINE_OPEN_REGISTRATION}".`,
    );
  }
  const MB = 1024 * 1024;
  const d = DEFAULT_ARCHIVE_LIMITS;
  const dataDir = env.TRAMLINE_DATA_DIR || './data';
  return {
    port: int('PORT', 8080, 0, 65535)!,
    host: env.HOST || '0.0.0.0',
    dataDir,
    demDir: env.TRAMLINE_DEM_DIR || join(dataDir, 'dem'),
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: int('DATABASE_POOL_SIZE', 10, 1, 1000)!,
    bootstrapApiKey,
    bootstrapEmail: env.TRAMLINE_BOOTSTRAP_EMAIL || 'admin@localhost',
    rateLimitPerMin: int('TRAMLINE_RATE_LIMIT_PER_MIN', 600, 1, 10_000_000)!,
    planThreads: int('TRAMLINE_PLAN_THREADS', undefined, 1, 1024),
    planQueue: int('TRAMLINE_PLAN_QUEUE', undefined, 0, 100_000),
    planHeapMb: int('TRAMLINE_PLAN_HEAP_MB', undefined, 16, 65_536),
    keyCacheSeconds: int('TRAMLINE_KEY_CACHE_SECONDS', 5, 0, 3600)!,
    trustProxy:
      tp === undefined || tp === '' || tp === 'false'
        ? false
        : tp === 'true'
          ? true
          : /^\d+$/.test(tp)
            ? Number(tp)
            : tp,
    logLevel: env.LOG_LEVEL || 'info',
    openRegistration: !['false', '0', 'off', 'no'].includes(reg),
    fileQuota: {
      maxFiles: int('TRAMLINE_FILES_PER_COMPANY', DEFAULT_FILE_QUOTA.maxFiles, 0, 10_000_000)!,
      maxBytes:
        int('TRAMLINE_FILE_STORAGE_PER_COMPANY_MB', DEFAULT_FILE_QUOTA.maxBytes / MB, 0, 100_000_000)! * MB,
    },
    archiveLimits: {
      maxEntries: int('TRAMLINE_ARCHIVE_MAX_ENTRIES', d.maxEntries, 1, 1_000_000)!,
      maxEntryBytes: int('TRAMLINE_ARCHIVE_MAX_ENTRY_MB', d.maxEntryBytes / MB, 1, 4096)! * MB,
      maxTotalBytes: int('TRAMLINE_ARCHIVE_MAX_TOTAL_MB', d.maxTotalBytes / MB, 1, 4096)! * MB,
      maxRatio: int('TRAMLINE_ARCHIVE_MAX_RATIO', d.maxRatio, 2, 100_000)!,
    },
  };
}
