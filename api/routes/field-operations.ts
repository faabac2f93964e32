/**
 * Field operations (spec 4.4, "Field operations"): the record of work done
 * on a field, against its plan.
 *   POST /api/field-operations/start                         start one (201)
 *   POST /api/field-operations/{fieldOpId}/log               positions, in batches, any order, idempotent per time
 *   POST /api/field-operations/{fieldOpId}                   status (completed, cancelled) and notes
 *   GET  /api/fields/{fieldId}/operations                    a field's operations (paged, filtered)
 *   GET  /api/fields/{fieldId}/operations/{opId}             one, with the deviation per planned track
 *   GET  /api/companies/{companyId}/operations               a company's operations
 *   POST /api/companies/{companyId}/field-operations/table   the table (paging; filters by date, type, status, field)
 *   POST /api/companies/{companyId}/field-operations/export  CSV of the figures or GeoJSON of the covered ground
 * Coverage is measured from the working positions and the swath against the
 * boundary (core/coverage) on every log call, so figures read afterwards
 * are current.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { multiPolygonArea } from '../../core/geometry/polygon.ts';
import {
  columnsOf,
  coveredGeometry,
  measureOperation,
  type PreparedContext,
  prepareContext,
} from '../../formats/field-operation-log.ts';
import { csvCell } from '../../formats/plan-csv.ts';
import type { Store } from '../../store/db.ts';
import { createEquipmentRepository, createOperatorsRepository } from '../../store/repositories/equipment.ts';
import {
  createFieldOperationsRepository,
  type FieldOperationRecord,
  type OperationFilter,
  type OperationOutcome,
} from '../../store/repositories/field-operations.ts';
import { createPathPlansRepository } from '../../store/repositories/path-plans.ts';
import { ApiError, validationError } from '../errors.ts';
import {
  answers,
  idParams,
  ifMatchHeaders,
  ifMatchVersion,
  notFound,
  preconditionFailed,
  principalOf,
  requireCompany,
  setEtag,
} from './common.ts';
import {
  FieldOperation,
  FieldOperationDetail,
  FieldOperationExportRequest,
  FieldOperationPage,
  FieldOperationTableRequest,
  type FilterBody,
  ListQuery,
  LogFieldOperationRequest,
  LogFieldOperationResponse,
  MAX_GEOJSON_EXPORT,
  OPERATION_CSV_COLUMNS,
  operationCsvRow,
  operationDetail,
  operationView,
  StartFieldOperationRequest,
  UpdateFieldOperationRequest,
} from './field-operation-models.ts';

const MAX_CSV_EXPORT = 10_000;
/** Measuring contexts kept (operations logging at the same time on this process). */
const MAX_CONTEXTS = 64;

function filterOf(b: FilterBody): OperationFilter {
  return {
    fieldIds: b.fieldIds,
    operationTypes: b.operationTypes,
    statuses: b.statuses,
    from: b.from ? new Date(b.from) : undefined,
    to: b.to ? new Date(b.to) : undefined,
  };
}

export async function fieldOperationRoutes(appBase: FastifyInstance, opts: { store: Store }): Promise<void> {
  const app = appBase.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const ops = createFieldOperationsRepository(store.db);
  const plans = createPathPlansRepository(store.db);
  const machines = createEquipmentRepository(store.db);
  const drivers = createOperatorsRepository(store.db);
  const tags = ['Field operations'];

  const unwrap = (out: OperationOutcome, id: string): FieldOperationRecord => {
    if (out.ok) return out.value;
    if (out.reason === 'stale') throw preconditionFailed('field operation', id, out.currentVersion);
    if (out.reason === 'closed') {
      throw new ApiError(
        409,
        'CONFLICT',
        `The field operation ${id} is ${out.status}; positions are logged only while it is inProgress.`,
      );
    }
    throw notFound('field operation', id);
  };

  /**
   * The boundary and plan of an operation in one metric frame, kept for the
   * next batches while neither changes (a plan's model is decoded once, not
   * on every log call).
   */
  const contexts = new Map<string, { key: string; ctx: PreparedContext }>();
  const contextOf = async (userId: string, op: FieldOperationRecord): Promise<PreparedContext> => {
    const boundary = await store.hierarchy.getBoundary(userId, op.boundaryId);
    if (!boundary) throw notFound('boundary', op.boundaryId);
    const planVersion = op.pathPlanId ? await ops.planVersion(op.pathPlanId) : null;
    const key = `${boundary.version}:${planVersion}:${op.pathPlanId}:${op.swathWidth}`;
    const hit = contexts.get(op.id);
    if (hit?.key === key) return hit.ctx;
    const plan = op.pathPlanId ? await plans.get(userId, op.pathPlanId) : null;
    const ctx = prepareContext({ rings: boundary.rings, swathWidth: op.swathWidth, plan: plan?.model });
    contexts.delete(op.id);
    contexts.set(op.id, { key, ctx });
    // The operations logging now; the oldest used go first.
    if (contexts.size > MAX_CONTEXTS) contexts.delete(contexts.keys().next().value as string);
    return ctx;
  };

  /** A page of the list endpoints (query: offset, limit, from, to, operationType, status). */
  const listPage = async (
    where: { companyId: string } | { fieldId: string },
    q: Static<typeof ListQuery>,
  ) => {
    const page = await ops.list(
      where,
      filterOf({
        from: q.from,
        to: q.to,
        operationTypes: q.operationType ? [q.operationType] : undefined,
        statuses: q.status ? [q.status] : undefined,
      }),
      { offset: Number(q.offset ?? 0), limit: Number(q.limit ?? 100) },
    );
    return { items: page.items.map(operationView), total: page.total };
  };

  /** Ids of the filter that are not fields of the company answer 404, as anywhere. */
  const checkFieldIds = async (userId: string, companyId: string, ids: readonly string[] | undefined) => {
    for (const id of new Set(ids ?? [])) {
      const f = await store.hierarchy.getField(userId, id);
      if (!f || f.companyId !== companyId) throw notFound('field', id);
    }
  };

  app.post(
    '/api/field-operations/start',
    {
      schema: {
        tags,
        summary: 'Start a field operation',
        description:
          'Starts recording work on a field: coverage is measured against `boundaryId` (a boundary of the field) with the swath of `swathWidth`, else of the equipment, else of the linked plan (400 when none gives one). With `pathPlanId` (a plan of the same field) the deviation from each planned track is measured too. Ids you cannot access answer 404.',
        body: StartFieldOperationRequest,
        response: answers(
          { 201: { schema: FieldOperation, description: 'Started (status inProgress).' } },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const b = req.body;
      const field = await store.hierarchy.getField(userId, b.fieldId);
      if (!field) throw notFound('field', b.fieldId);
      const boundary = await store.hierarchy.getBoundary(userId, b.boundaryId);
      if (!boundary) throw notFound('boundary', b.boundaryId);
      if (boundary.fieldId !== field.fieldId) {
        throw validationError([
          { path: '/boundaryId', message: `must be a boundary of field ${field.fieldId}` },
        ]);
      }
      const plan = b.pathPlanId ? await plans.get(userId, b.pathPlanId) : null;
      if (b.pathPlanId && !plan) throw notFound('plan', b.pathPlanId);
      if (plan && plan.fieldId !== null && plan.fieldId !== field.fieldId) {
        throw validationError([{ path: '/pathPlanId', message: `must be a plan of field ${field.fieldId}` }]);
      }
      const machine = b.equipmentId ? await machines.get(userId, b.equipmentId) : null;
      if (b.equipmentId && (!machine || machine.companyId !== field.companyId))
        throw notFound('equipment', b.equipmentId);
      if (b.operatorId) {
        const d = await drivers.get(userId, b.operatorId);
        if (!d || d.companyId !== field.companyId) throw notFound('operator', b.operatorId);
      }
      const swathWidth = b.swathWidth ?? machine?.swathWidth ?? plan?.model.equipment?.swathWidth;
      if (!swathWidth || !(swathWidth > 0)) {
        throw validationError([
          {
            path: '/swathWidth',
            message:
              'is needed when neither the equipment nor a linked plan gives a swath width (metres, > 0)',
          },
        ]);
      }
      // Nothing covered yet: the whole boundary is missed.
      const fieldArea = multiPolygonArea(prepareContext({ rings: boundary.rings, swathWidth }).field);
      const made = await ops.start(field.companyId, {
        fieldId: field.fieldId,
        boundaryId: boundary.boundaryId,
        pathPlanId: plan?.id ?? null,
        operationType: b.operationType,
        equipmentId: machine?.id ?? null,
        operatorId: b.operatorId ?? null,
        swathWidth,
        startedAt: b.startedAt ? new Date(b.startedAt) : new Date(),
        notes: b.notes ?? null,
        fieldArea,
        missedArea: fieldArea,
      });
      setEtag(reply, made.version);
      return reply.code(201).send(operationView(made));
    },
  );

  app.post(
    '/api/field-operations/:fieldOpId/log',
    {
      schema: {
        tags,
        summary: 'Log positions of a field operation',
        description:
          'Stores a batch of positions and measures the coverage again from all of them before answering, so lists read afterwards are current. Batches may come in any order and overlap: a position at a time already logged is ignored (counted in `duplicates`). Only while the operation is inProgress (409 otherwise).',
        params: idParams('fieldOpId'),
        body: LogFieldOperationRequest,
        response: answers(
          { 200: { schema: LogFieldOperationResponse, description: 'Stored and measured.' } },
          400,
          404,
          409,
        ),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const id = req.params.fieldOpId;
      const op = await ops.get(userId, id);
      if (!op) throw notFound('field operation', id);
      const ctx = await contextOf(userId, op);
      const fresh = columnsOf(req.body.points.map((p) => ({ ...p, t: Date.parse(p.t) })));
      const out = await ops.appendLog(userId, id, fresh, (_op, all) => measureOperation(ctx, all).figures);
      const now = unwrap(out, id);
      setEtag(reply, now.version);
      return { accepted: out.accepted ?? 0, duplicates: out.duplicates ?? 0, operation: operationView(now) };
    },
  );

  app.post(
    '/api/field-operations/:fieldOpId',
    {
      schema: {
        tags,
        summary: 'Change the status or notes of a field operation',
        description:
          'Ends an operation (`completed`, `cancelled`; `endedAt` defaults to now) or changes its notes. If-Match honoured.',
        params: idParams('fieldOpId'),
        headers: ifMatchHeaders,
        body: UpdateFieldOperationRequest,
        response: answers({ 200: { schema: FieldOperation, description: 'Changed.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.fieldOpId;
      const { endedAt, ...rest } = req.body;
      if (endedAt && !rest.status) {
        throw validationError([{ path: '/endedAt', message: 'is given only with status' }]);
      }
      const out = await ops.update(
        principalOf(req).userId,
        id,
        { ...rest, endedAt: endedAt ? new Date(endedAt) : undefined },
        ifMatchVersion(req),
      );
      const now = unwrap(out, id);
      setEtag(reply, now.version);
      return operationView(now);
    },
  );

  app.get(
    '/api/fields/:fieldId/operations',
    {
      schema: {
        tags,
        summary: 'Operations of a field',
        description: 'Newest start first; filtered by start time, type and status.',
        params: idParams('fieldId'),
        querystring: ListQuery,
        response: answers({ 200: { schema: FieldOperationPage, description: 'A page.' } }, 400, 404),
      },
    },
    async (req) => {
      const field = await store.hierarchy.getField(principalOf(req).userId, req.params.fieldId);
      if (!field) throw notFound('field', req.params.fieldId);
      return listPage({ fieldId: field.fieldId }, req.query);
    },
  );

  app.get(
    '/api/fields/:fieldId/operations/:opId',
    {
      schema: {
        tags,
        summary: 'A field operation with its deviation per planned track',
        params: idParams('fieldId', 'opId'),
        response: answers({ 200: { schema: FieldOperationDetail, description: 'The operation.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const op = await ops.get(principalOf(req).userId, req.params.opId);
      if (!op || op.fieldId !== req.params.fieldId) throw notFound('field operation', req.params.opId);
      setEtag(reply, op.version);
      return operationDetail(op);
    },
  );

  app.get(
    '/api/companies/:companyId/operations',
    {
      schema: {
        tags,
        summary: 'Operations of a company',
        description: 'Newest start first; filtered by start time, type and status.',
        params: idParams('companyId'),
        querystring: ListQuery,
        response: answers({ 200: { schema: FieldOperationPage, description: 'A page.' } }, 400, 404),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      return listPage({ companyId: req.params.companyId }, req.query);
    },
  );

  app.post(
    '/api/companies/:companyId/field-operations/table',
    {
      schema: {
        tags,
        summary: 'A page of a company’s field operations',
        description:
          'Newest start first; filters by start time (`from` inclusive, `to` exclusive), operation types, statuses and fields (fields of another company answer 404).',
        params: idParams('companyId'),
        body: FieldOperationTableRequest,
        response: answers({ 200: { schema: FieldOperationPage, description: 'A page.' } }, 400, 404),
      },
    },
    async (req) => {
      const companyId = req.params.companyId;
      await requireCompany(store, req, companyId);
      await checkFieldIds(principalOf(req).userId, companyId, req.body.fieldIds);
      const page = await ops.list({ companyId }, filterOf(req.body), {
        offset: req.body.offset ?? 0,
        limit: req.body.limit ?? 100,
      });
      return { items: page.items.map(operationView), total: page.total };
    },
  );

  app.post(
    '/api/companies/:companyId/field-operations/export',
    {
      schema: {
        tags,
        summary: 'Export field operations (CSV or GeoJSON of the coverage)',
        description: `csv: text/csv (RFC 4180, CRLF) with the columns ${OPERATION_CSV_COLUMNS.join(', ')} (SI units). geojson: a FeatureCollection with, per operation, a MultiPolygon Feature of the covered ground (properties: the operation's figures, \`kind: "covered"\`) and a MultiLineString Feature of the working runs as driven (\`kind: "driven"\`). Ids of another company answer 404.`,
        params: idParams('companyId'),
        body: FieldOperationExportRequest,
        response: {
          200: {
            description: 'The export.',
            content: {
              'text/csv': { schema: { type: 'string' } },
              'application/geo+json': { schema: { type: 'object' } },
            },
          },
          ...answers({}, 400, 404, 422),
        },
      },
    },
    async (req, reply) => {
      const companyId = req.params.companyId;
      const userId = principalOf(req).userId;
      await requireCompany(store, req, companyId);
      const b = req.body;
      await checkFieldIds(userId, companyId, b.fieldIds);
      let items: FieldOperationRecord[];
      if (b.fieldOpIds) {
        items = [];
        for (const id of new Set(b.fieldOpIds)) {
          const op = await ops.get(userId, id);
          if (!op || op.companyId !== companyId) throw notFound('field operation', id);
          items.push(op);
        }
      } else {
        const limit = b.format === 'csv' ? MAX_CSV_EXPORT : MAX_GEOJSON_EXPORT;
        const page = await ops.list({ companyId }, filterOf(b), { offset: 0, limit: limit + 1 });
        items = page.items;
      }
      const max = b.format === 'csv' ? MAX_CSV_EXPORT : MAX_GEOJSON_EXPORT;
      if (items.length > max) {
        throw new ApiError(
          422,
          'EXPORT_TOO_LARGE',
          `The export selects more than ${max} operations; at most ${max} are exported as ${b.format}. Narrow the filters or name fieldOpIds.`,
        );
      }
      if (b.format === 'csv') {
        const lines = [
          OPERATION_CSV_COLUMNS.join(','),
          ...items.map((o) => operationCsvRow(o).map(csvCell).join(',')),
        ];
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="field-operations.csv"');
        return reply.send(`${lines.join('\r\n')}\r\n`);
      }
      const features: unknown[] = [];
      for (const op of items) {
        const ctx = await contextOf(userId, op);
        const positions = await ops.positions(userId, op.id);
        if (!positions) continue;
        const m = measureOperation(ctx, positions, true);
        const properties = operationView(op);
        features.push({
          type: 'Feature',
          geometry: coveredGeometry(ctx, m.coverage),
          properties: { ...properties, kind: 'covered' },
        });
        features.push({
          type: 'Feature',
          geometry: {
            type: 'MultiLineString',
            coordinates: m.coverage.runs.map((run) => run.map((p) => ctx.frame.toLonLat(p))),
          },
          properties: { fieldOpId: op.id, kind: 'driven' },
        });
      }
      reply
        .header('content-type', 'application/geo+json; charset=utf-8')
        .header('content-disposition', 'attachment; filename="field-operations.geojson"');
      return reply.send(JSON.stringify({ type: 'FeatureCollection', features }));
    },
  );
}
