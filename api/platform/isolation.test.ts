/**
 * Tenant isolation, walked over every endpoint that takes an id: company A
 * holds one of everything; company B's key calls each endpoint with A's
 * ids and must get 404 NOT_FOUND, and afterwards A's data is unchanged.
 *
 * Adding an endpoint: put a row in WALK (method, the route as registered,
 * and a body when it needs one). `:name` parameters are filled from the
 * ids A made in `beforeAll` (add the making of a new kind of resource
 * there). The last test fails, naming them, when an /api route with a path
 * parameter in the OpenAPI document is in neither WALK nor NOT_WALKED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, testKey } from '../testing.ts';
import { type Answer, type Client, client, expectError, expectOk } from './client.ts';

interface Walk {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The route as registered, with `:name` parameters. */
  route: string;
  /** The body to send (with A's ids at hand). */
  body?: (ids: Ids) => unknown;
  /** Extra query string. */
  query?: string;
  /** Which of A's ids fills a parameter, when not the one of its name. */
  idOf?: Record<string, string>;
}

type Ids = Record<string, string>;

const RINGS = [
  [
    [10.1, 56.1],
    [10.104, 56.1],
    [10.104, 56.102],
    [10.1, 56.102],
    [10.1, 56.1],
  ],
];

const PLAN_REQUEST = {
  equipment: { swathWidth: 6, minTurningRadius: 6 },
  exteriorHeadlandPasses: 1,
  routeOptions: { algorithm: 'boustrophedon' },
};

const MACHINE = {
  name: 'Sprayer 24',
  type: 'sprayer',
  swathWidth: 24,
  trackWidths: [2.25],
  tireWidths: [0.46],
  turningRadius: 7.5,
  workingSpeed: 3.5,
  turningSpeed: 2,
  tankCapacity: 4000,
  fuelUse: 18,
};

const FILE = { type: 'FeatureCollection', features: [] };

const WALK: Walk[] = [
  // Companies and keys.
  { method: 'GET', route: '/api/companies/:companyId' },
  { method: 'DELETE', route: '/api/companies/:companyId' },
  { method: 'DELETE', route: '/api/companies/:companyId/purge' },
  { method: 'GET', route: '/api/companies/:companyId/summary' },
  { method: 'GET', route: '/api/companies/:companyId/empty' },
  { method: 'DELETE', route: '/api/api-keys/:id' },
  // Company access and events.
  { method: 'GET', route: '/api/company-accesses/:id', idOf: { id: 'companyAccessId' } },
  { method: 'DELETE', route: '/api/company-accesses/:id', idOf: { id: 'companyAccessId' } },
  { method: 'GET', route: '/api/users/:userId/company-accesses' },
  { method: 'GET', route: '/api/company-accesses/:userId/user' },
  { method: 'GET', route: '/api/company-events/:companyId' },
  { method: 'GET', route: '/api/company-events/:batchId/company', idOf: { batchId: 'eventBatchId' } },
  { method: 'POST', route: '/api/companies/:companyId/uom', body: () => ({ uom: 'imperial' }) },
  { method: 'GET', route: '/api/companies/:companyId/dashboards' },
  { method: 'GET', route: '/api/companies/:companyId/dashboards/summary' },
  { method: 'GET', route: '/api/companies/:companyId/dashboards/fieldwatch' },
  // Users: another company's user is unknown.
  { method: 'GET', route: '/api/user/app/:userId' },
  { method: 'GET', route: '/api/account/:userId/logged-user-process' },
  { method: 'GET', route: '/api/users/:userId/summary' },
  { method: 'GET', route: '/api/users/:userId/last-engaged-company' },
  { method: 'GET', route: '/api/users/:userId/admin-countries' },
  { method: 'DELETE', route: '/api/users/:userId' },
  // Growers and farms.
  { method: 'POST', route: '/api/companies/:companyId/growers', body: () => ({ name: 'intruder' }) },
  { method: 'GET', route: '/api/companies/:companyId/growers' },
  { method: 'GET', route: '/api/companies/:companyId/growers/detailed' },
  { method: 'GET', route: '/api/companies/:companyId/farms' },
  { method: 'GET', route: '/api/growers/:growerId' },
  { method: 'PUT', route: '/api/growers/:growerId', body: () => ({ name: 'intruder' }) },
  { method: 'DELETE', route: '/api/growers/:growerId', query: '?cascade=true' },
  { method: 'GET', route: '/api/growers/:growerId/can-delete' },
  { method: 'POST', route: '/api/growers/:growerId/farms', body: () => ({ name: 'intruder' }) },
  { method: 'GET', route: '/api/growers/:growerId/farms' },
  { method: 'GET', route: '/api/growers/:growerId/farms/detailed' },
  { method: 'GET', route: '/api/growers/:growerId/farms/:farmId/can-delete' },
  { method: 'GET', route: '/api/farms/:farmId' },
  { method: 'PUT', route: '/api/farms/:farmId', body: () => ({ name: 'intruder' }) },
  { method: 'DELETE', route: '/api/farms/:farmId', query: '?cascade=true' },
  // Fields and boundaries.
  {
    method: 'POST',
    route: '/api/fields/save',
    body: (ids) => ({ farmId: ids.farmId, name: 'x', boundary: RINGS }),
  },
  {
    method: 'POST',
    route: '/api/fields/field-with-boundaries',
    body: (ids) => ({ farmId: ids.farmId, name: 'x', boundaries: [{ boundary: RINGS }] }),
  },
  { method: 'GET', route: '/api/fields/:fieldId' },
  { method: 'PUT', route: '/api/fields/:fieldId', body: () => ({ name: 'intruder' }) },
  { method: 'DELETE', route: '/api/fields/:fieldId' },
  { method: 'GET', route: '/api/fields/:fieldId/boundaries' },
  { method: 'GET', route: '/api/fields/:fieldId/boundaries-basic' },
  { method: 'GET', route: '/api/farms/:farmId/fields-with-boundaries' },
  { method: 'GET', route: '/api/growers/:growerId/fields-with-boundaries' },
  { method: 'GET', route: '/api/companies/:companyId/fields-with-boundaries' },
  { method: 'GET', route: '/api/farms/:farmId/fields-boundaries-json' },
  { method: 'GET', route: '/api/growers/:growerId/fields-boundaries-json' },
  { method: 'GET', route: '/api/companies/:companyId/fields-boundaries-json' },
  { method: 'GET', route: '/api/companies/:companyId/fields' },
  { method: 'GET', route: '/api/organizations/:companyId/fields' },
  { method: 'GET', route: '/api/organizations/:companyId/boundaries' },
  { method: 'GET', route: '/api/fields/:companyId/fields-without-boundaries-count' },
  { method: 'POST', route: '/api/companies/:companyId/field-tiles', body: () => ({ z: 0, x: 0, y: 0 }) },
  { method: 'GET', route: '/api/companies/:companyId/field-tiles/:fieldId' },
  { method: 'POST', route: '/api/companies/:companyId/path-plans/tiles', body: () => ({ z: 0, x: 0, y: 0 }) },
  {
    method: 'PUT',
    route: '/api/companies/:companyId/fields/toggle-enabled',
    body: (ids) => ({ fieldIds: [ids.fieldId], enabled: false }),
  },
  {
    method: 'POST',
    route: '/api/vBoundary/upsert',
    body: (ids) => ({ fieldId: ids.fieldId, boundary: RINGS }),
  },
  {
    method: 'POST',
    route: '/api/vBoundary/upsert',
    body: (ids) => ({ fieldId: ids.fieldId, boundaryId: ids.boundaryId, boundary: RINGS }),
  },
  { method: 'GET', route: '/api/vboundary/:boundaryId' },
  { method: 'GET', route: '/api/boundaries/:boundaryId/simple' },
  { method: 'GET', route: '/api/boundaries/:boundaryId/detailed' },
  { method: 'GET', route: '/api/boundaries/:boundaryId/geojson' },
  { method: 'GET', route: '/api/boundaries/:boundaryId/wkt' },
  { method: 'GET', route: '/api/boundaries/:boundaryId/kml' },
  { method: 'POST', route: '/api/boundaries/:boundaryId/activate' },
  { method: 'DELETE', route: '/api/boundaries/:boundaryId' },
  // Stored plans, groups, routes.
  { method: 'GET', route: '/api/boundaries/:boundaryId/path-plan-ids' },
  { method: 'GET', route: '/api/fields/:fieldId/path-plans' },
  { method: 'GET', route: '/api/fields/:fieldId/path-plans/list' },
  { method: 'GET', route: '/api/fields/:fieldId/path-plan-ids' },
  { method: 'GET', route: '/api/fields/:fieldId/path-plan-names' },
  { method: 'GET', route: '/api/path-plans-normalized/:pathPlanId' },
  { method: 'GET', route: '/api/path-plans-normalized/:pathPlanId/preview' },
  { method: 'GET', route: '/api/path-plans/:pathPlanId/geo' },
  { method: 'GET', route: '/api/path-plans/:pathPlanId/list-item' },
  { method: 'GET', route: '/api/path-plans/:pathPlanId/rate' },
  { method: 'POST', route: '/api/path-plans/:pathPlanId/rate', body: () => ({ rating: 1 }) },
  { method: 'POST', route: '/api/path-plans/:pathPlanId/star', body: () => ({}) },
  { method: 'DELETE', route: '/api/path-plans/:pathPlanId' },
  { method: 'GET', route: '/api/path-plans/:pathPlanId/routes' },
  { method: 'GET', route: '/api/routes/:routeId' },
  {
    method: 'POST',
    route: '/api/path-plan-zones/:pathPlanZoneId/geometry-groups/:geometryGroupId/set-active',
  },
  { method: 'GET', route: '/api/path-plan-groups/path-plans/:pathPlanId' },
  { method: 'GET', route: '/api/path-plan-groups/:pathPlanGroupId' },
  { method: 'DELETE', route: '/api/path-plan-groups/:pathPlanGroupId' },
  {
    method: 'POST',
    route: '/api/path-plan-groups/:pathPlanGroupId/add-plans',
    body: (ids) => ({ pathPlanIds: [ids.pathPlanId] }),
  },
  { method: 'POST', route: '/api/path-plan-groups/:pathPlanGroupId/ungroup-plan/:pathPlanId' },
  {
    method: 'DELETE',
    route: '/api/path-plan-groups/:pathPlanGroupId/delete-plans',
    body: (ids) => ({ pathPlanIds: [ids.pathPlanId] }),
  },
  { method: 'GET', route: '/api/companies/:companyId/path-plan-groups/names' },
  { method: 'POST', route: '/api/companies/:companyId/path-plan-groups', body: () => ({ name: 'intruder' }) },
  { method: 'POST', route: '/api/companies/:companyId/path-plan-groups/summary', body: () => ({}) },
  // Jobs, exports, shares.
  { method: 'GET', route: '/api/guidance/jobs/:jobId' },
  { method: 'GET', route: '/api/guidance/jobs/:jobId', idOf: { jobId: 'headlandsJobId' } },
  {
    method: 'GET',
    route: '/api/guidance/post-processing-jobs/:jobId',
    idOf: { jobId: 'postprocessJobId' },
  },
  { method: 'GET', route: '/api/routes/jobs/:jobId', idOf: { jobId: 'routeJobId' } },
  {
    method: 'POST',
    route: '/api/guidance',
    body: (ids) => ({ boundaryId: ids.boundaryId, request: PLAN_REQUEST }),
  },
  {
    method: 'POST',
    route: '/api/guidance/headlands',
    body: (ids) => ({ boundaryId: ids.boundaryId, request: PLAN_REQUEST }),
  },
  { method: 'POST', route: '/api/guidance/pathplan', body: (ids) => ({ pathPlanId: ids.pathPlanId }) },
  { method: 'POST', route: '/api/guidance/postprocess', body: (ids) => ({ pathPlanId: ids.pathPlanId }) },
  { method: 'POST', route: '/api/guidance-post-process', body: (ids) => ({ pathPlanId: ids.pathPlanId }) },
  { method: 'POST', route: '/api/routes', body: (ids) => ({ pathPlanId: ids.pathPlanId }) },
  {
    method: 'POST',
    route: '/api/routes/normalized',
    body: (ids) => [{ pathPlanZoneId: ids.pathPlanZoneId }],
  },
  { method: 'POST', route: '/api/routes/create', body: (ids) => ({ pathPlanId: ids.pathPlanId }) },
  {
    method: 'POST',
    route: '/api/routes/construct',
    body: (ids) => ({ pathPlanZoneId: ids.pathPlanZoneId, nodeOrder: [0] }),
  },
  { method: 'GET', route: '/api/bulk-guidance/jobs/:jobId' },
  { method: 'GET', route: '/api/bulk-guidance/normalized/jobs/:jobId' },
  { method: 'POST', route: '/api/job/:jobId/cancel' },
  { method: 'GET', route: '/api/path-plans-export/jobs/:jobId' },
  { method: 'GET', route: '/api/path-plans-export/:batchId/file' },
  { method: 'GET', route: '/api/shares/:shareIdOrCode', body: undefined },
  { method: 'DELETE', route: '/api/shares/:shareIdOrCode' },
  // Equipment, operators, user files.
  {
    method: 'POST',
    route: '/api/equipment',
    body: (ids) => ({ companyId: ids.companyId, ...MACHINE, name: 'x' }),
  },
  { method: 'GET', route: '/api/companies/:companyId/equipments' },
  { method: 'GET', route: '/api/equipment/:equipmentId' },
  { method: 'DELETE', route: '/api/equipment/:equipmentId' },
  { method: 'POST', route: '/api/operators', body: (ids) => ({ companyId: ids.companyId, name: 'x' }) },
  { method: 'GET', route: '/api/companies/:companyId/operators' },
  { method: 'GET', route: '/api/operators/:operatorId' },
  { method: 'DELETE', route: '/api/operators/:operatorId' },
  { method: 'POST', route: '/api/companies/:companyId/user-files/file-upload', body: () => FILE },
  { method: 'GET', route: '/api/companies/:companyId/user-files' },
  { method: 'GET', route: '/api/user-files/:userFileId' },
  { method: 'DELETE', route: '/api/user-files/:userFileId' },
  { method: 'GET', route: '/api/user-files/:userFileId/metadata' },
  { method: 'POST', route: '/api/user-files/:userFileId/hide' },
  {
    method: 'POST',
    route: '/api/equipment',
    body: (ids) => ({ equipmentId: ids.equipmentId, ...MACHINE, name: 'stolen' }),
  },
  { method: 'POST', route: '/api/equipment/delete', body: (ids) => ({ equipmentIds: [ids.equipmentId] }) },
  {
    method: 'POST',
    route: '/api/operators',
    body: (ids) => ({ operatorId: ids.operatorId, name: 'stolen' }),
  },
  { method: 'GET', route: '/api/user-files/:userFileId/polygons' },
  {
    method: 'POST',
    route: '/api/user-files/:userFileId/import-boundary',
    body: (ids) => ({ fieldId: ids.fieldId }),
  },
  // Imported guidance lines.
  { method: 'GET', route: '/api/boundaries/:boundaryId/imported-lines' },
  {
    method: 'POST',
    route: '/api/companies/:companyId/imported-lines',
    body: (ids) => ({ userFileId: ids.userFileId }),
  },
  {
    method: 'POST',
    route: '/api/companies/:companyId/imported-lines',
    body: () => ({
      lines: {
        type: 'LineString',
        coordinates: [
          [10.1, 56.1],
          [10.2, 56.1],
        ],
      },
    }),
  },
  { method: 'DELETE', route: '/api/companies/:companyId/imported-lines' },
  // User labels.
  { method: 'GET', route: '/api/user-labels/:userLabelId' },
  { method: 'PUT', route: '/api/user-labels/:userLabelId', body: () => ({ name: 'intruder' }) },
  { method: 'DELETE', route: '/api/user-labels/:userLabelId' },
  // Field operations.
  {
    method: 'POST',
    route: '/api/field-operations/start',
    body: (ids) => ({ fieldId: ids.fieldId, boundaryId: ids.boundaryId, operationType: 'x', swathWidth: 6 }),
  },
  {
    method: 'POST',
    route: '/api/field-operations/:fieldOpId/log',
    body: () => ({ points: [{ t: '2026-05-04T06:00:00Z', lon: 10.1, lat: 56.1, working: true }] }),
  },
  { method: 'POST', route: '/api/field-operations/:fieldOpId', body: () => ({ status: 'cancelled' }) },
  { method: 'GET', route: '/api/fields/:fieldId/operations' },
  { method: 'GET', route: '/api/fields/:fieldId/operations/:opId', idOf: { opId: 'fieldOpId' } },
  { method: 'GET', route: '/api/companies/:companyId/operations' },
  { method: 'POST', route: '/api/companies/:companyId/field-operations/table', body: () => ({}) },
  {
    method: 'POST',
    route: '/api/companies/:companyId/field-operations/export',
    body: () => ({ format: 'csv' }),
  },
  { method: 'POST', route: '/api/companies/:companyId/dashboard-path-plan-summary', body: () => ({}) },
  // Notifications and descriptors.
  { method: 'DELETE', route: '/api/notifications/:id', idOf: { id: 'notificationId' } },
  {
    method: 'POST',
    route: '/api/descriptors',
    body: (ids) => ({
      objectType: 'field',
      objectId: ids.fieldId,
      name: 'crop',
      valueType: 'text',
      value: 'x',
    }),
  },
  { method: 'GET', route: '/api/descriptors/:id', idOf: { id: 'descriptorId' } },
  { method: 'DELETE', route: '/api/descriptors/:id', idOf: { id: 'descriptorId' } },
  // Settings.
  { method: 'GET', route: '/api/companies/:companyId/settings' },
  {
    method: 'POST',
    route: '/api/companies/:companyId/settings',
    body: () => ({ name: 'defaultSwathWidth', value: 1 }),
  },
  { method: 'POST', route: '/api/setting', body: (ids) => ({ settingId: ids.settingId, value: 1 }) },
  {
    method: 'POST',
    route: '/api/setting',
    body: (ids) => ({ companyId: ids.companyId, name: 'defaultSwathWidth', value: 1 }),
  },
  { method: 'POST', route: '/api/settings/table', body: (ids) => ({ companyId: ids.companyId }) },
  { method: 'GET', route: '/api/settings/:settingId' },
  { method: 'DELETE', route: '/api/settings/:settingId' },
  { method: 'DELETE', route: '/api/settings/users/:userId' },
  { method: 'GET', route: '/api/users/:userId/settings' },
  // Equipment scenarios and wheel traffic.
  {
    method: 'POST',
    route: '/api/equipment-scenarios/normalized',
    body: (ids) => ({
      name: 'intruder',
      boundaryIds: [ids.boundaryId],
      scenarios: [{ name: 'x', ...PLAN_REQUEST }],
    }),
  },
  {
    method: 'POST',
    route: '/api/equipment-scenarios',
    body: (ids) => ({ name: 'intruder', boundaryIds: [ids.boundaryId], equipmentIds: [ids.equipmentId] }),
  },
  {
    method: 'POST',
    route: '/api/equipment-scenarios/fields-summary',
    body: (ids) => ({ boundaryIds: [ids.boundaryId] }),
  },
  { method: 'GET', route: '/api/equipment-scenarios/:equipmentScenarioId' },
  { method: 'GET', route: '/api/equipment-scenarios/:equipmentScenarioId/csv' },
  { method: 'POST', route: '/api/equipment-scenarios/:equipmentScenarioId/path-plans', body: () => ({}) },
  {
    method: 'GET',
    route: '/api/equipment-scenarios/normalized/jobs/:jobId',
    idOf: { jobId: 'equipmentScenarioJobId' },
  },
  { method: 'GET', route: '/api/equipment-scenarios/jobs/:jobId', idOf: { jobId: 'equipmentScenarioJobId' } },
  {
    method: 'PUT',
    route: '/api/equipment-scenarios-details/:equipmentScenarioDetailsId/total-cost-of-ownership',
    body: () => ({ fuelPrice: 1 }),
  },
  {
    method: 'POST',
    route: '/api/shares/equipment-scenario',
    body: (ids) => ({ equipmentScenarioId: ids.equipmentScenarioId }),
  },
  { method: 'GET', route: '/api/shares/:shareIdOrCode', idOf: { shareIdOrCode: 'scenarioShareId' } },
  { method: 'DELETE', route: '/api/shares/:shareIdOrCode', idOf: { shareIdOrCode: 'scenarioShareId' } },
  { method: 'POST', route: '/api/wheel-traffic-summary/:pathPlanId/geojson', body: () => ({}) },
  {
    method: 'POST',
    route: '/api/path-plans/:pathPlanId/update-equipment-snapshot',
    body: () => ({ trackWidths: [1.8], tireWidths: [0.5] }),
  },
  // Account.
  { method: 'GET', route: '/api/account/is-confirmed/:userId' },
  { method: 'POST', route: '/api/account/resend-invite/:id', idOf: { id: 'userId' } },
  { method: 'GET', route: '/api/oauth/users/:userId/companies' },
  // Terrain and imagery.
  { method: 'GET', route: '/api/admin/dem-raster/:boundaryId' },
  { method: 'GET', route: '/api/admin/dem-execute/boundary/:boundaryId' },
  { method: 'GET', route: '/api/boundaries/:boundaryId/slope-classes' },
  { method: 'POST', route: '/api/pathplan/:pathPlanId/slopes', body: () => ({}) },
  { method: 'GET', route: '/api/admin/satellite-imagery-processing/:boundaryId' },
  { method: 'GET', route: '/api/boundaries/:boundaryId/ndvi-zones' },
  // Vendor links, transmissions and company sync.
  { method: 'GET', route: '/api/companies-sync/jobs/:jobId' },
  { method: 'POST', route: '/api/companies-sync/error-notification/:jobId', body: () => ({ message: 'x' }) },
  {
    method: 'POST',
    route: '/api/companies/:companyId/vendor-connections/:vendor/authorize',
    body: () => ({ redirectUri: 'https://example.com/cb' }),
  },
  {
    method: 'POST',
    route: '/api/companies/:companyId/vendor-connections/:vendor/callback',
    body: () => ({ code: 'x', state: 'y' }),
  },
  { method: 'GET', route: '/api/companies/:companyId/vendor-connections' },
  { method: 'DELETE', route: '/api/companies/:companyId/vendor-connections/:vendor' },
  { method: 'GET', route: '/api/vendor-c/companies/:companyId/users' },
  { method: 'GET', route: '/api/vendor-b/:userId/company' },
  { method: 'POST', route: '/api/path-plans-export/:batchId/transmit', body: () => ({ vendor: 'vendor-a' }) },
  { method: 'GET', route: '/api/path-plans-export/transmissions/:jobId' },
];

/** Routes with a path parameter that this walk leaves out, and why. */
const NOT_WALKED: Record<string, string> = {
  'GET /api/shares/:code/path-plans-normalized/:pathPlanId':
    'public: the share code is the credential (the shares tests check a code opens only its plan)',
  'GET /api/shares/:code/equipment-scenario':
    'public: the share code is the credential (the scenario tests check a revoked code opens nothing)',
  'POST /api/shares/:code/plans':
    'public: the share code is the credential (geometry-extras tests: a code answers only its plan, unknown codes 404)',
  'POST /api/tokens/:tokenId':
    'the token id is a random value the signing-in device makes, not an id of a resource (account-profile tests)',
  'GET /api/tokens/:tokenId/exchange': 'public: the one-time token is the credential (account-profile tests)',
  'PUT /api/admin/dem-raster/:boundaryId':
    "its body is a GeoTIFF, not JSON (the terrain tests check another company's upload is 404)",
  'GET /api/admin/copy-company/jobs/:jobId': 'platform admins only: 403 for everyone else (admin tests)',
};

let srv: TestServer;
/** `METHOD /route` of every operation in the OpenAPI document (routes being built may not be registered yet). */
const registered = new Set<string>();
let a: Client;
let b: Client;
const ids: Ids = {};

async function ok(ans: Promise<Answer>, status = 200): Promise<Answer> {
  const x = await ans;
  expectOk(x, status);
  return x;
}

async function waitForJob(c: Client, path: string): Promise<Answer> {
  for (let i = 0; i < 600; i++) {
    const x = await c.get(path);
    if (x.json?.status !== 'queued' && x.json?.status !== 'running') return x;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`job ${path} did not finish`);
}

/** What B's calls must leave unchanged: A's records as A reads them. */
async function snapshot(): Promise<unknown[]> {
  const reads = [
    `/api/companies/${ids.companyId}`,
    `/api/companies/${ids.companyId}/summary`,
    `/api/companies/${ids.companyId}/growers/detailed`,
    `/api/growers/${ids.growerId}`,
    `/api/farms/${ids.farmId}`,
    `/api/fields/${ids.fieldId}`,
    `/api/fields/${ids.fieldId}/boundaries`,
    `/api/path-plans/${ids.pathPlanId}/list-item`,
    `/api/path-plan-groups/${ids.pathPlanGroupId}`,
    `/api/shares/${ids.shareId}`,
    '/api/user-api-keys',
  ];
  if (ids.equipmentId) reads.push(`/api/equipment/${ids.equipmentId}`);
  if (ids.operatorId) reads.push(`/api/operators/${ids.operatorId}`);
  if (ids.userFileId) reads.push(`/api/user-files/${ids.userFileId}/metadata`);
  if (ids.userLabelId) reads.push(`/api/user-labels/${ids.userLabelId}`);
  if (ids.fieldOpId) reads.push(`/api/fields/${ids.fieldId}/operations/${ids.fieldOpId}`);
  if (ids.descriptorId) reads.push(`/api/descriptors/${ids.descriptorId}`);
  if (ids.notificationId) reads.push('/api/notifications');
  if (ids.settingId) reads.push(`/api/settings/${ids.settingId}`, `/api/users/${ids.userId}/settings`);
  if (ids.equipmentScenarioId)
    reads.push(`/api/equipment-scenarios/${ids.equipmentScenarioId}`, `/api/shares/${ids.scenarioShareId}`);
  const out: unknown[] = [];
  for (const p of reads) out.push({ p, body: (await ok(a.get(p))).json });
  return out;
}

beforeAll(async () => {
  srv = await startTestServer({ rateLimitPerMin: 100_000 });
  const ka = await testKey({ credits: 1000 });
  const kb = await testKey({ credits: 1000 });
  a = client(srv.url, { key: ka.key });
  b = client(srv.url, { key: kb.key });
  const doc = (await ok(a.get('/api/openapi.json'))).json as {
    paths: Record<string, Record<string, unknown>>;
  };
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const m of Object.keys(ops))
      registered.add(`${m.toUpperCase()} ${p.replace(/\{([^}]+)\}/g, ':$1')}`);
  }
  const has = (key: string) => registered.has(key);
  ids.companyId = ka.companyId;
  ids.id = ka.keyId;
  ids.userId = ka.userId;
  ids.vendor = 'vendor-a';
  ids.growerId = (
    await ok(a.post(`/api/companies/${ids.companyId}/growers`, { name: 'A grower' }), 201)
  ).json.growerId;
  ids.farmId = (await ok(a.post(`/api/growers/${ids.growerId}/farms`, { name: 'A farm' }), 201)).json.farmId;
  const saved = (
    await ok(a.post('/api/fields/save', { farmId: ids.farmId, name: 'A field', boundary: RINGS }), 201)
  ).json;
  ids.fieldId = saved.field.fieldId;
  ids.boundaryId = saved.vBoundary.boundaryId;

  const job = (await ok(a.post('/api/guidance', { boundaryId: ids.boundaryId, request: PLAN_REQUEST }), 202))
    .json;
  ids.jobId = job.jobId;
  const done = await waitForJob(a, `/api/guidance/jobs/${ids.jobId}`);
  expect(done.json.status, done.text).toBe('completed');
  ids.pathPlanId = done.json.pathPlanIds[0];
  const model = (await ok(a.get(`/api/path-plans-normalized/${ids.pathPlanId}`))).json;
  ids.pathPlanZoneId = model.zones[0].zoneId;
  ids.geometryGroupId = model.zones[0].geometryGroups[0].geometryGroupId;
  for (const [name, path, body, poll] of [
    [
      'headlandsJobId',
      '/api/guidance/headlands',
      { boundaryId: ids.boundaryId, request: PLAN_REQUEST },
      '/api/guidance/jobs',
    ],
    [
      'postprocessJobId',
      '/api/guidance/postprocess',
      { pathPlanId: ids.pathPlanId },
      '/api/guidance/post-processing-jobs',
    ],
    ['routeJobId', '/api/routes', { pathPlanId: ids.pathPlanId }, '/api/routes/jobs'],
  ] as const) {
    ids[name] = (await ok(a.post(path, body), 202)).json.jobId;
    expect((await waitForJob(a, `${poll}/${ids[name]}`)).json.status).toBe('completed');
  }
  const routes = (await ok(a.get(`/api/path-plans/${ids.pathPlanId}/routes`))).json;
  ids.routeId = routes[0].routeId;
  ids.pathPlanGroupId = (
    await ok(
      a.post('/api/path-plan-groups/group-plans', { name: 'A group', pathPlanIds: [ids.pathPlanId] }),
      201,
    )
  ).json.pathPlanGroupId;
  const exp = (
    await ok(a.post('/api/path-plans-export', { pathPlanIds: [ids.pathPlanId], format: 'geojson' }), 202)
  ).json;
  const expDone = await waitForJob(a, `/api/path-plans-export/jobs/${exp.jobId}`);
  ids.batchId = expDone.json.batchId;
  const shared = await ok(a.post('/api/shares/path-plan', { pathPlanId: ids.pathPlanId }), 201);
  const share = shared.json;
  ids.eventBatchId = shared.headers.get('x-correlation-id')!;
  ids.companyAccessId = (await ok(a.get(`/api/users/${ids.userId}/company-accesses`))).json.items[0].id;
  ids.shareId = share.shareId;
  ids.shareIdOrCode = share.shareId;
  ids.code = share.code;

  if (has('POST /api/equipment')) {
    ids.equipmentId = (
      await ok(a.post('/api/equipment', { companyId: ids.companyId, ...MACHINE }), 201)
    ).json.equipmentId;
  }
  if (has('POST /api/operators')) {
    ids.operatorId = (
      await ok(a.post('/api/operators', { companyId: ids.companyId, name: 'Jens' }), 201)
    ).json.operatorId;
  }
  if (has('POST /api/companies/:companyId/user-files/file-upload')) {
    ids.userFileId = (
      await ok(
        a.call(`/api/companies/${ids.companyId}/user-files/file-upload`, {
          method: 'POST',
          raw: JSON.stringify(FILE),
          type: 'application/geo+json',
        }),
        201,
      )
    ).json.userFileId;
  }
  if (has('POST /api/user-labels')) {
    ids.userLabelId = (await ok(a.post('/api/user-labels', { name: 'A label' }), 201)).json.userLabelId;
  }
  if (has('POST /api/field-operations/start')) {
    ids.fieldOpId = (
      await ok(
        a.post('/api/field-operations/start', {
          fieldId: ids.fieldId,
          boundaryId: ids.boundaryId,
          operationType: 'spraying',
          swathWidth: 6,
        }),
        201,
      )
    ).json.fieldOpId;
  }
  if (has('DELETE /api/notifications/:id')) {
    ids.notificationId = (await ok(a.get('/api/notifications'))).json.items[0].notificationId;
  }
  if (has('POST /api/descriptors')) {
    ids.descriptorId = (
      await ok(
        a.post('/api/descriptors', {
          objectType: 'field',
          objectId: ids.fieldId,
          name: 'crop',
          valueType: 'text',
          value: 'wheat',
        }),
        201,
      )
    ).json.descriptorId;
  }
  if (has('POST /api/companies/:companyId/settings')) {
    ids.settingId = (
      await ok(
        a.post(`/api/companies/${ids.companyId}/settings`, { name: 'defaultSwathWidth', value: 24 }),
        201,
      )
    ).json.settingId;
    await ok(a.post('/api/user-settings', { name: 'language', value: 'da' }), 201);
  }
  if (has('POST /api/equipment-scenarios/normalized')) {
    const post = (
      await ok(
        a.post('/api/equipment-scenarios/normalized', {
          name: 'A comparison',
          boundaryIds: [ids.boundaryId],
          scenarios: [{ name: 'A machine', ...PLAN_REQUEST }],
        }),
        202,
      )
    ).json;
    ids.equipmentScenarioJobId = post.jobId;
    const done = await waitForJob(a, `/api/equipment-scenarios/normalized/jobs/${post.jobId}`);
    ids.equipmentScenarioId = done.json.equipmentScenarioId;
    const set = (await ok(a.get(`/api/equipment-scenarios/${ids.equipmentScenarioId}`))).json;
    ids.equipmentScenarioDetailsId = set.scenarios[0].equipmentScenarioDetailsId;
    ids.scenarioShareId = (
      await ok(
        a.post('/api/shares/equipment-scenario', { equipmentScenarioId: ids.equipmentScenarioId }),
        201,
      )
    ).json.shareId;
  }
});
afterAll(async () => {
  await srv?.close();
});

const fill = (route: string, idOf: Record<string, string> = {}) =>
  route.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const id = ids[idOf[name] ?? name];
    if (!id) throw new Error(`The walk has no id for :${name}; make one in beforeAll.`);
    return id;
  });

describe('tenant isolation', () => {
  it("answers 404 to another company's key on every endpoint that takes an id, and changes nothing", async () => {
    const before = await snapshot();
    const failures: string[] = [];
    for (const w of WALK) {
      if (!registered.has(`${w.method} ${w.route}`)) continue;
      const path = fill(w.route, w.idOf) + (w.query ?? '');
      const ans = await b.call(path, { method: w.method, body: w.body?.(ids) });
      if (ans.status !== 404 || ans.json?.errorCode !== 'NOT_FOUND')
        failures.push(`${w.method} ${w.route}: ${ans.status} ${ans.text.slice(0, 200)}`);
      else expectError(ans, 404, 'NOT_FOUND');
    }
    expect(failures).toEqual([]);
    expect(await snapshot()).toEqual(before);
    // A still reaches all of it.
    expectOk(await a.get(`/api/boundaries/${ids.boundaryId}/wkt`));
  });

  it('walks every /api route with a path parameter (add new ones to WALK)', async () => {
    const doc = (await ok(a.get('/api/openapi.json'))).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    const walked = new Set(WALK.map((w) => `${w.method} ${w.route}`));
    const missing: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      if (!p.startsWith('/api/') || !p.includes('{')) continue;
      const route = p.replace(/\{([^}]+)\}/g, ':$1');
      for (const m of Object.keys(ops)) {
        const key = `${m.toUpperCase()} ${route}`;
        if (
          ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].includes(m.toUpperCase()) &&
          !walked.has(key) &&
          !NOT_WALKED[key]
        )
          missing.push(key);
      }
    }
    expect(missing).toEqual([]);
  });
});
