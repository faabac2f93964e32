/**
 * Map location search (spec 4.4, "External boundaries and location search";
 * integrations/location-search.ts):
 *   GET /api/map-location-search/providers
 *   GET /api/map-location-search/search?q=...[&providers=a,b][&limit][&companyId]
 *   GET /api/map-location-search/autocomplete?q=...[&providers=a,b][&limit][&companyId]
 *
 * Both answer a GeoJSON FeatureCollection of Point features, best first,
 * each with properties.name, kind (grower, farm, field, place, address) and
 * provider. Search asks every provider by default; autocomplete, called
 * while the user types, asks the embedded provider only unless providers
 * names others, and answers fewer places by default.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { EMBEDDED_PROVIDER, type LocationSearch } from '../../integrations/location-search.ts';
import type { Store } from '../../store/db.ts';
import { createPlaceNamesRepository } from '../../store/repositories/place-names.ts';
import { validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers, principalOf, Uuid } from './common.ts';

const TAGS = ['Location search'];

const LocationProviderSchema = named(
  'LocationSearchProvider',
  Type.Object({
    providerId: Type.String({ description: 'What providers= names.' }),
    title: Type.String(),
    kinds: Type.Array(Type.String(), { description: 'Kinds of places it answers.' }),
    attribution: Type.Union([Type.String(), Type.Null()]),
  }),
);

const LocationProviderList = named(
  'LocationSearchProviderList',
  Type.Object({ providers: Type.Array(LocationProviderSchema) }),
);

const SearchQuery = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The text to find (a name or the start of one).',
    }),
    providers: Type.Optional(
      Type.String({ maxLength: 500, description: 'Comma-separated provider ids (see /providers).' }),
    ),
    limit: Type.Optional(
      Type.String({
        pattern: '^([1-9]|[1-4][0-9]|50)$',
        description: 'Whole number 1 to 50; default 10 (autocomplete 5).',
      }),
    ),
    companyId: Type.Optional(
      Uuid("Only this company's growers, farms and fields (default: all the user can access)."),
    ),
  },
  { additionalProperties: false },
);

const LocationFeatureSchema = named(
  'LocationFeature',
  Type.Object({
    type: Type.Literal('Feature'),
    geometry: Type.Object({
      type: Type.Literal('Point'),
      coordinates: Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[lon, lat] WGS84.' }),
    }),
    properties: Type.Object({
      name: Type.String(),
      kind: Type.Union(
        ['grower', 'farm', 'field', 'place', 'address'].map((k) => Type.Literal(k)),
        {
          description:
            'grower, farm and field: records of the company (centre of their boundaries); place: a city or town; address: from the external geocoder.',
        },
      ),
      provider: Type.String(),
      label: Type.String({ description: 'The name with where it is, for people.' }),
      id: Type.Optional(Type.String({ description: 'The grower, farm or field id.' })),
      companyId: Type.Optional(Type.String()),
      country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2 code of a place.' })),
      population: Type.Optional(Type.Integer()),
    }),
  }),
);

const LocationCollection = named(
  'LocationFeatureCollection',
  Type.Object({
    type: Type.Literal('FeatureCollection'),
    query: Type.String(),
    features: Type.Array(LocationFeatureSchema),
  }),
);

type Query = Static<typeof SearchQuery>;

export async function locationSearchRoutes(
  app: FastifyInstance,
  opts: { store: Store; search: LocationSearch },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { search } = opts;
  const places = createPlaceNamesRepository(opts.store.db);

  const answer = async (req: FastifyRequest<{ Querystring: Query }>, auto: boolean) => {
    const q = req.query.q.trim();
    if (!q) {
      throw validationError([{ path: '/querystring/q', message: 'must contain a letter or digit' }]);
    }
    const known = search.providers().map((p) => p.providerId);
    let providers = auto ? [EMBEDDED_PROVIDER] : known;
    if (req.query.providers !== undefined) {
      providers = [
        ...new Set(
          req.query.providers
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      ];
      const unknown = providers.find((p) => !known.includes(p));
      if (unknown !== undefined || providers.length === 0) {
        throw validationError(
          [{ path: '/querystring/providers', message: `names unknown provider ${unknown ?? '(none)'}` }],
          `Invalid request: providers names unknown provider "${(unknown ?? '').slice(0, 100)}"; known: ${known.join(', ')}.`,
          'UNKNOWN_PROVIDER',
        );
      }
    }
    const limit = Number(req.query.limit ?? (auto ? 5 : 10));
    const userId = principalOf(req).userId;
    const features = await search.search(q, {
      limit,
      providers,
      own: (text, n) => places.search(userId, text, n, req.query.companyId),
    });
    return { type: 'FeatureCollection' as const, query: q, features };
  };

  r.get(
    '/api/map-location-search/providers',
    {
      schema: {
        tags: TAGS,
        summary: 'Location search providers',
        response: answers({ 200: { schema: LocationProviderList, description: 'The providers.' } }),
      },
    },
    async () => ({ providers: search.providers() }),
  );

  r.get(
    '/api/map-location-search/search',
    {
      schema: {
        tags: TAGS,
        summary: 'Places for a text',
        description:
          "Growers, farms and fields of the user's companies and cities and towns (and addresses from an external geocoder when configured), best first: whole-name matches, then names starting with the text, then words starting with it; larger places first.",
        querystring: SearchQuery,
        response: answers({ 200: { schema: LocationCollection, description: 'Best first.' } }, 400),
      },
    },
    async (req) => answer(req, false),
  );

  r.get(
    '/api/map-location-search/autocomplete',
    {
      schema: {
        tags: TAGS,
        summary: 'Places starting with a text, while typing',
        description:
          'As search, with 5 places by default and only the embedded provider unless providers names others.',
        querystring: SearchQuery,
        response: answers({ 200: { schema: LocationCollection, description: 'Best first.' } }, 400),
      },
    },
    async (req) => answer(req, true),
  );
}
