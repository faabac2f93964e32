/**
 * What a user does for themself:
 *   POST /api/user/accept-terms                    accept a version of the terms (stored)
 *   GET  /api/user/app/{userId}                    what the apps start with: the user, terms, companies, last company, settings
 *   GET  /api/user/email-confirmed                 whether the caller's e-mail address is confirmed
 *   POST /api/contact                              a message to the operator (kept in the database, logged, mailed by `contactMail` when the app has one)
 *   POST /api/account/log-user-process             log a step of a process (onboarding, an import, ...)
 *   POST /api/account/log-user-feedback            log feedback (rating and/or message)
 *   GET  /api/account/{userId}/logged-user-process what was logged
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import { createSettingsRepository } from '../../store/repositories/settings.ts';
import type { ProcessLogEntry } from '../../store/repositories/user-records.ts';
import { validationError } from '../errors.ts';
import {
  answers,
  CompanyRoleSchema,
  idParams,
  iso,
  notFound,
  principalOf,
  Timestamp,
  Uuid,
} from './common.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const TermsRequest = Type.Object(
  {
    termsVersion: Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '^[A-Za-z0-9._:-]+$',
      description: 'The version of the terms accepted, e.g. 2026-01 or 3.1.',
    }),
  },
  { additionalProperties: false, $id: 'AcceptTermsRequest', title: 'AcceptTermsRequest' },
);

const Terms = Type.Object(
  {
    userId: Uuid('The user.'),
    termsVersion: Nullable(Type.String()),
    termsAcceptedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'AcceptedTerms', title: 'AcceptedTerms' },
);

const EmailConfirmed = Type.Object(
  {
    userId: Uuid('The caller.'),
    email: Nullable(
      Type.String({ description: 'The address of the account (null for a user made without one).' }),
    ),
    emailConfirmed: Type.Boolean({
      description:
        'true once a confirmation link, an accepted invitation or a password reset mail reached the address.',
    }),
    confirmedAt: Type.Union([Timestamp, Type.Null()], { description: 'When; null while unconfirmed.' }),
    pendingEmail: Nullable(
      Type.String({
        description: 'A new address given in the profile and waiting for its confirmation link.',
      }),
    ),
  },
  { $id: 'EmailConfirmed', title: 'EmailConfirmed' },
);

const UserApp = Type.Object(
  {
    userId: Uuid('The user.'),
    email: Nullable(Type.String()),
    firstName: Nullable(Type.String()),
    lastName: Nullable(Type.String()),
    terms: Terms,
    companies: Type.Array(
      Type.Object({ companyId: Uuid('The company.'), name: Type.String(), role: CompanyRoleSchema }),
    ),
    lastEngagedCompanyId: Type.Union([Uuid('The company changed last.'), Type.Null()]),
    settings: Type.Record(Type.String(), Type.Unknown(), { description: "The user's own settings by name." }),
  },
  { $id: 'UserApp', title: 'UserApp' },
);

const ContactRequest = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 200 }),
    message: Type.String({ minLength: 1, maxLength: 2000 }),
  },
  { additionalProperties: false, $id: 'ContactRequest', title: 'ContactRequest' },
);

const ContactAnswer = Type.Object(
  {
    contactId: Uuid('The message.'),
    receivedAt: Timestamp,
    status: Type.Union([Type.Literal('queued'), Type.Literal('sent')], {
      description:
        "'sent': handed to outgoing mail; 'queued': kept for the operator (no outgoing mail set up, or it failed).",
    }),
  },
  { $id: 'ContactAnswer', title: 'ContactAnswer' },
);

const Process = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9._:/-]+$',
  description: 'The process, e.g. onboarding or boundary-import.',
});

const Details = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Any JSON object, at most 16 KB.',
});

const ProcessRequest = Type.Object(
  {
    process: Process,
    step: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The step reached.' })),
    status: Type.Optional(
      Type.Union(
        [
          Type.Literal('started'),
          Type.Literal('progressed'),
          Type.Literal('completed'),
          Type.Literal('failed'),
          Type.Literal('skipped'),
        ],
        { description: 'Where the process stands.' },
      ),
    ),
    details: Type.Optional(Details),
  },
  { additionalProperties: false, $id: 'UserProcessRequest', title: 'UserProcessRequest' },
);

const FeedbackRequest = Type.Object(
  {
    process: Type.Optional(Process),
    rating: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 5, description: '1 (poor) to 5 (very good).' }),
    ),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    details: Type.Optional(Details),
  },
  { additionalProperties: false, $id: 'UserFeedbackRequest', title: 'UserFeedbackRequest' },
);

const LogEntry = Type.Object(
  {
    logId: Uuid('The entry.'),
    kind: Type.Union([Type.Literal('process'), Type.Literal('feedback')]),
    process: Type.String(),
    step: Nullable(Type.String()),
    status: Nullable(Type.String()),
    rating: Type.Union([Type.Integer(), Type.Null()]),
    message: Nullable(Type.String()),
    details: Type.Unknown(),
    createdAt: Timestamp,
  },
  { $id: 'UserProcessLogEntry', title: 'UserProcessLogEntry' },
);

const LogList = Type.Object(
  { userId: Uuid('The user.'), items: Type.Array(LogEntry) },
  { $id: 'UserProcessLog', title: 'UserProcessLog' },
);

const LogQuery = Type.Object(
  {
    process: Type.Optional(Process),
    kind: Type.Optional(Type.Union([Type.Literal('process'), Type.Literal('feedback')])),
    limit: Type.Optional(
      Type.String({
        pattern: '^([1-9][0-9]{0,2}|1000)$',
        description: 'Whole number 1 to 1000, default 100.',
      }),
    ),
  },
  { additionalProperties: false },
);

const logBody = (e: ProcessLogEntry) => ({
  logId: e.id,
  kind: e.kind,
  process: e.process,
  step: e.step,
  status: e.status,
  rating: e.rating,
  message: e.message,
  details: e.details ?? null,
  createdAt: iso(e.createdAt),
});

const checkDetails = (d: unknown) => {
  if (d !== undefined && JSON.stringify(d).length > 16_384) {
    throw validationError([{ path: '/details', message: 'is larger than 16 KB' }]);
  }
};

/** A message for the operator, as the mail system receives it. */
export interface ContactMail {
  contactId: string;
  userId: string;
  /** The writer's e-mail: the reply address (null for users without one). */
  replyTo: string | null;
  subject: string;
  text: string;
}

/** Hands a contact message to outgoing mail; a message it throws for stays queued in the database. */
export type ContactMailer = (mail: ContactMail) => Promise<void>;

export async function userActivityRoutes(
  app: FastifyInstance,
  opts: { store: Store; contactMail?: ContactMailer },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const settings = createSettingsRepository(store.db);
  const tags = ['Users'];

  r.post(
    '/api/user/accept-terms',
    {
      schema: {
        tags,
        summary: 'Accept the terms',
        description: 'Stores the version of the terms the caller accepted, and when.',
        body: TermsRequest,
        response: answers({ 200: { schema: Terms, description: 'What is stored now.' } }, 400),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const p = await store.userRecords.acceptTerms(userId, req.body.termsVersion);
      return {
        userId,
        termsVersion: p.termsVersion,
        termsAcceptedAt: p.termsAcceptedAt ? iso(p.termsAcceptedAt) : null,
      };
    },
  );

  r.get(
    '/api/user/email-confirmed',
    {
      schema: {
        tags,
        summary: 'Whether your e-mail address is confirmed',
        description:
          "The signed-in user's own address and its confirmation state (the one GET /api/account/is-confirmed/{userId} tells of others).",
        response: answers({ 200: { schema: EmailConfirmed, description: 'The state.' } }),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const state = await store.userAccounts.get(userId);
      if (!state) throw notFound('user', userId);
      return {
        userId,
        email: state.email,
        emailConfirmed: state.emailConfirmedAt !== null,
        confirmedAt: state.emailConfirmedAt ? iso(state.emailConfirmedAt) : null,
        pendingEmail: state.pendingEmail,
      };
    },
  );

  r.get(
    '/api/user/app/:userId',
    {
      schema: {
        tags,
        summary: 'What the apps start with',
        description:
          "The caller's own user, accepted terms, companies and roles, the company changed last and their settings. Another user's id is 404.",
        params: idParams('userId'),
        response: answers({ 200: { schema: UserApp, description: 'The user.' } }, 400, 404),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      if (req.params.userId !== userId) throw notFound('user', req.params.userId);
      const [user, profile, accesses, own, last] = await Promise.all([
        store.accounts.findUserById(userId),
        store.userRecords.profile(userId),
        store.accounts.listAccesses(userId),
        settings.list(userId, { userId }),
        store.userRecords.lastCompany(userId),
      ]);
      if (!user) throw notFound('user', userId);
      return {
        userId,
        email: user.email,
        firstName: user.firstName,
        lastName: user.lastName,
        terms: {
          userId,
          termsVersion: profile.termsVersion,
          termsAcceptedAt: profile.termsAcceptedAt ? iso(profile.termsAcceptedAt) : null,
        },
        companies: accesses.map((a) => ({ companyId: a.companyId, name: a.companyName, role: a.role })),
        lastEngagedCompanyId: last?.companyId ?? null,
        settings: Object.fromEntries(own.items.map((s) => [s.name, s.value])),
      };
    },
  );

  r.post(
    '/api/contact',
    {
      schema: {
        tags,
        summary: 'Write to the operator',
        description:
          'The message is kept for the operator of this service (with your user id and e-mail as the reply address) and logged; it is mailed once outgoing mail is set up.',
        body: ContactRequest,
        response: answers({ 202: { schema: ContactAnswer, description: 'Received.' } }, 400),
      },
    },
    async (req, reply) => {
      const userId = principalOf(req).userId;
      const user = await store.accounts.findUserById(userId);
      const made = await store.userRecords.contact(
        userId,
        user?.email ?? null,
        req.body.subject,
        req.body.message,
      );
      // Who wrote and about what; the text stays in the database.
      req.log.info(
        { contactId: made.id, userId, subject: req.body.subject },
        'contact message for the operator',
      );
      let status: 'queued' | 'sent' = 'queued';
      if (opts.contactMail) {
        try {
          await opts.contactMail({
            contactId: made.id,
            userId,
            replyTo: user?.email ?? null,
            subject: req.body.subject,
            text: req.body.message,
          });
          await store.userRecords.contactMailed(made.id);
          status = 'sent';
        } catch (err) {
          req.log.warn({ err, contactId: made.id }, 'contact message not mailed; it stays queued');
        }
      }
      return reply.code(202).send({ contactId: made.id, receivedAt: iso(made.createdAt), status });
    },
  );

  r.post(
    '/api/account/log-user-process',
    {
      schema: {
        tags,
        summary: 'Log a step of a process',
        body: ProcessRequest,
        response: answers({ 201: { schema: LogEntry, description: 'Logged.' } }, 400),
      },
    },
    async (req, reply) => {
      const b = req.body;
      checkDetails(b.details);
      const e = await store.userRecords.log(principalOf(req).userId, {
        kind: 'process',
        process: b.process,
        step: b.step ?? null,
        status: b.status ?? null,
        rating: null,
        message: null,
        details: b.details,
      });
      return reply.code(201).send(logBody(e));
    },
  );

  r.post(
    '/api/account/log-user-feedback',
    {
      schema: {
        tags,
        summary: 'Log feedback',
        description: 'A rating, a message or both, optionally about a process.',
        body: FeedbackRequest,
        response: answers({ 201: { schema: LogEntry, description: 'Logged.' } }, 400),
      },
    },
    async (req, reply) => {
      const b = req.body;
      if (b.rating === undefined && b.message === undefined) {
        throw validationError([{ path: '', message: 'must have rating or message (or both)' }]);
      }
      checkDetails(b.details);
      const e = await store.userRecords.log(principalOf(req).userId, {
        kind: 'feedback',
        process: b.process ?? 'general',
        step: null,
        status: null,
        rating: b.rating ?? null,
        message: b.message ?? null,
        details: b.details,
      });
      return reply.code(201).send(logBody(e));
    },
  );

  r.get(
    '/api/account/:userId/logged-user-process',
    {
      schema: {
        tags,
        summary: 'What a user logged',
        description:
          'Newest first. Your own log, or that of a user of a company you administer; 404 otherwise.',
        params: idParams('userId'),
        querystring: LogQuery,
        response: answers({ 200: { schema: LogList, description: 'The entries.' } }, 400, 404),
      },
    },
    async (req) => {
      const { userId } = req.params;
      if (!(await store.userRecords.canSee(principalOf(req).userId, userId))) throw notFound('user', userId);
      const items = await store.userRecords.logs(userId, {
        process: req.query.process,
        kind: req.query.kind,
        limit: Number(req.query.limit ?? 100),
      });
      return { userId, items: items.map(logBody) };
    },
  );
}
