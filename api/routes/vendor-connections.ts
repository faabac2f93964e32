/**
 * Vendor account links and transmissions (spec 1, 4.4 "Vendor integrations"):
 *   POST   /api/companies/{companyId}/vendor-connections/{vendor}/authorize  start OAuth (PKCE): the URL to send the user to
 *   POST   /api/companies/{companyId}/vendor-connections/{vendor}/callback   { code, state } from the redirect: link the account
 *   GET    /api/companies/{companyId}/vendor-connections                     the company's links (never their tokens)
 *   DELETE /api/companies/{companyId}/vendor-connections/{vendor}            unlink
 *   POST   /api/vendor-a/update-connected-orgs                               { companyId }: read the organizations the account granted
 *   GET    /api/vendor-b/{userId}/company                                    the company whose vendor-b account the user linked
 *   GET    /api/vendor-c/companies/{companyId}/users                         the company's users and who linked vendor-c
 *   POST   /api/path-plans-export/{batchId}/transmit                         { vendor }: send an export to the linked portal, as a job
 *   GET    /api/path-plans-export/transmissions/{jobId}                      that job, with the state of each file
 *
 * Linking and unlinking need the admin role of the company. Tokens are
 * sealed at rest and never answered or logged.
 */
import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { PORTALS } from '../../formats/export/portals.ts';
import { createVendorAccounts, VendorNotConnectedError } from '../../integrations/vendor-accounts.ts';
import {
  authorizationUrl,
  exchangeCode,
  pkcePair,
  VENDORS,
  type Vendor,
  VendorAuthError,
  type VendorSettingsMap,
} from '../../integrations/vendor-oauth.ts';
import type { JobSystem } from '../../jobs/runtime.ts';
import { transmissionFiles } from '../../jobs/transmission.ts';
import type { Store } from '../../store/db.ts';
import { createJobsRepository } from '../../store/repositories/jobs.ts';
import {
  createVendorConnectionsRepository,
  type VendorConnectionView,
} from '../../store/repositories/vendor-connections.ts';
import { exportBatches } from '../../store/schema.ts';
import { deploymentTokenCipher } from '../../store/token-crypto.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, idParams, iso, notFound, principalOf, requireCompany, Timestamp, Uuid } from './common.ts';

const TAGS = ['Vendor integrations'];
/** How long an authorization request may wait for its callback [ms]. */
const AUTHORIZATION_TTL_MS = 10 * 60_000;

const VendorParam = Type.Union(
  VENDORS.map((v) => Type.Literal(v)),
  { description: 'vendor-a, vendor-b or vendor-c.' },
);

const CompanyVendorParams = Type.Object(
  { companyId: Uuid('The company.'), vendor: VendorParam },
  { additionalProperties: false },
);

const AuthorizeRequest = named(
  'VendorAuthorizeRequest',
  Type.Object(
    {
      redirectUri: Type.String({
        format: 'uri',
        maxLength: 2000,
        description: 'Where the vendor sends the user back with code and state (registered with the vendor).',
      }),
    },
    { additionalProperties: false },
  ),
);

const AuthorizeResponse = named(
  'VendorAuthorizeResponse',
  Type.Object({
    authorizationUrl: Type.String({ description: "Send the user here (the vendor's sign-in and consent)." }),
    state: Type.String({ description: 'Comes back with the code; hand both to /callback.' }),
    expiresAt: Timestamp,
  }),
);

const CallbackRequest = named(
  'VendorCallbackRequest',
  Type.Object(
    {
      code: Type.String({ minLength: 1, maxLength: 4000 }),
      state: Type.String({ minLength: 1, maxLength: 200 }),
    },
    { additionalProperties: false },
  ),
);

const Connection = named(
  'VendorConnection',
  Type.Object({
    connectionId: Uuid('The link.'),
    companyId: Uuid('The company.'),
    vendor: Type.String(),
    linkedBy: Type.Union([Uuid('The user who linked the account.'), Type.Null()]),
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the access token expires (it is refreshed before).',
    }),
    scope: Type.Union([Type.String(), Type.Null()]),
    organizations: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);

const VendorToken = (d: string) => Type.String({ minLength: 1, maxLength: 8192, description: d });

const TokenLinkRequest = named(
  'VendorTokenLinkRequest',
  Type.Object(
    {
      companyId: Uuid('The company the link serves; you need the admin role in it.'),
      accessToken: VendorToken("The vendor's OAuth access token."),
      refreshToken: Type.Optional(VendorToken("The vendor's refresh token.")),
      expiresIn: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'Seconds the access token is valid.' }),
      ),
      scope: Type.Optional(Type.String({ maxLength: 1000, description: 'The scopes the vendor granted.' })),
    },
    { additionalProperties: false },
  ),
);

const ConnectionList = named('VendorConnectionList', Type.Object({ connections: Type.Array(Connection) }));

const UpdateOrgsRequest = named(
  'UpdateConnectedOrgsRequest',
  Type.Object(
    { companyId: Uuid('The company whose vendor-a link to read.') },
    { additionalProperties: false },
  ),
);

const TransmitRequest = named(
  'TransmitExportRequest',
  Type.Object(
    {
      vendor: Type.Union(
        PORTALS.map((p) => Type.Literal(p)),
        { description: 'The portal: vendor-a or vendor-b.' },
      ),
    },
    { additionalProperties: false },
  ),
);

const TransmitAccepted = named(
  'TransmitExportAccepted',
  Type.Object({
    jobId: Uuid('Poll GET /api/path-plans-export/transmissions/{jobId}.'),
    status: Type.Literal('queued'),
  }),
);

const TransmissionJob = named(
  'TransmissionJob',
  Type.Object({
    jobId: Uuid('The job.'),
    status: Type.Union(['queued', 'running', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
    vendor: Type.String(),
    batchId: Uuid('The export batch sent.'),
    files: Type.Array(
      Type.Object({
        fileName: Type.String(),
        status: Type.Union(
          ['queued', 'sent', 'accepted', 'failed'].map((s) => Type.Literal(s)),
          {
            description:
              'queued: not sent yet; sent: the portal has it; accepted: the portal took it; failed: see message.',
          },
        ),
        transferId: Type.Union([Type.String(), Type.Null()], { description: "The portal's transfer id." }),
        message: Type.Union([Type.String(), Type.Null()], {
          description: "The portal's words on a failure.",
        }),
      }),
    ),
    errorCode: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
  }),
);

const LinkedCompany = named(
  'VendorLinkedCompany',
  Type.Object({
    userId: Uuid('The user who linked the account.'),
    companyId: Uuid('The company.'),
    name: Type.String({ description: "The company's name." }),
    connection: Connection,
  }),
);

const CompanyVendorUsers = named(
  'VendorCompanyUsers',
  Type.Object({
    companyId: Uuid('The company.'),
    vendor: Type.String(),
    connected: Type.Boolean({ description: 'Whether the company has a vendor-c account linked.' }),
    users: Type.Array(
      Type.Object({
        userId: Uuid('The user.'),
        email: Type.Union([Type.String(), Type.Null()]),
        firstName: Type.Union([Type.String(), Type.Null()]),
        lastName: Type.Union([Type.String(), Type.Null()]),
        role: Type.String({ description: 'admin or member.' }),
        linked: Type.Boolean({ description: "Whether this user linked the company's vendor-c account." }),
      }),
    ),
  }),
);

const connectionBody = (c: VendorConnectionView): Static<typeof Connection> => ({
  connectionId: c.connectionId,
  companyId: c.companyId,
  vendor: c.vendor,
  linkedBy: c.userId,
  expiresAt: c.expiresAt ? iso(c.expiresAt) : null,
  scope: c.scope,
  organizations: c.organizations,
  createdAt: iso(c.createdAt),
  updatedAt: iso(c.updatedAt),
});

function vendorError(e: unknown): never {
  if (e instanceof VendorNotConnectedError) throw new ApiError(409, e.code, e.message);
  if (e instanceof VendorAuthError) {
    throw new ApiError(e.code === 'VENDOR_UNAVAILABLE' ? 502 : 422, e.code, e.message);
  }
  throw e;
}

export async function vendorConnectionRoutes(
  app: FastifyInstance,
  opts: { store: Store; jobs: JobSystem; vendors: VendorSettingsMap; fetch?: typeof fetch },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const connections = createVendorConnectionsRepository(store.db, await deploymentTokenCipher(store.secrets));
  const accounts = createVendorAccounts({ connections, vendors: opts.vendors, fetch: opts.fetch });

  const settingsOf = (vendor: Vendor) => {
    const s = opts.vendors[vendor];
    if (!s) {
      const configured = VENDORS.filter((v) => opts.vendors[v]);
      throw new ApiError(
        422,
        'VENDOR_NOT_CONFIGURED',
        `${vendor} is not configured on this server (configured: ${configured.length ? configured.join(', ') : 'none'}).`,
      );
    }
    return s;
  };

  r.post(
    '/api/companies/:companyId/vendor-connections/:vendor/authorize',
    {
      schema: {
        tags: TAGS,
        summary: 'Start linking a vendor account (OAuth 2.0 with PKCE)',
        description:
          "Answers the vendor's authorization URL (S256 code challenge, a one-time state valid 10 minutes). The vendor sends the user back to redirectUri with code and state; POST them to /callback.",
        params: CompanyVendorParams,
        body: AuthorizeRequest,
        response: answers(
          { 200: { schema: AuthorizeResponse, description: 'Where to send the user.' } },
          400,
          403,
          404,
          422,
        ),
      },
    },
    async (req) => {
      const { companyId, vendor } = req.params;
      await requireCompany(store, req, companyId, 'admin');
      const s = settingsOf(vendor);
      const { verifier, challenge } = pkcePair();
      const state = randomBytes(24).toString('base64url');
      const expiresAt = new Date(Date.now() + AUTHORIZATION_TTL_MS);
      await connections.startAuthorization({
        state,
        companyId,
        userId: principalOf(req).userId,
        vendor,
        codeVerifier: verifier,
        redirectUri: req.body.redirectUri,
        expiresAt,
      });
      return {
        authorizationUrl: authorizationUrl(s, { state, challenge, redirectUri: req.body.redirectUri }),
        state,
        expiresAt: iso(expiresAt),
      };
    },
  );

  r.post(
    '/api/companies/:companyId/vendor-connections/:vendor/callback',
    {
      schema: {
        tags: TAGS,
        summary: 'Finish linking a vendor account',
        description:
          'Exchanges the code (with the PKCE verifier) for tokens, kept encrypted; refreshed before they expire. 400 INVALID_STATE for a state this user did not start for this company and vendor, or that expired.',
        params: CompanyVendorParams,
        body: CallbackRequest,
        response: answers({ 201: { schema: Connection, description: 'Linked.' } }, 400, 403, 404, 422, 502),
      },
    },
    async (req, reply) => {
      const { companyId, vendor } = req.params;
      await requireCompany(store, req, companyId, 'admin');
      const s = settingsOf(vendor);
      const userId = principalOf(req).userId;
      const a = await connections.takeAuthorization(req.body.state, userId, vendor);
      if (!a || a.companyId !== companyId) {
        throw new ApiError(
          400,
          'INVALID_STATE',
          'The state is unknown, used, expired, or was started for another company or vendor; start again with /authorize.',
        );
      }
      const tokens = await exchangeCode(
        s,
        { code: req.body.code, verifier: a.codeVerifier, redirectUri: a.redirectUri },
        opts.fetch,
      ).catch(vendorError);
      const saved = await connections.save(companyId, vendor, userId, tokens);
      return reply.code(201).send(connectionBody(saved));
    },
  );

  r.post(
    '/api/vendor-a-connections',
    {
      schema: {
        tags: TAGS,
        summary: 'Link a vendor-a account with tokens the client already holds',
        description:
          "For a client that ran the vendor's OAuth flow itself: stores the company's vendor-a link with the given tokens, sealed at rest like the links made through /authorize and never answered back. Posting again replaces the link's tokens (200). Needs the admin role in the company; 404 for a company you cannot access.",
        body: TokenLinkRequest,
        response: answers(
          {
            201: { schema: Connection, description: 'Linked.' },
            200: { schema: Connection, description: 'The link’s tokens replaced.' },
          },
          400,
          403,
          404,
        ),
      },
    },
    async (req, reply) => {
      const b = req.body;
      await requireCompany(store, req, b.companyId, 'admin');
      const existed = (await connections.get(b.companyId, 'vendor-a')) !== null;
      const saved = await connections.save(b.companyId, 'vendor-a', principalOf(req).userId, {
        accessToken: b.accessToken,
        refreshToken: b.refreshToken ?? null,
        expiresAt: b.expiresIn ? new Date(Date.now() + b.expiresIn * 1000) : null,
        scope: b.scope ?? null,
      });
      return reply.code(existed ? 200 : 201).send(connectionBody(saved));
    },
  );

  r.get(
    '/api/companies/:companyId/vendor-connections',
    {
      schema: {
        tags: TAGS,
        summary: "A company's vendor links",
        params: Type.Object({ companyId: Uuid('The company.') }, { additionalProperties: false }),
        response: answers(
          { 200: { schema: ConnectionList, description: 'By vendor; never tokens.' } },
          400,
          404,
        ),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      return { connections: (await connections.list(req.params.companyId)).map(connectionBody) };
    },
  );

  r.delete(
    '/api/companies/:companyId/vendor-connections/:vendor',
    {
      schema: {
        tags: TAGS,
        summary: 'Unlink a vendor account',
        params: CompanyVendorParams,
        response: answers({ 204: { schema: null, description: 'Unlinked.' } }, 400, 403, 404),
      },
    },
    async (req, reply) => {
      const { companyId, vendor } = req.params;
      await requireCompany(store, req, companyId, 'admin');
      if (!(await connections.remove(companyId, vendor)))
        throw notFound(`${vendor} link of company`, companyId);
      return reply.code(204).send();
    },
  );

  r.post(
    '/api/vendor-a/update-connected-orgs',
    {
      schema: {
        tags: TAGS,
        summary: 'Read the vendor-a organizations the linked account granted',
        description:
          "Asks vendor-a for the organizations the company's linked account may use and keeps them on the link (what transmissions and company sync address).",
        body: UpdateOrgsRequest,
        response: answers(
          { 200: { schema: Connection, description: 'The link with its organizations.' } },
          400,
          403,
          404,
          409,
          422,
          502,
        ),
      },
    },
    async (req) => {
      const { companyId } = req.body;
      await requireCompany(store, req, companyId, 'admin');
      settingsOf('vendor-a');
      const orgs = await accounts.organizations(companyId, 'vendor-a').catch(vendorError);
      await connections.setOrganizations(companyId, 'vendor-a', orgs);
      return connectionBody((await connections.get(companyId, 'vendor-a'))!);
    },
  );

  r.get(
    '/api/vendor-b/:userId/company',
    {
      schema: {
        tags: TAGS,
        summary: 'The company whose vendor-b account a user linked',
        description:
          'Of the companies the caller can access, the one where the user linked a vendor-b account most recently; 404 when there is none.',
        params: idParams('userId'),
        response: answers(
          { 200: { schema: LinkedCompany, description: 'The company and its link.' } },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const found = await connections.companyLinkedBy(principalOf(req).userId, req.params.userId, 'vendor-b');
      if (!found) throw notFound('vendor-b link of user', req.params.userId);
      return {
        userId: req.params.userId,
        companyId: found.companyId,
        name: found.companyName,
        connection: connectionBody(found),
      };
    },
  );

  r.get(
    '/api/vendor-c/companies/:companyId/users',
    {
      schema: {
        tags: TAGS,
        summary: "A company's users and its vendor-c link",
        params: idParams('companyId'),
        response: answers({ 200: { schema: CompanyVendorUsers, description: 'By e-mail.' } }, 400, 404),
      },
    },
    async (req) => {
      const { companyId } = req.params;
      await requireCompany(store, req, companyId);
      const list = await connections.companyUsers(companyId, 'vendor-c');
      const connected = (await connections.get(companyId, 'vendor-c')) !== null;
      return { companyId, vendor: 'vendor-c', connected, users: list };
    },
  );

  r.post(
    '/api/path-plans-export/:batchId/transmit',
    {
      schema: {
        tags: TAGS,
        summary: 'Send an export to a linked vendor portal',
        description:
          "Answers 202 with a job that uploads the batch's zip to the portal with the company's linked account and polls until the portal accepts or refuses it; 429 and 5xx answers are retried with backoff, and a file the portal has is never sent twice. The batch should be in the portal's layout (export format vendor-a or vendor-b).",
        params: Type.Object({ batchId: Uuid('The export batch.') }, { additionalProperties: false }),
        body: TransmitRequest,
        response: answers({ 202: { schema: TransmitAccepted, description: 'Queued.' } }, 400, 404, 409, 422),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const [batch] = await store.db
        .select({ companyId: exportBatches.companyId })
        .from(exportBatches)
        .where(eq(exportBatches.id, req.params.batchId));
      if (!batch || !(await store.companies.role(userId, batch.companyId)))
        throw notFound('export batch', req.params.batchId);
      const vendor = req.body.vendor;
      settingsOf(vendor);
      if (!(await connections.get(batch.companyId, vendor))) {
        vendorError(new VendorNotConnectedError(vendor, batch.companyId));
      }
      const { jobId } = await opts.jobs.enqueueTask({
        companyId: batch.companyId,
        userId,
        kind: 'transmission',
        request: { batchId: req.params.batchId, vendor },
      });
      reply.code(202).header('location', `/api/path-plans-export/transmissions/${jobId}`);
      return { jobId, status: 'queued' as const };
    },
  );

  r.get(
    '/api/path-plans-export/transmissions/:jobId',
    {
      schema: {
        tags: TAGS,
        summary: 'A transmission job and the state of each file',
        params: Type.Object({ jobId: Uuid('The job.') }, { additionalProperties: false }),
        response: answers({ 200: { schema: TransmissionJob, description: 'The job.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const job = await createJobsRepository(store.db).view(principalOf(req).userId, req.params.jobId, [
        'transmission',
      ]);
      if (!job) throw notFound('transmission job', req.params.jobId);
      const request = job.request as { batchId: string; vendor: string };
      const result = (job.result ?? {}) as Record<string, unknown>;
      if (job.status === 'queued' || job.status === 'running') reply.header('retry-after', '5');
      const files = (await transmissionFiles(store.db, job.id)).map((f) => ({
        fileName: f.fileName,
        status: f.status,
        transferId: f.transferId,
        message: f.message,
      }));
      return {
        jobId: job.id,
        status: job.status,
        vendor: request.vendor,
        batchId: request.batchId,
        files,
        ...(typeof result.errorCode === 'string'
          ? { errorCode: result.errorCode, message: String(result.message) }
          : {}),
      };
    },
  );
}
