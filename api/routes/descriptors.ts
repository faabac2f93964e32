/**
 * Descriptors (spec 4.4, "Descriptors"): named, typed values a company
 * attaches to its objects (crop, variety, soil type, ...).
 *   GET    /api/descriptors            a company's descriptors (?companyId, objectType, objectId, name)
 *   POST   /api/descriptors            set one on an object (201 created, 200 value replaced)
 *   GET    /api/descriptors/missing    objects of a type lacking required descriptors (?objectType, names)
 *   GET    /api/descriptors/{id}       one
 *   DELETE /api/descriptors/{id}       delete one
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import {
  createDescriptorsRepository,
  DESCRIBED_TYPES,
  type DescriptorRecord,
  VALUE_TYPES,
  type ValueType,
} from '../../store/repositories/descriptors.ts';
import { validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import {
  answers,
  callerCompany,
  Etag,
  etagOf,
  idParams,
  iso,
  notFound,
  principalOf,
  requireCompany,
  setEtag,
  Timestamp,
  Uuid,
} from './common.ts';

const ObjectType = Type.Union(
  DESCRIBED_TYPES.map((t) => Type.Literal(t)),
  { description: 'The kind of object described.' },
);
const ValueTypeSchema = Type.Union(
  VALUE_TYPES.map((t) => Type.Literal(t)),
  { description: 'text: a string; number; boolean; date: YYYY-MM-DD.' },
);
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'The descriptor’s name (crop, variety, soilType, ...); once per object, case-insensitive.',
});
const Value = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);

const Descriptor = named(
  'Descriptor',
  Type.Object({
    descriptorId: Uuid('The descriptor id.'),
    companyId: Uuid('Its company.'),
    objectType: ObjectType,
    objectId: Uuid('The object described.'),
    name: Type.String(),
    valueType: ValueTypeSchema,
    value: Value,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  }),
);

const SetDescriptorRequest = named(
  'SetDescriptorRequest',
  Type.Object(
    {
      objectType: ObjectType,
      objectId: Uuid('An object of a company you can access.'),
      name: Name,
      valueType: ValueTypeSchema,
      value: Value,
    },
    { additionalProperties: false },
  ),
);

const MissingDescriptors = named(
  'MissingDescriptors',
  Type.Array(
    Type.Object({
      objectType: ObjectType,
      objectId: Type.String({ format: 'uuid' }),
      objectName: Type.String(),
      missing: Type.Array(Type.String(), { description: 'The required names it has no descriptor of.' }),
    }),
  ),
);

const view = (d: DescriptorRecord) => ({
  descriptorId: d.id,
  companyId: d.companyId,
  objectType: d.objectType as (typeof DESCRIBED_TYPES)[number],
  objectId: d.objectId,
  name: d.name,
  valueType: d.valueType as ValueType,
  value: d.value as string | number | boolean,
  createdAt: iso(d.createdAt),
  updatedAt: iso(d.updatedAt),
  etag: etagOf(d.version),
});

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** The value must be of its declared type. */
function checkValue(valueType: ValueType, value: unknown): void {
  const ok =
    valueType === 'number'
      ? typeof value === 'number'
      : valueType === 'boolean'
        ? typeof value === 'boolean'
        : valueType === 'date'
          ? typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value))
          : typeof value === 'string';
  if (!ok) {
    const want = {
      text: 'a string',
      number: 'a number',
      boolean: 'true or false',
      date: 'a date YYYY-MM-DD',
    }[valueType];
    throw validationError([{ path: '/value', message: `must be ${want} (valueType ${valueType})` }]);
  }
}

export async function descriptorRoutes(appBase: FastifyInstance, opts: { store: Store }): Promise<void> {
  const app = appBase.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const repo = createDescriptorsRepository(store.db);
  const tags = ['Descriptors'];
  const companyOf = async (req: FastifyRequest, companyId: string | undefined) => {
    if (companyId === undefined) return callerCompany(store, req);
    await requireCompany(store, req, companyId);
    return companyId;
  };

  app.get(
    '/api/descriptors',
    {
      schema: {
        tags,
        summary: 'Descriptors of a company',
        description:
          '`companyId` defaults to the company the credentials act for; filtered by object type, object and name.',
        querystring: Type.Object(
          {
            companyId: Type.Optional(Uuid('The company.')),
            objectType: Type.Optional(ObjectType),
            objectId: Type.Optional(Uuid('One object.')),
            name: Type.Optional(Name),
          },
          { additionalProperties: false },
        ),
        response: answers(
          { 200: { schema: Type.Array(Descriptor), description: 'By object, then name.' } },
          400,
          403,
          404,
        ),
      },
    },
    async (req) => {
      const { companyId: asked, ...f } = req.query;
      return (await repo.list(await companyOf(req, asked), f)).map(view);
    },
  );

  app.post(
    '/api/descriptors',
    {
      schema: {
        tags,
        summary: 'Set a descriptor of an object',
        description:
          'Creates the named descriptor of the object (201) or replaces its value (200). The object must be of a company you can access (404 otherwise); the value must match valueType (400 naming /value).',
        body: SetDescriptorRequest,
        response: answers(
          {
            201: { schema: Descriptor, description: 'Created.' },
            200: { schema: Descriptor, description: 'Value replaced.' },
          },
          400,
          404,
        ),
      },
    },
    async (req, reply) => {
      const b = req.body;
      checkValue(b.valueType, b.value);
      const companyId = await repo.objectCompany(principalOf(req).userId, b.objectType, b.objectId);
      if (!companyId) throw notFound(b.objectType, b.objectId);
      const { value, created } = await repo.set(companyId, b);
      setEtag(reply, value.version);
      return reply.code(created ? 201 : 200).send(view(value));
    },
  );

  app.get(
    '/api/descriptors/missing',
    {
      schema: {
        tags,
        summary: 'Objects lacking required descriptors',
        description:
          'The objects of `objectType` in the company without a descriptor of one or more of `names` (comma-separated, case-insensitive), with the names each lacks; by object name.',
        querystring: Type.Object(
          {
            companyId: Type.Optional(Uuid('The company (default: the one the credentials act for).')),
            objectType: ObjectType,
            names: Type.String({
              minLength: 1,
              maxLength: 1000,
              description: 'Required descriptor names, comma-separated.',
            }),
          },
          { additionalProperties: false },
        ),
        response: answers(
          { 200: { schema: MissingDescriptors, description: 'The objects lacking some.' } },
          400,
          403,
          404,
        ),
      },
    },
    async (req) => {
      const companyId = await companyOf(req, req.query.companyId);
      const names = [
        ...new Set(
          req.query.names
            .split(',')
            .map((n) => n.trim())
            .filter(Boolean),
        ),
      ];
      if (names.length === 0 || names.some((n) => n.length > 100)) {
        throw validationError([
          {
            path: '/querystring/names',
            message: 'must name 1 or more descriptors of 1 to 100 characters, comma-separated',
          },
        ]);
      }
      const out = await repo.missing(companyId, req.query.objectType, names);
      return out.map((m) => ({ objectType: req.query.objectType, ...m }));
    },
  );

  app.get(
    '/api/descriptors/:id',
    {
      schema: {
        tags,
        summary: 'A descriptor',
        params: idParams('id'),
        response: answers({ 200: { schema: Descriptor, description: 'The descriptor.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const d = await repo.get(principalOf(req).userId, req.params.id);
      if (!d) throw notFound('descriptor', req.params.id);
      setEtag(reply, d.version);
      return view(d);
    },
  );

  app.delete(
    '/api/descriptors/:id',
    {
      schema: {
        tags,
        summary: 'Delete a descriptor',
        params: idParams('id'),
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      if (!(await repo.remove(principalOf(req).userId, req.params.id)))
        throw notFound('descriptor', req.params.id);
      return reply.code(204).send();
    },
  );
}
