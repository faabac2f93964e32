/**
 * Equipment and operators of a company (spec 4.4 "Equipment and operators"):
 *   GET  /api/companies/{companyId}/equipments   the company's machines
 *   GET  /api/equipment/{equipmentId}            one machine (ETag)
 *   POST /api/equipment                          create (no equipmentId) or update (If-Match honoured)
 *   POST /api/equipment/delete                   delete machines by id (all or none)
 *   DELETE /api/equipment/{equipmentId}          delete one (If-Match honoured)
 *   GET  /api/companies/{companyId}/operators    the company's operators
 *   GET  /api/operators/{operatorId}             one operator (ETag)
 *   POST /api/operators                          create or update (If-Match honoured)
 *   DELETE /api/operators/{operatorId}           delete one (If-Match honoured)
 * Names are distinct per company (409 NAME_TAKEN). Lengths in metres, speeds
 * in m/s, tank capacity in litres, fuel use in litres per hour.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import {
  type CatalogOutcome,
  createEquipmentRepository,
  createOperatorsRepository,
  type EquipmentRecord,
  type OperatorRecord,
} from '../../store/repositories/equipment.ts';
import { ApiError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { MachineCostInputs } from '../planning/schemas.ts';
import {
  answers,
  Etag,
  etagOf,
  idParams,
  ifMatchHeaders,
  ifMatchVersion,
  iso,
  notFound,
  preconditionFailed,
  principalOf,
  requireCompany,
  setEtag,
  Timestamp,
  Uuid,
} from './common.ts';

export const EQUIPMENT_TYPES = [
  'tractor',
  'sprayer',
  'spreader',
  'seeder',
  'planter',
  'combine',
  'mower',
  'baler',
  'tillage',
  'harvester',
  'other',
] as const;

const Name = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: 'Distinct within the company (case-insensitive).',
});
const Width = (description: string) => Type.Number({ exclusiveMinimum: 0, maximum: 100, description });
const Opt = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

const EquipmentFields = {
  name: Name,
  type: Type.Union(
    EQUIPMENT_TYPES.map((t) => Type.Literal(t)),
    { description: 'Kind of machine.' },
  ),
  swathWidth: Width('Working width [m].'),
  trackWidths: Type.Optional(
    Type.Array(Width('Track width (centre to centre of the wheels of an axle) [m].'), {
      maxItems: 8,
      description: 'Track widths of the axles [m] (default none).',
    }),
  ),
  tireWidths: Type.Optional(
    Type.Array(Width('Tire width [m].'), {
      maxItems: 8,
      description: 'Tire widths of the axles [m] (default none).',
    }),
  ),
  turningRadius: Opt(Type.Number({ minimum: 0, maximum: 100, description: 'Minimum turning radius [m].' })),
  workingSpeed: Opt(Type.Number({ exclusiveMinimum: 0, maximum: 30, description: 'Working speed [m/s].' })),
  turningSpeed: Opt(
    Type.Number({ exclusiveMinimum: 0, maximum: 30, description: 'Speed in turns and headlands [m/s].' }),
  ),
  tankCapacity: Opt(
    Type.Number({ minimum: 0, maximum: 1_000_000, description: 'Tank or hopper capacity [l].' }),
  ),
  fuelUse: Opt(Type.Number({ minimum: 0, maximum: 1000, description: 'Fuel use while working [l/h].' })),
  ptoPowerKw: Opt(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 2000,
      description:
        'Rated PTO power of the power unit [kW], for the fuel and cost defaults (as equipment.ptoPowerKw of a planning request). Default: 25 x sqrt(swathWidth), within 20..300.',
    }),
  ),
  cost: Type.Optional(
    Type.Union([MachineCostInputs, Type.Null()], {
      description:
        'What owning and running the machine costs (list and purchase price, years and hours of use, interest, ...); members left out take the company settings fuelPrice, labourRate and interestRate, else the documented defaults. Plans and equipment scenarios with this machine price its hours with them.',
    }),
  ),
  notes: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  archived: Type.Optional(
    Type.Boolean({ description: 'Kept for history, not offered for new work (default false).' }),
  ),
};

const SaveEquipmentRequest = Type.Object(
  {
    equipmentId: Type.Optional(Uuid('Update this machine; leave out to create one.')),
    companyId: Type.Optional(Uuid('The company of a new machine (required when creating).')),
    ...EquipmentFields,
  },
  { additionalProperties: false, $id: 'SaveEquipmentRequest', title: 'SaveEquipmentRequest' },
);

const Equipment = Type.Object(
  {
    equipmentId: Type.String({ format: 'uuid' }),
    companyId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    type: Type.String(),
    swathWidth: Type.Number(),
    trackWidths: Type.Array(Type.Number()),
    tireWidths: Type.Array(Type.Number()),
    turningRadius: Type.Union([Type.Number(), Type.Null()]),
    workingSpeed: Type.Union([Type.Number(), Type.Null()]),
    turningSpeed: Type.Union([Type.Number(), Type.Null()]),
    tankCapacity: Type.Union([Type.Number(), Type.Null()]),
    fuelUse: Type.Union([Type.Number(), Type.Null()]),
    ptoPowerKw: Type.Union([Type.Number(), Type.Null()]),
    cost: Type.Union([MachineCostInputs, Type.Null()]),
    notes: Type.Union([Type.String(), Type.Null()]),
    archived: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  },
  { $id: 'StoredEquipment', title: 'Equipment' },
);

const SaveOperatorRequest = Type.Object(
  {
    operatorId: Type.Optional(Uuid('Update this operator; leave out to create one.')),
    companyId: Type.Optional(Uuid('The company of a new operator (required when creating).')),
    name: Name,
    email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 320 }), Type.Null()])),
    phone: Type.Optional(
      Type.Union([Type.String({ maxLength: 50, pattern: '^[+0-9 ()./-]*$' }), Type.Null()]),
    ),
    equipmentId: Type.Optional(
      Type.Union([Uuid('The machine this operator usually drives (same company).'), Type.Null()]),
    ),
    notes: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    archived: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, $id: 'SaveOperatorRequest', title: 'SaveOperatorRequest' },
);

const Operator = Type.Object(
  {
    operatorId: Type.String({ format: 'uuid' }),
    companyId: Type.String({ format: 'uuid' }),
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    equipmentId: Type.Union([Type.String(), Type.Null()]),
    notes: Type.Union([Type.String(), Type.Null()]),
    archived: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  },
  { $id: 'Operator', title: 'Operator' },
);

const ListQuery = Type.Object(
  {
    includeArchived: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'Default true.' }),
    ),
  },
  { additionalProperties: false },
);

const equipmentBody = (e: EquipmentRecord) => ({
  equipmentId: e.id,
  companyId: e.companyId,
  name: e.name,
  type: e.type,
  swathWidth: e.swathWidth,
  trackWidths: e.trackWidths,
  tireWidths: e.tireWidths,
  turningRadius: e.turningRadius,
  workingSpeed: e.workingSpeed,
  turningSpeed: e.turningSpeed,
  tankCapacity: e.tankCapacity,
  fuelUse: e.fuelUse,
  ptoPowerKw: e.ptoPowerKw,
  cost: e.cost,
  notes: e.notes,
  archived: e.archived,
  createdAt: iso(e.createdAt),
  updatedAt: iso(e.updatedAt),
  etag: etagOf(e.version),
});

const operatorBody = (o: OperatorRecord) => ({
  operatorId: o.id,
  companyId: o.companyId,
  name: o.name,
  email: o.email,
  phone: o.phone,
  equipmentId: o.equipmentId,
  notes: o.notes,
  archived: o.archived,
  createdAt: iso(o.createdAt),
  updatedAt: iso(o.updatedAt),
  etag: etagOf(o.version),
});

/** A failed catalog write as its HTTP answer. */
function refuse(
  out: CatalogOutcome<unknown> & { ok: false },
  what: string,
  id: string,
  name?: string,
): never {
  if (out.reason === 'not-found') throw notFound(what, id);
  if (out.reason === 'stale') throw preconditionFailed(what, id, out.currentVersion);
  throw new ApiError(
    409,
    'NAME_TAKEN',
    `The company has another ${what} named '${name}'; ${what} names are distinct within a company (ignoring case).`,
    { errors: [{ path: '/name', message: 'is taken in this company' }] },
  );
}

export async function equipmentRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const machines = createEquipmentRepository(store.db);
  const people = createOperatorsRepository(store.db);
  const tags = ['Equipment and operators'];

  const equipmentInput = (b: Static<typeof SaveEquipmentRequest>) => {
    if (b.turningSpeed != null && b.workingSpeed != null && b.turningSpeed > b.workingSpeed * 3) {
      throw validationError([
        {
          path: '/turningSpeed',
          message: `(${b.turningSpeed} m/s) must not exceed three times workingSpeed`,
        },
      ]);
    }
    return {
      name: b.name.trim(),
      type: b.type,
      swathWidth: b.swathWidth,
      trackWidths: b.trackWidths ?? [],
      tireWidths: b.tireWidths ?? [],
      turningRadius: b.turningRadius ?? null,
      workingSpeed: b.workingSpeed ?? null,
      turningSpeed: b.turningSpeed ?? null,
      tankCapacity: b.tankCapacity ?? null,
      fuelUse: b.fuelUse ?? null,
      ptoPowerKw: b.ptoPowerKw ?? null,
      cost: (b.cost as Record<string, unknown> | null | undefined) ?? null,
      notes: b.notes ?? null,
      archived: b.archived ?? false,
    };
  };

  r.get(
    '/api/companies/:companyId/equipments',
    {
      schema: {
        tags,
        summary: "A company's equipment",
        params: idParams('companyId'),
        querystring: ListQuery,
        response: answers({ 200: { schema: Type.Array(Equipment), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      const list = await machines.list(
        principalOf(req).userId,
        req.params.companyId,
        req.query.includeArchived !== 'false',
      );
      return list.map(equipmentBody);
    },
  );

  r.get(
    '/api/equipment/:equipmentId',
    {
      schema: {
        tags,
        summary: 'A machine',
        params: idParams('equipmentId'),
        response: answers({ 200: { schema: Equipment, description: 'The machine.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const e = await machines.get(principalOf(req).userId, req.params.equipmentId);
      if (!e) throw notFound('equipment', req.params.equipmentId);
      setEtag(reply, e.version);
      return equipmentBody(e);
    },
  );

  r.post(
    '/api/equipment',
    {
      schema: {
        tags,
        summary: 'Create or update a machine',
        description:
          'Without equipmentId: creates a machine in companyId (201). With equipmentId: replaces its fields (200; If-Match honoured, 412 when stale). 409 NAME_TAKEN when the company has another machine of that name.',
        body: SaveEquipmentRequest,
        headers: ifMatchHeaders,
        response: answers(
          {
            200: { schema: Equipment, description: 'Updated.' },
            201: { schema: Equipment, description: 'Created.' },
          },
          400,
          404,
          409,
          412,
        ),
      },
    },
    async (req, reply) => {
      const b = req.body;
      const input = equipmentInput(b);
      if (!b.equipmentId) {
        if (!b.companyId)
          throw validationError([{ path: '/companyId', message: 'is required to create a machine' }]);
        await requireCompany(store, req, b.companyId);
        const out = await machines.create(b.companyId, input);
        if (!out.ok) refuse(out, 'equipment', '', input.name);
        setEtag(reply, out.value.version);
        return reply
          .code(201)
          .header('location', `/api/equipment/${out.value.id}`)
          .send(equipmentBody(out.value));
      }
      const userId = principalOf(req).userId;
      if (b.companyId) {
        const now = await machines.get(userId, b.equipmentId);
        if (now && now.companyId !== b.companyId)
          throw validationError([
            { path: '/companyId', message: 'is not the company of this machine; leave it out to update' },
          ]);
      }
      const out = await machines.update(userId, b.equipmentId, input, ifMatchVersion(req));
      if (!out.ok) refuse(out, 'equipment', b.equipmentId, input.name);
      setEtag(reply, out.value.version);
      return equipmentBody(out.value);
    },
  );

  r.post(
    '/api/equipment/delete',
    {
      schema: {
        tags,
        summary: 'Delete machines',
        description:
          'Deletes all the machines or none: 404 when any id is not a machine of a company the caller can access. Operators that drove them keep no machine.',
        body: Type.Object(
          {
            equipmentIds: Type.Array(Uuid('A machine id.'), {
              minItems: 1,
              maxItems: 1000,
              uniqueItems: true,
            }),
          },
          { additionalProperties: false, $id: 'DeleteEquipmentRequest', title: 'DeleteEquipmentRequest' },
        ),
        response: answers(
          {
            200: {
              schema: named('DeletedCount', Type.Object({ deleted: Type.Integer() })),
              description: 'Deleted.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const out = await store.db.transaction(async (tx) =>
        createEquipmentRepository(tx as never).delete(principalOf(req).userId, req.body.equipmentIds),
      );
      if (!out.ok) throw notFound('equipment', `among ${req.body.equipmentIds.join(', ')}`);
      return { deleted: out.value };
    },
  );

  r.delete(
    '/api/equipment/:equipmentId',
    {
      schema: {
        tags,
        summary: 'Delete a machine',
        params: idParams('equipmentId'),
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.equipmentId;
      const out = await machines.delete(principalOf(req).userId, [id], ifMatchVersion(req));
      if (!out.ok) refuse(out, 'equipment', id);
      return reply.code(204).send();
    },
  );

  r.get(
    '/api/companies/:companyId/operators',
    {
      schema: {
        tags,
        summary: "A company's operators",
        params: idParams('companyId'),
        querystring: ListQuery,
        response: answers({ 200: { schema: Type.Array(Operator), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      const list = await people.list(
        principalOf(req).userId,
        req.params.companyId,
        req.query.includeArchived !== 'false',
      );
      return list.map(operatorBody);
    },
  );

  r.get(
    '/api/operators/:operatorId',
    {
      schema: {
        tags,
        summary: 'An operator',
        params: idParams('operatorId'),
        response: answers({ 200: { schema: Operator, description: 'The operator.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const o = await people.get(principalOf(req).userId, req.params.operatorId);
      if (!o) throw notFound('operator', req.params.operatorId);
      setEtag(reply, o.version);
      return operatorBody(o);
    },
  );

  r.post(
    '/api/operators',
    {
      schema: {
        tags,
        summary: 'Create or update an operator',
        description:
          'Without operatorId: creates an operator in companyId (201). With operatorId: replaces its fields (200; If-Match honoured). equipmentId must be a machine of the same company. 409 NAME_TAKEN for a name the company has already.',
        body: SaveOperatorRequest,
        headers: ifMatchHeaders,
        response: answers(
          {
            200: { schema: Operator, description: 'Updated.' },
            201: { schema: Operator, description: 'Created.' },
          },
          400,
          404,
          409,
          412,
        ),
      },
    },
    async (req, reply) => {
      const b = req.body;
      const userId = principalOf(req).userId;
      let companyId = b.companyId;
      if (b.operatorId) {
        const now = await people.get(userId, b.operatorId);
        if (!now) throw notFound('operator', b.operatorId);
        if (companyId && companyId !== now.companyId)
          throw validationError([
            { path: '/companyId', message: 'is not the company of this operator; leave it out to update' },
          ]);
        companyId = now.companyId;
      } else {
        if (!companyId)
          throw validationError([{ path: '/companyId', message: 'is required to create an operator' }]);
        await requireCompany(store, req, companyId);
      }
      if (b.equipmentId) {
        const m = await machines.get(userId, b.equipmentId);
        if (!m) throw notFound('equipment', b.equipmentId);
        if (m.companyId !== companyId)
          throw validationError([
            { path: '/equipmentId', message: `is not a machine of company ${companyId}` },
          ]);
      }
      const input = {
        name: b.name.trim(),
        email: b.email ?? null,
        phone: b.phone ?? null,
        equipmentId: b.equipmentId ?? null,
        notes: b.notes ?? null,
        archived: b.archived ?? false,
      };
      if (!b.operatorId) {
        const out = await people.create(companyId, input);
        if (!out.ok) refuse(out, 'operator', '', input.name);
        setEtag(reply, out.value.version);
        return reply
          .code(201)
          .header('location', `/api/operators/${out.value.id}`)
          .send(operatorBody(out.value));
      }
      const out = await people.update(userId, b.operatorId, input, ifMatchVersion(req));
      if (!out.ok) refuse(out, 'operator', b.operatorId, input.name);
      setEtag(reply, out.value.version);
      return operatorBody(out.value);
    },
  );

  r.delete(
    '/api/operators/:operatorId',
    {
      schema: {
        tags,
        summary: 'Delete an operator',
        params: idParams('operatorId'),
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const id = req.params.operatorId;
      const out = await people.delete(principalOf(req).userId, id, ifMatchVersion(req));
      if (!out.ok) refuse(out, 'operator', id);
      return reply.code(204).send();
    },
  );
}
