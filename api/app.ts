/**
 * The HTTP application (Fastify), built apart from listening (server.ts):
 * access control hooks, content types, OpenAPI, routes and the one error
 * handler. `buildApp` returns the app before `ready()`, so callers (tests)
 * may add routes.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import ajvFormats from 'ajv-formats';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { createDemIndex } from '../formats/dem-index.ts';
import { type BoundaryCatalog, loadBoundaryCatalog } from '../integrations/external-boundaries.ts';
import { createLocationSearch, type LocationSearch } from '../integrations/location-search.ts';
import { vendorSettingsFromEnv } from '../integrations/vendor-oauth.ts';
import { storeBoundaryLoader } from '../jobs/boundaries.ts';
import type { BoundaryLoader } from '../jobs/plan-item.ts';
import { createJobSystem, type JobSystem } from '../jobs/runtime.ts';
import { builtInTasks, type TaskOptions } from '../jobs/tasks.ts';
import type { Store } from '../store/db.ts';
import type { AccountContext } from './account/context.ts';
import { createExternalIdp, type ExternalIdpOptions, externalIdpFromEnv } from './account/external-idp.ts';
import { correlationIdOf, registerAccessControl } from './auth/access-control.ts';
import { registerCompanyRoles } from './auth/company-roles.ts';
import { PUBLIC_ROUTES } from './auth/public-routes.ts';
import { createTokenService } from './auth/tokens.ts';
import { ApiError, fromAjvErrors, validationError } from './errors.ts';
import { checkRequestInput } from './input-rules.ts';
import { lazyCompilersFactory } from './lazy-compilers.ts';
import { errorSerializer, REDACT_PATHS, redactUrl, requestSerializer, sqlStateOf } from './log-safety.ts';
import { contactMailer, createMailer, type MailOptions, mailOptionsFromEnv } from './mail/mailer.ts';
import { openApiRefResolver, shareNamedSchemas, shareResponseHeaders } from './openapi/components.ts';
import type { ComplexityLimits } from './planning/complexity.ts';
import { createPlanService } from './planning/plan-service.ts';
import { createPlanPool, type PlanPool, type PlanPoolOptions } from './planning/pool.ts';
import { BODY_LIMIT_BYTES } from './planning/schemas.ts';
import { markArrival } from './request-timing.ts';
import { accountRoutes } from './routes/account.ts';
import { accountEmailRoutes } from './routes/account-email.ts';
import { accountPageRoutes } from './routes/account-pages.ts';
import { accountProfileRoutes } from './routes/account-profile.ts';
import { adminRoutes } from './routes/admin.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { boundaryImportRoutes } from './routes/boundary-import.ts';
import { companyRoutes } from './routes/companies.ts';
import { companyAccessRoutes } from './routes/company-accesses.ts';
import { companyDashboardRoutes } from './routes/company-dashboards.ts';
import { companyEventRoutes } from './routes/company-events.ts';
import { companyListRoutes } from './routes/company-lists.ts';
import { companySyncRoutes } from './routes/company-sync.ts';
import { demoCompanyRoutes } from './routes/demo-company.ts';
import { descriptorRoutes } from './routes/descriptors.ts';
import { equipmentRoutes } from './routes/equipment.ts';
import { equipmentScenarioShareRoutes } from './routes/equipment-scenario-shares.ts';
import { equipmentScenarioRoutes } from './routes/equipment-scenarios.ts';
import { externalBoundaryRoutes } from './routes/external-boundaries.ts';
import { externalLoginRoutes } from './routes/external-login.ts';
import { fieldOperationRoutes } from './routes/field-operations.ts';
import { fieldRoutes } from './routes/fields.ts';
import { geometryDecompositionRoutes } from './routes/geometry-decomposition.ts';
import { geometryOperationRoutes } from './routes/geometry-operations.ts';
import { geometrySmoothingRoutes } from './routes/geometry-smoothing.ts';
import { growerFarmRoutes } from './routes/growers-farms.ts';
import { healthRoutes } from './routes/health.ts';
import { imageryRoutes } from './routes/imagery.ts';
import { importedLineRoutes } from './routes/imported-lines.ts';
import { jobRoutes } from './routes/jobs.ts';
import { locationSearchRoutes } from './routes/location-search.ts';
import { lookupRoutes } from './routes/lookups.ts';
import { mapTileRoutes } from './routes/map-tiles.ts';
import { notificationRoutes } from './routes/notifications.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { partnerRoutes } from './routes/partner.ts';
import { pathPlanRoutes } from './routes/path-plans.ts';
import { planSummaryRoutes } from './routes/plan-summaries.ts';
import { referenceLineRoutes } from './routes/reference-lines.ts';
import { routeReadRoutes } from './routes/route-reads.ts';
import { routingRoutes } from './routes/routing.ts';
import { sessionTokenRoutes } from './routes/session-tokens.ts';
import { settingRoutes } from './routes/settings.ts';
import { shareRoutes } from './routes/shares.ts';
import { storedPlanRoutes } from './routes/stored-plans.ts';
import { terrainRoutes } from './routes/terrain.ts';
import { userRoutes } from './routes/user.ts';
import { type ContactMailer, userActivityRoutes } from './routes/user-activity.ts';
import { userDirectoryRoutes } from './routes/user-directory.ts';
import { type UploadOptions, uploadSettings, userFileRoutes } from './routes/user-files.ts';
import { userLabelRoutes } from './routes/user-labels.ts';
import { vendorConnectionRoutes } from './routes/vendor-connections.ts';
import { type WebOptions, webOptionsFromEnv, webRoutes } from './routes/web.ts';
import { wheelTrafficRoutes } from './routes/wheel-traffic.ts';

export const API_VERSION = '2.0.0';

export interface AppOptions {
  store: Store;
  /** A ready pool; when absent the app makes one (from `poolOptions`) and closes it on close. */
  pool?: PlanPool;
  poolOptions?: PlanPoolOptions;
  /**
   * Compile every route's validator and serializer while the server gets
   * ready (Fastify's own way), not on each route's first request (default):
   * a schema that does not compile then stops the start.
   */
  eagerSchemas?: boolean;
  /** Requests per minute per API key (default 600). */
  rateLimitPerMin?: number;
  /** Calls per minute and user to POST /api/analytics-events (default 60). */
  analyticsPerMin?: number;
  /** Rate limit window [s] (default 60). */
  rateLimitWindowSeconds?: number;
  /** Fastify logger option (default: pino at LOG_LEVEL or info; false = none). */
  logger?: FastifyServerOptions['logger'];
  /** Trust X-Forwarded-* from proxies (Fastify trustProxy). */
  trustProxy?: FastifyServerOptions['trustProxy'];
  bodyLimit?: number;
  planning?: {
    graceMs?: number;
    complexity?: ComplexityLimits;
    maxVertices?: number;
    busyRetryAfterSeconds?: number;
    /** DEM files for includeSlopes (TRAMLINE_DEM_DIR); unset: includeSlopes is answered 422 DEM_NOT_AVAILABLE. */
    demDir?: string;
  };
  /** Lifetime of partner launch codes [s] (default 600, spec 4.3). */
  launchCodeTtlSeconds?: number;
  /** Signing key of session tokens (default: TRAMLINE_JWT_SECRET, else a key kept in the database). */
  jwtSecret?: string;
  /** The planning view: basemap and the origins allowed to embed it (default: from the environment, see api/routes/web.ts). */
  web?: WebOptions;
  /** The job system (default: one made on the store, stopped on close). */
  jobs?: JobSystem;
  /** Run job workers in this process (default true; TRAMLINE_JOB_WORKERS=0 leaves the work to `tramline worker` processes). */
  jobWorkers?: boolean;
  /** PostgreSQL URL for the job system (default: the URL the store was opened with). */
  databaseUrl?: string;
  /** Where planning jobs read boundaries (default: the store's field hierarchy). */
  loadBoundary?: BoundaryLoader;
  /** Purge old rate-limit windows every this many ms (default 60000; 0 = never). */
  purgeIntervalMs?: number;
  /** The health check asks the database at most once per this many ms (default 1000). */
  healthDatabaseCheckMs?: number;
  /** Whether POST /api/account/register is open (default true; TRAMLINE_OPEN_REGISTRATION). */
  openRegistration?: boolean;
  /** Quotas and archive limits of user files (default: api/routes/user-files.ts). */
  uploads?: UploadOptions;
  /**
   * Public field boundaries: a ready catalog, or the directory of provider files
   * read at start (default: TRAMLINE_BOUNDARY_SOURCES; unset: no providers).
   */
  boundarySources?: BoundaryCatalog | string;
  /** Vendor links and portal transmissions (default: vendor settings from the environment, integrations/vendor-oauth.ts). */
  vendors?: TaskOptions;
  /** Location search (default: the embedded provider, and the geocoder of TRAMLINE_GEOCODER_URL when set). */
  locationSearch?: LocationSearch;
  /** Outgoing mail (default: TRAMLINE_SMTP_URL and TRAMLINE_MAIL_FROM; without an SMTP URL mail is kept in the outbox). */
  mail?: MailOptions;
  /** External OpenID Connect provider for sign-in (default: TRAMLINE_OIDC_*; none when unset; null: none). */
  externalIdp?: ExternalIdpOptions | null;
  /** Outgoing mail of POST /api/contact (default: mail to TRAMLINE_CONTACT_EMAIL through the mailer; unset: messages stay queued in the database and are logged). */
  contactMail?: ContactMailer;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const rateLimit = opts.rateLimitPerMin ?? 600;
  const windowSeconds = opts.rateLimitWindowSeconds ?? 60;
  const app = Fastify({
    logger: safeLogger(opts.logger),
    genReqId: (req) => {
      markArrival(req);
      return correlationIdOf(req);
    },
    requestIdHeader: false,
    bodyLimit: opts.bodyLimit ?? BODY_LIMIT_BYTES,
    trustProxy: opts.trustProxy ?? false,
    return503OnClosing: true,
    // Errors Fastify answers before routing (a URL that does not decode): the same answer as any other.
    frameworkErrors: (err, req, reply) => sendError(err, req, reply),
    ajv: {
      customOptions: {
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allErrors: true,
        strictNumbers: true,
        discriminator: true,
      },
      plugins: [ajvFormats as never],
    },
    // Each route's validator and serializer are compiled on its first request, not at start-up.
    ...(opts.eagerSchemas ? {} : { schemaController: { compilersFactory: lazyCompilersFactory() as never } }),
  });

  const ownPool = !opts.pool;
  const pool = opts.pool ?? createPlanPool(opts.poolOptions);
  // One index of the DEM directory for planning and the terrain routes.
  const dems = opts.planning?.demDir ? createDemIndex(opts.planning.demDir) : undefined;
  const planService = createPlanService({ store: opts.store, pool, ...opts.planning, dems });
  const ownJobs = !opts.jobs;
  const jobs =
    opts.jobs ??
    (await createJobSystem({
      store: opts.store,
      databaseUrl: opts.databaseUrl,
      loadBoundary: opts.loadBoundary ?? storeBoundaryLoader(opts.store),
      tasks: builtInTasks(opts.vendors),
    }));
  if (ownJobs && (opts.jobWorkers ?? process.env.TRAMLINE_JOB_WORKERS !== '0')) {
    await jobs.startWorkers({ threads: pool.threads, graceMs: opts.planning?.graceMs });
  }

  const tokens = await createTokenService(
    opts.store,
    opts.jwtSecret ?? (process.env.TRAMLINE_JWT_SECRET || undefined),
  );

  // Access control first: correlation id, API key or session, rate limit; before any body parsing.
  registerAccessControl(app, opts.store, { limit: rateLimit, windowSeconds }, tokens);
  // No answer is to be sniffed into another type (JSON read as HTML or script).
  app.addHook('onSend', async (_req, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });

  // JSON only (also as application/geo+json); anything else is 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    'application/geo+json',
    { parseAs: 'string', bodyLimit: opts.bodyLimit ?? BODY_LIMIT_BYTES },
    app.getDefaultJsonParser('error', 'error'),
  );

  // THE input rule (api/input-rules.ts) over body, query and path parameters, before schemas and handlers.
  app.addHook('preValidation', async (req) => {
    if (/^multipart\//i.test(String(req.headers['content-type'] ?? ''))) return;
    checkRequestInput({ body: req.body, query: req.query, params: req.params });
  });
  // THE company role check of every route (api/auth/company-roles.ts), then the audit log of writes.
  registerCompanyRoles(app, opts.store);

  app.setErrorHandler(sendError);

  app.setNotFoundHandler((req, reply) => {
    return reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send(
        JSON.stringify({
          correlationId: req.id,
          errorCode: 'NOT_FOUND',
          message: `No endpoint ${req.method} ${req.url.split('?', 1)[0]}.`,
        }),
      );
  });

  await app.register(swagger, {
    refResolver: openApiRefResolver,
    transformObject: shareResponseHeaders,
    openapi: {
      openapi: '3.1.0',
      servers: [{ url: '/', description: 'This server.' }],
      info: {
        title: 'Tramline route planning service',
        version: API_VERSION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description: OPENAPI_DESCRIPTION,
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'A session access token from /api/account/login, /api/account/register, /api/account/refresh or /api/partner/launch/exchange; accepted wherever X-API-KEY is. When both are sent, X-API-KEY decides.',
          },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
      tags: [
        {
          name: 'Direct planning',
          description: 'Stateless planning: one request, one plan, nothing stored.',
        },
        {
          name: 'Users',
          description:
            'The user and company access of an API key or session; terms, process logs and contact; the users a company admin administers (their companies’ users), and deleting a user (anonymised; company data stays).',
        },
        { name: 'Account', description: 'Registration, sign-in and sessions.' },
        { name: 'API keys', description: 'Keys of the current user.' },
        { name: 'Companies', description: 'Companies and what they hold.' },
        {
          name: 'Company access',
          description:
            'Who may act in a company and as what. admin: everything, including access management and deleting the company; editor: reads and writes its data; viewer: reads only. Enforced on every route: a write by a viewer, or access management by an editor, is 403 NotAuthorized; without access, the company and everything in it is 404.',
        },
        {
          name: 'Growers and farms',
          description:
            'Company > Grower > Farm > Field > Boundary. Every id is reached only through a company the caller can access (404 otherwise); stored records carry an ETag, and updates and deletes honour If-Match (412 when stale).',
        },
        {
          name: 'Fields and boundaries',
          description:
            'Fields and their boundaries (WGS84 rings, exterior first; a field keeps several, one active), readable as GeoJSON, WKT and KML.',
        },
        {
          name: 'Partner',
          description:
            'Hand-over from a partner application: users, companies and access by the partner’s own ids, and launch codes. Partner Admin credentials only (403 NotAuthorized otherwise), except the exchange.',
        },
        {
          name: 'Path plans',
          description:
            'Stored plans in the v2.0.0 normalized model: read, preview, lists per field and boundary, upsert, archive, star, rate, delete, and the set-active switch of a zone’s geometry group.',
        },
        { name: 'Path plan groups', description: 'Named sets of plans of a company, with a summary.' },
        {
          name: 'Routes',
          description:
            'Routes of stored plans: embedded in their geometry groups (route parts); a route id is its geometry group id.',
        },
        {
          name: 'Jobs',
          description:
            'Long work as jobs: bulk guidance, guidance over a stored boundary, plan exports. Posting answers 202 { jobId, status } at once; poll the job every 5 s (Retry-After: 5 while it runs); POST /api/job/{jobId}/cancel cancels.',
        },
        {
          name: 'Equipment scenarios',
          description:
            'The same stored fields planned with several machines, compared by cost per hectare, hours, fuel, emissions and trafficked area; costs recomputed from new cost inputs without planning again.',
        },
        {
          name: 'Shares',
          description:
            'A plan shared by code: anonymous read of exactly that plan until it expires or is revoked.',
        },
        {
          name: 'Equipment and operators',
          description:
            'Machines (working width, track and tire widths, turning radius, speeds, tank, fuel use) and operators of a company; names distinct per company.',
        },
        {
          name: 'User files',
          description:
            'Files uploaded to a company (up to 20 MB; kind told from the content), kept in the database; boundary files import into fields.',
        },
        {
          name: 'Settings',
          description:
            'Named settings of a company or of the caller; known names (units, language, timeZone, planning defaults) have typed values, others any JSON up to 16 KB.',
        },
        {
          name: 'Geometry operations',
          description:
            'Stateless conversions between WKT and GeoJSON and from WGS84 to UTM; nothing is stored.',
        },
        {
          name: 'Reference lines',
          description:
            'Candidate lines to lay tracks along (best bearing, straight edges, contours of the boundary), computed from a boundary; nothing is stored.',
        },
        {
          name: 'Lookups',
          description:
            'Countries (ISO 3166-1) and currencies (ISO 4217) from maintained data packages (cacheable), and the user labels of a company.',
        },
        {
          name: 'External boundaries',
          description:
            'Public field boundaries from providers (fiboa GeoParquet and GeoJSON files of TRAMLINE_BOUNDARY_SOURCES) by bounding box, with licence and attribution; a field can be made from one.',
        },
        {
          name: 'Vendor integrations',
          description:
            "Links of a company to vendor accounts (OAuth 2.0 with PKCE; tokens encrypted at rest, refreshed before they expire, never answered), the vendor's organizations, and transmission of exports to the linked portal as jobs.",
        },
        {
          name: 'Admin',
          description:
            'Platform administration (platform admins only): the admin role, deep copies of companies, decomposition tests.',
        },
        {
          name: 'Location search',
          description:
            "Places for a text, as GeoJSON points: the company's growers, farms and fields, cities and towns of a bundled gazetteer, and an external geocoder when TRAMLINE_GEOCODER_URL is set.",
        },
        {
          name: 'Field operations',
          description:
            'Work done on a field as logged by the machine: positions in batches, coverage (covered, overlap, missed area) against the boundary and deviation from the plan per track, lists, a table and exports.',
        },
        {
          name: 'Descriptors',
          description:
            'Named, typed values a company attaches to its growers, farms, fields, plans and machines (crop, variety, soil type, ...), and which objects lack required ones.',
        },
        {
          name: 'Notifications',
          description:
            'What a user is told (a job of theirs finished or failed, a share of theirs was opened, access to a company was granted), and the analytics events clients record.',
        },
        { name: 'Service', description: 'Health and documentation.' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  shareNamedSchemas(app);

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(healthRoutes, {
    store: opts.store,
    pool,
    databaseCheckMs: opts.healthDatabaseCheckMs,
  });
  await app.register(userRoutes, { store: opts.store });
  const mailer = createMailer(opts.store, app.log, opts.mail ?? mailOptionsFromEnv());
  await app.register(userActivityRoutes, {
    store: opts.store,
    contactMail: opts.contactMail ?? contactMailer(mailer, process.env.TRAMLINE_CONTACT_EMAIL),
  });
  await app.register(userDirectoryRoutes, { store: opts.store });
  const web = opts.web ?? webOptionsFromEnv();
  const account: AccountContext = {
    store: opts.store,
    tokens,
    mailer,
    publicUrl: web.publicUrl,
    trustProxy: Boolean(opts.trustProxy),
  };
  await app.register(accountRoutes, { ...account, openRegistration: opts.openRegistration ?? true });
  await app.register(accountEmailRoutes, account);
  await app.register(accountProfileRoutes, account);
  await app.register(demoCompanyRoutes, account);
  await app.register(sessionTokenRoutes, account);
  await app.register(oauthRoutes, account);
  const idpOptions = opts.externalIdp === undefined ? externalIdpFromEnv() : opts.externalIdp;
  await app.register(externalLoginRoutes, {
    ...account,
    idp: idpOptions ? createExternalIdp(idpOptions) : undefined,
    openRegistration: opts.openRegistration ?? true,
  });
  await app.register(accountPageRoutes);
  await app.register(apiKeyRoutes, { store: opts.store });
  await app.register(companyRoutes, { store: opts.store });
  await app.register(companyAccessRoutes, { store: opts.store });
  await app.register(companyEventRoutes, { store: opts.store });
  await app.register(companyListRoutes, { store: opts.store });
  await app.register(companyDashboardRoutes, { store: opts.store });
  await app.register(growerFarmRoutes, { store: opts.store });
  await app.register(fieldRoutes, { store: opts.store });
  await app.register(partnerRoutes, {
    store: opts.store,
    tokens,
    launchCodeTtlSeconds: opts.launchCodeTtlSeconds,
  });
  await app.register(pathPlanRoutes, { planService });
  await app.register(storedPlanRoutes, { store: opts.store });
  await app.register(terrainRoutes, { store: opts.store, dems });
  await app.register(imageryRoutes, { store: opts.store });
  await app.register(jobRoutes, { store: opts.store, jobs });
  await app.register(equipmentScenarioRoutes, { store: opts.store, jobs });
  await app.register(shareRoutes, { store: opts.store });
  await app.register(equipmentScenarioShareRoutes, { store: opts.store });
  await app.register(wheelTrafficRoutes, { store: opts.store });
  await app.register(routeReadRoutes, { store: opts.store, jobs });
  await app.register(routingRoutes, { store: opts.store, jobs, pool, graceMs: opts.planning?.graceMs });
  await app.register(equipmentRoutes, { store: opts.store });
  // One pool of file readers (worker threads) for uploads and imports, ended with the app.
  const uploads = uploadSettings(opts.uploads);
  app.addHook('onClose', () => uploads.readers.close());
  await app.register(userFileRoutes, { store: opts.store, uploads });
  await app.register(boundaryImportRoutes, { store: opts.store, uploads });
  await app.register(geometryOperationRoutes);
  await app.register(geometrySmoothingRoutes);
  await app.register(geometryDecompositionRoutes);
  await app.register(referenceLineRoutes);
  await app.register(importedLineRoutes, { store: opts.store, uploads });
  await app.register(settingRoutes, { store: opts.store });
  await app.register(lookupRoutes);
  await app.register(mapTileRoutes, { store: opts.store });
  await app.register(userLabelRoutes, { store: opts.store });
  await app.register(adminRoutes, { store: opts.store, jobs });
  await app.register(companySyncRoutes, {
    store: opts.store,
    jobs,
    vendors: opts.vendors?.vendors ?? vendorSettingsFromEnv(),
  });
  await app.register(vendorConnectionRoutes, {
    store: opts.store,
    jobs,
    vendors: opts.vendors?.vendors ?? vendorSettingsFromEnv(),
    fetch: opts.vendors?.fetch,
  });
  const locationSearch =
    opts.locationSearch ??
    createLocationSearch({ geocoderUrl: process.env.TRAMLINE_GEOCODER_URL || undefined });
  // The gazetteer's thread of a search this app made ends with the app.
  if (!opts.locationSearch) app.addHook('onClose', () => locationSearch.close());
  await app.register(locationSearchRoutes, { store: opts.store, search: locationSearch });
  await app.register(externalBoundaryRoutes, {
    store: opts.store,
    catalog:
      typeof opts.boundarySources === 'object'
        ? opts.boundarySources
        : await loadBoundaryCatalog(
            opts.boundarySources ?? (process.env.TRAMLINE_BOUNDARY_SOURCES || undefined),
          ),
  });
  await app.register(fieldOperationRoutes, { store: opts.store });
  await app.register(descriptorRoutes, { store: opts.store });
  await app.register(planSummaryRoutes, { store: opts.store });
  await app.register(notificationRoutes, { store: opts.store, analyticsPerMin: opts.analyticsPerMin });
  await app.register(webRoutes, {
    store: opts.store,
    tokens,
    web,
    trustProxy: Boolean(opts.trustProxy),
  });

  // While closing, answers close their connection, so keep-alive clients do not hold shutdown up.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  const purgeMs = opts.purgeIntervalMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  if (purgeMs > 0) {
    timer = setInterval(() => {
      opts.store.rateLimits
        .purge(2 * windowSeconds)
        .catch((err) => app.log.warn({ err }, 'rate limit purge failed'));
      opts.store.partner.purgeLaunchCodes().catch((err) => app.log.warn({ err }, 'launch code purge failed'));
      opts.store.userAccounts
        .purgeTokens()
        .catch((err) => app.log.warn({ err }, 'account token purge failed'));
    }, purgeMs);
    timer.unref();
  }
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    if (ownJobs) await jobs.stop();
    await planService.drain();
    if (ownPool) await pool.close();
  });
  return app;
}

/** THE error answer: logged (5xx with the error, values of database errors left out), then sent. */
function sendError(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const e = toApiError(err);
  if (e.statusCode >= 500) req.log.error({ err }, 'request failed');
  else if (e.errorCode === 'INVALID_INPUT') req.log.warn({ err }, 'the database refused a value');
  else req.log.info({ errorCode: e.errorCode, statusCode: e.statusCode }, redactUrl(e.message));
  for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
  // Framework errors come before the onRequest hook that sets it.
  if (!reply.hasHeader('x-correlation-id')) reply.header('x-correlation-id', req.id);
  const body =
    e.statusCode === 402
      ? { ...e.extra, message: e.message, correlationId: req.id, errorCode: e.errorCode }
      : { correlationId: req.id, errorCode: e.errorCode, message: e.message, ...e.extra };
  return reply.code(e.statusCode).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * The logger options: the caller's (or pino at LOG_LEVEL, default info),
 * always with credentials redacted and database errors logged without their
 * values (api/log-safety.ts).
 */
export function safeLogger(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === false) return false;
  const base =
    logger && typeof logger === 'object'
      ? (logger as Record<string, unknown>)
      : { level: process.env.LOG_LEVEL ?? 'info' };
  const given = base.redact;
  const paths = Array.isArray(given) ? given : ((given as { paths?: string[] } | undefined)?.paths ?? []);
  return {
    ...base,
    redact: [...new Set([...REDACT_PATHS, ...paths])],
    serializers: {
      ...(base.serializers as Record<string, unknown> | undefined),
      err: errorSerializer,
      error: errorSerializer,
      req: requestSerializer,
    },
  } as FastifyServerOptions['logger'];
}

/** Fastify's own 4xx answers (and its plugins'), as our error codes with plain messages. */
const FASTIFY_4XX: Record<number, [string, string]> = {
  400: ['BAD_REQUEST', 'The request is malformed.'],
  403: ['FORBIDDEN', 'This path may not be read.'],
  404: ['NOT_FOUND', 'No such resource.'],
  405: ['METHOD_NOT_ALLOWED', 'This method is not allowed here.'],
  406: ['NOT_ACCEPTABLE', 'No representation matches the Accept header.'],
  408: ['REQUEST_TIMEOUT', 'The request took too long to arrive.'],
  411: ['LENGTH_REQUIRED', 'The request needs a Content-Length.'],
  413: ['PAYLOAD_TOO_LARGE', 'The request body is too large.'],
  414: ['URI_TOO_LONG', 'The request URL is too long.'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'The request body has a media type this endpoint does not accept.'],
  416: ['RANGE_NOT_SATISFIABLE', 'The requested range is not satisfiable.'],
  431: ['HEADERS_TOO_LARGE', 'The request headers are too large.'],
};

/** THE mapping of every error to its HTTP answer. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (Array.isArray(e?.validation)) {
    const context = e.validationContext ?? 'body';
    const errors = fromAjvErrors(e.validation as never, '').map((fe) => ({
      ...fe,
      path: context === 'body' ? fe.path : `/${context}${fe.path}`,
    }));
    return validationError(errors.length ? errors : [{ path: '', message: e.message }]);
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than 5 MB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'Send the request body as application/json (application/geo+json is accepted too).',
      );
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'BAD_REQUEST', 'The URL does not decode (a malformed percent-encoding).');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError([{ path: '', message: 'is empty; a JSON object is required' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return validationError([{ path: '', message: `is not valid JSON (${e.message})` }]);
  }
  // Values the database cannot hold that slipped past the input rule: the request's fault, never a 500.
  const sqlState = sqlStateOf(err);
  if (sqlState?.startsWith('22') || sqlState === '54001')
    return validationError(
      [{ path: '', message: 'holds a value that cannot be stored (text, number or nesting out of range)' }],
      undefined,
      'INVALID_INPUT',
    );
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    if (e instanceof SyntaxError)
      return validationError([{ path: '', message: `is not valid JSON (${e.message})` }]);
    const [code, message] = FASTIFY_4XX[status] ?? ['BAD_REQUEST', 'The request cannot be served.'];
    return new ApiError(status, code, message);
  }
  if (status === 503)
    return new ApiError(
      503,
      'SERVICE_UNAVAILABLE',
      'The service is shutting down or unavailable; retry shortly.',
      {},
      { 'retry-after': '2' },
    );
  return new ApiError(500, 'INTERNAL_ERROR', 'Internal error. Quote the correlationId when reporting it.');
}

const OPENAPI_DESCRIPTION = `Coverage route planning for agricultural machines: the v2.0.0 direct interface.

**Authentication.** Send \`X-API-KEY\` on every call under /api except ${[...PUBLIC_ROUTES]
  .filter((r) => r.startsWith('GET'))
  .map((r) => `\`${r}\``)
  .join(
    ', ',
  )}. A missing, unknown or revoked key gets 401 with no body, before the request body is read or validated. Keys are \`tl_\` followed by 43 base64url characters; only their SHA-256 is stored.

**Rate limits.** 600 requests per 60 s window per API key by default (the operator sets \`TRAMLINE_RATE_LIMIT_PER_MIN\`); requests without a valid key count per client address. Fixed windows, shared by every server process on PostgreSQL (the embedded database serves one process and counts in memory, writing the counts back within a second). Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (seconds until the window resets, not a timestamp). Over the limit: 429 with \`Retry-After\`.

**Credits.** Credits belong to a company (the billing account); a key spends the credits of the company it was issued for. A plan costs 1 credit, charged only when planning succeeds (taken before planning, given back on any failure). 402 when none is left.

**Errors.** Every error body carries \`correlationId\` (also the \`X-Correlation-Id\` header) and \`errorCode\`. 400 VALIDATION_ERROR lists \`errors: [{ path, message }]\` with JSON pointers; types are never coerced and unknown properties are refused.

**Input rule.** Before any schema, every body, query and path parameter is checked once: text must be well-formed Unicode without control characters (tab, CR and line feed only in notes, comments, descriptions and WKT) — 400 INVALID_TEXT; names (\`name\`, \`...Name\`, \`operationType\`, \`source\`, \`search\`) are at most 200 characters, notes and comments 2,000, other texts 16,384 — 400 TEXT_TOO_LONG; JSON nests at most 32 deep — 400 NESTING_TOO_DEEP; numbers must be finite and at most 1e15 in magnitude, areas (\`area\`, \`...Area\`) at most 1e10 m², distances and widths at most 1e8 m, counts and indexes (\`numberOf...\`, \`...Count\`, \`sequence\`, \`...Index\`) at most 2147483647 — 400 NUMBER_OUT_OF_RANGE. These answers list \`errors: [{ path, message }]\` like VALIDATION_ERROR. Ids named in a body are checked like ids in the path: another company's or an unknown id is 404 NOT_FOUND; credentials whose company the user can no longer access get 403 NotAuthorized where a record would be stored for it.

Planner refusals of the field itself (FIELD_*) and out-of-range options (INVALID_OPTION) are 400; plans the planner will not make are 422 (OPTION_NOT_SUPPORTED, PLAN_TOO_COMPLEX, HEADLAND_EXHAUSTS_FIELD, SWATH_WIDER_THAN_FIELD). 413 over 5 MB or 100,000 vertices; 415 for bodies that are not JSON; 503 SERVICE_BUSY when every planning worker is busy; 500 never carries details.

**Limits.** Planning has a hard time cap of routeOptions.maxOptimizerTime (default 10 s, at most 60) plus 5 s. Fields estimated too large (area / swathWidth^2 over 600,000, vertices x passes over 1,000,000, over 2,000 holes) are refused at once with 422 PLAN_TOO_COMPLEX.

**Planning view and embedding.** \`GET /path-planning/boundary/{boundaryId}\` is the planning view (a page, not an API call); \`/path-planning/shared/{code}/{pathPlanId}\` opens a shared plan read only without a session; \`?embedded=true&chrome=false\` leaves out header and navigation for an iframe. The browser uses the HttpOnly session cookie \`tramline_session\` (set by \`POST /login\` or by \`GET /launch?code=&userId=&returnUrl=\`, which exchanges a partner launch code on the server and answers 302 to returnUrl on this origin or an allowed origin, else 400 INVALID_RETURN_URL); the API accepts the cookie like a Bearer token (unsafe methods only from this server's own pages); API keys never go to the browser. Embedded, the view posts \`{ source: 'tramline', type, ... }\` messages to an allowed parent: tramline:ready, tramline:plan-drawn (stats), tramline:plan-changed (tuning, stats), tramline:plan-saved (pathPlanId, name, variant), tramline:active-changed (pathPlanId, zoneId, geometryGroupId), tramline:error (errorCode, message), tramline:auth-required, tramline:state; it accepts tramline:set-tuning (tuning), tramline:save (name) and tramline:request-state from allowed origins.

**Units.** Metres, square metres, seconds, m/s; bearings in degrees clockwise from north; coordinates WGS84 [lon, lat]. JSON members are camelCase.`;
