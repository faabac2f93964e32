/**
 * A demo company to try the service with: a few real fields (open field
 * boundaries of the project's fixtures, test/fixtures/fields) under a demo
 * grower and farm.
 *   POST /api/create-demo-company              (signed in) make your demo company (once; again: the same one)
 *   POST /api/account/demo-company             (signed in) your demo company; 404 without one
 *   POST /api/account/copy-demo-company-fields (signed in) copy the demo fields into one of your companies
 */
import { readFileSync } from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Repositories } from '../../store/db.ts';
import type { AccountContext } from '../account/context.ts';
import { noteCompanyWrite } from '../auth/company-roles.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { checkRings } from './boundary-geometry.ts';
import { answers, optionalBody, principalOf, requireCompany, Uuid } from './common.ts';

const FIXTURES = new URL('../../test/fixtures/fields/fixtures.geojson', import.meta.url);

interface DemoField {
  name: string;
  rings: number[][][];
}

let demoFields: DemoField[] | undefined;

/** The open-data fields of the fixtures (single polygons), named by their shape and country. */
export function loadDemoFields(): DemoField[] {
  if (demoFields) return demoFields;
  const fc = JSON.parse(readFileSync(FIXTURES, 'utf8')) as {
    features: {
      properties: { source: string; country?: string; fixture?: string; area_ha?: number };
      geometry: { type: string; coordinates: number[][][] };
    }[];
  };
  demoFields = fc.features
    .filter((f) => f.geometry.type === 'Polygon' && f.properties.source.startsWith('fiboa-'))
    .map((f, i) => ({
      name: `Field ${i + 1} (${[f.properties.country, f.properties.area_ha && `${f.properties.area_ha.toFixed(1)} ha`].filter(Boolean).join(', ')})`,
      rings: f.geometry.coordinates,
    }));
  return demoFields;
}

const DemoCompany = named(
  'DemoCompany',
  Type.Object({
    companyId: Uuid('The demo company.'),
    name: Type.String(),
    growerId: Type.Union([Uuid('The demo grower.'), Type.Null()]),
    farmId: Type.Union([Uuid('The demo farm.'), Type.Null()]),
    fieldCount: Type.Integer({ description: 'Fields the company has now.' }),
  }),
);

const CreateDemoCompanyRequest = named(
  'CreateDemoCompanyRequest',
  Type.Object(
    {
      name: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'Name of the demo company (default Demo farm).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const CopyDemoFieldsRequest = named(
  'CopyDemoFieldsRequest',
  Type.Object(
    {
      companyId: Uuid('The company to copy the demo fields into; you need access to it.'),
    },
    { additionalProperties: false },
  ),
);

const CopiedDemoFields = named(
  'CopiedDemoFields',
  Type.Object({
    companyId: Uuid('The company.'),
    growerId: Uuid('The grower made for the demo fields.'),
    farmId: Uuid('The farm made for the demo fields.'),
    fieldIds: Type.Array(Uuid('A new field.')),
  }),
);

/** Makes a demo grower and farm in the company with the demo fields (in the caller's transaction). */
async function seedDemoFields(tx: Repositories, companyId: string) {
  const fields = loadDemoFields().map((f) => ({ name: f.name, ...checkRings(f.rings) }));
  const grower = await tx.hierarchy.createGrower(companyId, { name: 'Demo grower', source: 'demo' });
  const farm = await tx.hierarchy.createFarm(grower, { name: 'Demo farm', source: 'demo' });
  const fieldIds: string[] = [];
  for (const f of fields) {
    const made = await tx.hierarchy.createField(farm, {
      name: f.name,
      boundary: { name: null, rings: f.rings, area: f.area },
    });
    fieldIds.push(made.field.fieldId);
  }
  return { growerId: grower.growerId, farmId: farm.farmId, fieldIds };
}

export async function demoCompanyRoutes(app: FastifyInstance, ctx: AccountContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = ctx;

  /** The caller's demo company, when it still exists and they can still access it. */
  const demoOf = async (userId: string) => {
    const s = await store.userAccounts.get(userId);
    if (!s?.demoCompanyId) return null;
    const company = await store.companies.get(userId, s.demoCompanyId);
    if (!company) return null;
    const growers = await store.hierarchy.listGrowers(company.companyId);
    const grower = growers.find((g) => g.source === 'demo') ?? null;
    const farms = grower ? await store.hierarchy.listFarms({ growerId: grower.growerId }) : [];
    const fields = await store.hierarchy.listFields({ companyId: company.companyId });
    return {
      companyId: company.companyId,
      name: company.name,
      growerId: grower?.growerId ?? null,
      farmId: farms[0]?.farmId ?? null,
      fieldCount: fields.length,
    };
  };

  r.post(
    '/api/create-demo-company',
    {
      preValidation: optionalBody,
      schema: {
        tags: ['Account'],
        summary: 'Make your demo company',
        description: `A company (you are its admin, no credits) with a demo grower, farm and ${loadDemoFields().length} real fields from open field boundary data (fiboa). Once per user: asked again, it answers the existing demo company with 200.`,
        body: CreateDemoCompanyRequest,
        response: answers(
          {
            201: { schema: DemoCompany, description: 'Made.' },
            200: { schema: DemoCompany, description: 'You have one already: it.' },
          },
          400,
        ),
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const existing = await demoOf(p.userId);
      if (existing) return reply.code(200).send(existing);
      const made = await store.transaction(async (tx) => {
        const company = await tx.companies.create(p.userId, req.body.name ?? 'Demo farm');
        await tx.credits.set(company.companyId, 0, false);
        await seedDemoFields(tx, company.companyId);
        const s = await tx.userAccounts.get(p.userId);
        await tx.userAccounts.update(p.userId, s?.source ?? 'key', { demoCompanyId: company.companyId });
        return company.companyId;
      });
      noteCompanyWrite(req, { companyId: made, objectId: made });
      return reply.code(201).send((await demoOf(p.userId))!);
    },
  );

  r.post(
    '/api/account/demo-company',
    {
      preValidation: optionalBody,
      schema: {
        tags: ['Account'],
        summary: 'Your demo company',
        description: '404 NOT_FOUND when you have none (make it with POST /api/create-demo-company).',
        body: named('DemoCompanyRequest', Type.Object({}, { additionalProperties: false })),
        response: answers({ 200: { schema: DemoCompany, description: 'Your demo company.' } }, 400, 404),
      },
    },
    async (req) => {
      const demo = await demoOf(principalOf(req).userId);
      if (!demo)
        throw new ApiError(
          404,
          'NOT_FOUND',
          'You have no demo company; make one with POST /api/create-demo-company.',
        );
      return demo;
    },
  );

  r.post(
    '/api/account/copy-demo-company-fields',
    {
      schema: {
        tags: ['Account'],
        summary: 'Copy the demo fields into a company',
        description:
          'Adds a demo grower and farm with the demo fields to a company you can access (404 otherwise), to try planning on real boundaries.',
        body: CopyDemoFieldsRequest,
        response: answers({ 201: { schema: CopiedDemoFields, description: 'Copied.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      await requireCompany(store, req, req.body.companyId);
      const made = await store.transaction((tx) => seedDemoFields(tx, req.body.companyId));
      return reply.code(201).send({ companyId: req.body.companyId, ...made });
    },
  );
}
