/**
 * Lookups (spec 4.4, "Analytics, notifications, lookup, health"):
 *   GET /api/countries            ISO 3166-1 countries { code, name }, sorted by name
 *   GET /api/countries/detailed   the same with native name, continent, capital, currencies, calling codes
 *   GET /api/currencies           all ISO 4217 currencies { code, name, numericCode, minorUnits }
 *   GET /api/currencies/featured  the featured currencies (EUR, USD, GBP, ...)
 *
 * The lists come from maintained packages (formats/lookups.ts) and change
 * only with them: each answer is made once, carries a strong ETag (a hash
 * of its bytes) and Cache-Control, and `If-None-Match` with that ETag gets
 * 304 without a body.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import {
  CURRENCY_DATA_DATE,
  countryList,
  currencyList,
  detailedCountryList,
  featuredCurrencyList,
} from '../../formats/lookups.ts';
import { answers } from './common.ts';

export const LOOKUP_CACHE_CONTROL = 'public, max-age=86400';

const Country = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code.' }),
    name: Type.String({ description: 'English short name.' }),
  },
  { $id: 'Country', title: 'Country' },
);

const CountryDetailed = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code.' }),
    name: Type.String({ description: 'English short name.' }),
    nativeName: Type.String({ description: 'The name in the (first) national language.' }),
    continent: Type.Object(
      {
        code: Type.String({ description: 'AF, AN, AS, EU, NA, OC or SA.' }),
        name: Type.String(),
      },
      { description: 'The main continent.' },
    ),
    capital: Type.Union([Type.String(), Type.Null()]),
    currencies: Type.Array(Type.String({ pattern: '^[A-Z]{3}$' }), {
      description: 'ISO 4217 codes of the currencies in use, main one first.',
    }),
    callingCodes: Type.Array(Type.String({ pattern: '^\\+[0-9]+$' }), {
      description: 'International calling codes, as "+45".',
    }),
  },
  { $id: 'CountryDetailed', title: 'CountryDetailed' },
);

const Currency = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 alphabetic code.' }),
    name: Type.String({ description: 'ISO 4217 currency name.' }),
    numericCode: Type.String({ pattern: '^[0-9]{3}$', description: 'ISO 4217 numeric code.' }),
    minorUnits: Type.Integer({ minimum: 0, description: 'Digits after the decimal separator.' }),
  },
  { $id: 'Currency', title: 'Currency' },
);

const CountryList = Type.Array(Country, { $id: 'CountryList', title: 'CountryList' });
const CountryDetailedList = Type.Array(CountryDetailed, {
  $id: 'CountryDetailedList',
  title: 'CountryDetailedList',
});
const CurrencyList = Type.Array(Currency, { $id: 'CurrencyList', title: 'CurrencyList' });

interface Fixed {
  body: string;
  etag: string;
}

function fixed(value: unknown): Fixed {
  const body = JSON.stringify(value);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Whether an If-None-Match header names `etag` (or `*`); weak comparison, RFC 9110 13.1.2. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etag);
}

function sendFixed(req: FastifyRequest, reply: FastifyReply, f: Fixed) {
  reply.header('etag', f.etag).header('cache-control', LOOKUP_CACHE_CONTROL);
  if (noneMatch(req.headers['if-none-match'], f.etag)) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(f.body);
}

const NOT_MODIFIED = {
  304: { schema: null, description: 'Not Modified: If-None-Match named the current ETag.' },
};

export async function lookupRoutes(app: FastifyInstance): Promise<void> {
  // Made lazily, once per process.
  const lists = new Map<string, Fixed>();
  const once = (name: string, make: () => unknown): Fixed => {
    let f = lists.get(name);
    if (!f) {
      f = fixed(make());
      lists.set(name, f);
    }
    return f;
  };
  const lookup = (
    path: string,
    summary: string,
    description: string,
    schema: TSchema,
    okText: string,
    make: () => unknown,
  ) =>
    app.get(
      path,
      {
        schema: {
          tags: ['Lookups'],
          summary,
          description: `${description} Cacheable: answered with a strong ETag and \`Cache-Control: ${LOOKUP_CACHE_CONTROL}\`; \`If-None-Match\` with the ETag gets 304.`,
          response: answers({ 200: { schema, description: okText }, ...NOT_MODIFIED }),
        },
      },
      async (req, reply) => sendFixed(req, reply, once(path, make)),
    );

  lookup(
    '/api/countries',
    'Countries',
    'Every ISO 3166-1 country (alpha-2 code and English name; user-assigned codes left out), sorted by name, unpaged. From the `countries-list` package.',
    CountryList,
    'The countries, sorted by name.',
    countryList,
  );
  lookup(
    '/api/countries/detailed',
    'Countries with currencies and calling codes',
    'The countries of GET /api/countries with native name, continent, capital, ISO 4217 currency codes and international calling codes, sorted by name, unpaged.',
    CountryDetailedList,
    'The countries, sorted by name.',
    detailedCountryList,
  );
  lookup(
    '/api/currencies',
    'Currencies',
    `Every ISO 4217 currency (code, name, numeric code, minor-unit digits), sorted by code. From the \`currency-codes\` package (ISO 4217 of ${CURRENCY_DATA_DATE}).`,
    CurrencyList,
    'The currencies, sorted by code.',
    currencyList,
  );
  lookup(
    '/api/currencies/featured',
    'Featured currencies',
    'The currencies offered first: those of the main farming markets (EUR, USD, GBP, CAD, AUD, NZD, BRL, ARS, CHF, DKK, SEK, NOK, PLN, CZK, HUF, RON, UAH, ZAR), in that order, with the ISO 4217 data of GET /api/currencies.',
    CurrencyList,
    'The featured currencies.',
    featuredCurrencyList,
  );
}
