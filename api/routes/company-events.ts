/**
 * The audit log of a company (written by api/auth/company-roles.ts after
 * every successful write; clients may add their own events):
 *   POST /api/company-events                      add an event of the caller
 *   GET  /api/company-events/{companyId}          a company's events, newest first, paged
 *   GET  /api/company-events/{batchId}/company    the events of one batch (correlation id)
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { CompanyEventRecord } from '../../store/repositories/company-events.ts';
import { ApiError, validationError } from '../errors.ts';
import { answers, idParams, iso, principalOf, Timestamp, Uuid } from './common.ts';

const tags = ['Company access'];

const BATCH_ID = '^[A-Za-z0-9._:-]{1,128}$';

export const CompanyEvent = Type.Object(
  {
    eventId: Uuid('The event.'),
    companyId: Uuid('The company.'),
    userId: Type.Union([Uuid('Who did it.'), Type.Null()], { description: 'null once the user is deleted.' }),
    userEmail: Type.Union([Type.String(), Type.Null()]),
    batchId: Type.String({
      description:
        'The correlation id of the request (send one X-Correlation-Id over several calls to group them).',
    }),
    action: Type.String({ description: "'create', 'update', 'delete', 'action', or a client's own kind." }),
    method: Type.String(),
    route: Type.String({ description: 'The route, e.g. /api/growers/{growerId}.' }),
    objectId: Type.Union([Type.String(), Type.Null()], { description: 'The object acted on, when known.' }),
    status: Type.Integer({ description: 'The HTTP status of the answer.' }),
    details: Type.Optional(Type.Unknown({ description: 'What a client-written event told.' })),
    createdAt: Timestamp,
  },
  { $id: 'CompanyEvent', title: 'CompanyEvent' },
);

const EventList = Type.Object(
  {
    items: Type.Array(CompanyEvent),
    nextBefore: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `before` for the next (older) page; null on the last page.',
    }),
  },
  { $id: 'CompanyEventList', title: 'CompanyEventList' },
);

const NewEvent = Type.Object(
  {
    companyId: Uuid('The company.'),
    action: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9._:-]+$',
      description: 'The kind of event.',
    }),
    objectId: Type.Optional(Type.String({ maxLength: 200, description: 'What it is about.' })),
    details: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Any JSON object, at most 16 KB.' }),
    ),
  },
  { additionalProperties: false, $id: 'CompanyEventRequest', title: 'CompanyEventRequest' },
);

const PageQuery = Type.Object(
  {
    before: Type.Optional(Uuid('Events older than this event (from nextBefore).')),
    limit: Type.Optional(
      Type.String({
        pattern: '^([1-9][0-9]{0,2}|1000)$',
        description: 'Whole number 1 to 1000, default 100.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const eventBody = (e: CompanyEventRecord) => ({
  eventId: e.id,
  companyId: e.companyId,
  userId: e.userId,
  userEmail: e.userEmail,
  batchId: e.batchId,
  action: e.action,
  method: e.method,
  route: e.route,
  objectId: e.objectId,
  status: e.status,
  ...(e.details === null || e.details === undefined ? {} : { details: e.details }),
  createdAt: iso(e.createdAt),
});

export async function companyEventRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;

  r.post(
    '/api/company-events',
    {
      schema: {
        tags,
        summary: 'Add an event to a company’s log',
        description:
          'For what the service cannot see (an export opened in a terminal, a plan printed). Admins and editors; the batch is the request’s correlation id.',
        body: NewEvent,
        response: answers({ 201: { schema: CompanyEvent, description: 'The event.' } }, 400, 403, 404),
      },
    },
    async (req, reply) => {
      const b = req.body;
      if (b.details !== undefined && JSON.stringify(b.details).length > 16_384) {
        throw validationError([{ path: '/details', message: 'is larger than 16 KB' }]);
      }
      const p = principalOf(req);
      const [made] = await store.companyEvents.record([
        {
          companyId: b.companyId,
          userId: p.userId,
          batchId: req.id,
          action: b.action,
          method: req.method,
          route: '/api/company-events',
          objectId: b.objectId ?? null,
          status: 201,
          details: b.details,
        },
      ]);
      const [e] = (await store.companyEvents.ofBatch(p.userId, req.id)).filter((x) => x.id === made);
      return reply.code(201).send(eventBody(e));
    },
  );

  r.get(
    '/api/company-events/:companyId',
    {
      schema: {
        tags,
        summary: "A company's events",
        description: 'Newest first; page with `before` (nextBefore of the previous page).',
        params: idParams('companyId'),
        querystring: PageQuery,
        response: answers({ 200: { schema: EventList, description: 'A page of events.' } }, 400, 404),
      },
    },
    async (req) => {
      const limit = Number(req.query.limit ?? 100);
      const items = await store.companyEvents.ofCompany(principalOf(req).userId, req.params.companyId, {
        before: req.query.before,
        limit,
      });
      return {
        items: items.map(eventBody),
        nextBefore: items.length === limit ? items[items.length - 1].id : null,
      };
    },
  );

  r.get(
    '/api/company-events/:batchId/company',
    {
      schema: {
        tags,
        summary: 'The events of one batch',
        description:
          'Every event written under one correlation id (a batch), in the companies the caller can access; oldest first. 404 when there is none.',
        params: Type.Object(
          { batchId: Type.String({ pattern: BATCH_ID, description: 'The batch (correlation) id.' }) },
          { additionalProperties: false },
        ),
        response: answers({ 200: { schema: EventList, description: 'The events.' } }, 400, 404),
      },
    },
    async (req) => {
      const items = await store.companyEvents.ofBatch(principalOf(req).userId, req.params.batchId);
      if (items.length === 0) {
        throw new ApiError(404, 'NOT_FOUND', `No batch ${req.params.batchId} in a company you can access.`);
      }
      return { items: items.map(eventBody), nextBefore: null };
    },
  );
}
