/**
 * Notifications and analytics events (spec 4.4, "Analytics, notifications, lookup"):
 *   GET    /api/notifications          the caller's notifications, unread first (paged; markRead=true marks the page read)
 *   DELETE /api/notifications/{id}     delete one of them
 *   POST   /api/analytics-events       client events for the operator's reporting (bounded, rate limited)
 * Notifications are written where things happen: a job of the user's ends
 * (store/repositories/jobs.ts), a share of theirs is opened (shares.ts),
 * access to a company is granted (partner.ts).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import {
  createNotificationsRepository,
  type NotificationRecord,
} from '../../store/repositories/notifications.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, idParams, iso, notFound, principalOf, Timestamp, Uuid } from './common.ts';

/** Events per request, and the size of one event's properties as JSON [bytes]. */
export const MAX_EVENTS_PER_REQUEST = 50;
export const MAX_EVENT_PROPERTIES_BYTES = 4096;
/** Default requests per minute and user to /api/analytics-events. */
export const DEFAULT_ANALYTICS_PER_MIN = 60;

const Notification = named(
  'Notification',
  Type.Object({
    notificationId: Uuid('The notification id.'),
    kind: Type.Union(
      [
        Type.Literal('jobCompleted'),
        Type.Literal('jobFailed'),
        Type.Literal('shareOpened'),
        Type.Literal('accessGranted'),
      ],
      { description: 'What happened.' },
    ),
    message: Type.String(),
    companyId: Type.Union([Uuid('The company it concerns.'), Type.Null()]),
    data: Type.Record(Type.String(), Type.String(), {
      description: 'Ids it is about: jobId and jobKind, shareId and pathPlanId, companyId and role.',
    }),
    read: Type.Boolean(),
    readAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
  }),
);

const NotificationPage = named(
  'NotificationPage',
  Type.Object({
    items: Type.Array(Notification),
    total: Type.Integer(),
    unread: Type.Integer({ description: 'Unread notifications in all (before markRead).' }),
  }),
);

const AnalyticsEventsRequest = named(
  'AnalyticsEventsRequest',
  Type.Object(
    {
      events: Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:/-]+$' }),
            properties: Type.Optional(
              Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
                description: `Free-form; at most ${MAX_EVENT_PROPERTIES_BYTES} bytes as JSON.`,
              }),
            ),
            occurredAt: Type.Optional(Type.String({ format: 'date-time' })),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: MAX_EVENTS_PER_REQUEST },
      ),
    },
    { additionalProperties: false },
  ),
);

const AnalyticsEventsAccepted = named(
  'AnalyticsEventsAccepted',
  Type.Object({ accepted: Type.Integer({ description: 'Events stored.' }) }),
);

const view = (n: NotificationRecord) => ({
  notificationId: n.id,
  kind: n.kind as 'jobCompleted' | 'jobFailed' | 'shareOpened' | 'accessGranted',
  message: n.message,
  companyId: n.companyId,
  data: n.data,
  read: n.readAt !== null,
  readAt: n.readAt ? iso(n.readAt) : null,
  createdAt: iso(n.createdAt),
});

export async function notificationRoutes(
  appBase: FastifyInstance,
  opts: { store: Store; analyticsPerMin?: number },
): Promise<void> {
  const app = appBase.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const repo = createNotificationsRepository(store.db);
  const perMin = opts.analyticsPerMin ?? DEFAULT_ANALYTICS_PER_MIN;

  app.get(
    '/api/notifications',
    {
      schema: {
        tags: ['Notifications'],
        summary: 'My notifications, unread first',
        description:
          'The caller’s notifications: unread first, newest first within each. `markRead=true` marks the notifications of this page read once answered (the answer shows them as they were).',
        querystring: Type.Object(
          {
            offset: Type.Optional(
              Type.String({ pattern: '^[0-9]{1,7}$', description: 'Whole number, default 0.' }),
            ),
            limit: Type.Optional(
              Type.String({
                pattern: '^(1000|[1-9][0-9]{0,2})$',
                description: 'Whole number 1..1000, default 50.',
              }),
            ),
            markRead: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
          },
          { additionalProperties: false },
        ),
        response: answers({ 200: { schema: NotificationPage, description: 'A page.' } }, 400),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const page = await repo.list(userId, {
        offset: Number(req.query.offset ?? 0),
        limit: Number(req.query.limit ?? 50),
      });
      if (req.query.markRead === 'true')
        await repo.markRead(
          userId,
          page.items.map((n) => n.id),
        );
      return { items: page.items.map(view), total: page.total, unread: page.unread };
    },
  );

  app.delete(
    '/api/notifications/:id',
    {
      schema: {
        tags: ['Notifications'],
        summary: 'Delete a notification',
        params: idParams('id'),
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      if (!(await repo.remove(principalOf(req).userId, req.params.id)))
        throw notFound('notification', req.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/analytics-events',
    {
      schema: {
        tags: ['Notifications'],
        summary: 'Record client events',
        description: `Stores up to ${MAX_EVENTS_PER_REQUEST} events (name, free-form properties of at most ${MAX_EVENT_PROPERTIES_BYTES} bytes as JSON, the time the client saw it) for the operator's reporting. At most ${perMin} calls per minute and user (429 RATE_LIMIT_EXCEEDED with Retry-After beyond).`,
        body: AnalyticsEventsRequest,
        response: answers({ 202: { schema: AnalyticsEventsAccepted, description: 'Stored.' } }, 400, 413),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const events = req.body.events;
      events.forEach((e, i) => {
        const bytes = Buffer.byteLength(JSON.stringify(e.properties ?? {}));
        if (bytes > MAX_EVENT_PROPERTIES_BYTES) {
          throw new ApiError(
            413,
            'EVENT_TOO_LARGE',
            `/events/${i}/properties is ${bytes} bytes as JSON; at most ${MAX_EVENT_PROPERTIES_BYTES} are accepted.`,
            {
              errors: [
                {
                  path: `/events/${i}/properties`,
                  message: `must be at most ${MAX_EVENT_PROPERTIES_BYTES} bytes as JSON`,
                },
              ],
            },
          );
        }
      });
      const hit = await store.rateLimits.hit(`analytics:${p.userId}`, 60);
      if (hit.count > perMin) {
        throw new ApiError(
          429,
          'RATE_LIMIT_EXCEEDED',
          `At most ${perMin} analytics calls per minute are accepted; retry after ${hit.resetSeconds} s.`,
          { retryAfterSeconds: hit.resetSeconds },
          { 'retry-after': String(hit.resetSeconds) },
        );
      }
      const companyId = (await store.companies.role(p.userId, p.companyId)) ? p.companyId : null;
      await repo.recordEvents(
        p.userId,
        companyId,
        events.map((e) => ({
          name: e.name,
          properties: e.properties ?? {},
          occurredAt: e.occurredAt ? new Date(e.occurredAt) : null,
        })),
      );
      return reply.code(202).send({ accepted: events.length });
    },
  );
}
