/**
 * Lookup lists built from maintained data packages, never from tables kept
 * here: countries (ISO 3166-1 alpha-2, from `countries-list`) and currencies
 * (ISO 4217, from `currency-codes`). They change only when a package does.
 */
import { continents, countries } from 'countries-list';
import currencyCodes from 'currency-codes';

export interface Country {
  code: string;
  name: string;
}

export interface CountryDetailed extends Country {
  nativeName: string;
  continent: { code: string; name: string };
  capital: string | null;
  currencies: string[];
  callingCodes: string[];
}

export interface Currency {
  code: string;
  name: string;
  numericCode: string;
  minorUnits: number;
}

/**
 * Currencies shown first in pickers: those of the main farming markets the
 * service is used in (EU, UK, the Americas, Oceania, Nordics, Central and
 * Eastern Europe, South Africa). Every code must exist in ISO 4217 (checked
 * when the list is built).
 */
export const FEATURED_CURRENCY_CODES = [
  'EUR',
  'USD',
  'GBP',
  'CAD',
  'AUD',
  'NZD',
  'BRL',
  'ARS',
  'CHF',
  'DKK',
  'SEK',
  'NOK',
  'PLN',
  'CZK',
  'HUF',
  'RON',
  'UAH',
  'ZAR',
] as const;

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name, 'en');

/** ISO 3166-1 countries (user-assigned codes such as XK left out), sorted by English name. */
export function countryList(): Country[] {
  return detailedCountryList().map(({ code, name }) => ({ code, name }));
}

export function detailedCountryList(): CountryDetailed[] {
  return Object.entries(countries)
    .filter(([, c]) => !c.userAssigned)
    .map(([code, c]) => ({
      code,
      name: c.name,
      nativeName: c.native,
      continent: { code: c.continent, name: continents[c.continent] },
      capital: c.capital || null,
      currencies: [...c.currency],
      callingCodes: c.phone.map((p) => `+${p}`),
    }))
    .sort(byName);
}

function currencyOf(code: string): Currency {
  const c = currencyCodes.code(code);
  if (!c) throw new Error(`ISO 4217 has no currency ${code}.`);
  return { code: c.code, name: c.currency, numericCode: c.number, minorUnits: c.digits };
}

/** All ISO 4217 currencies, sorted by code. */
export function currencyList(): Currency[] {
  return currencyCodes
    .codes()
    .map(currencyOf)
    .sort((a, b) => a.code.localeCompare(b.code));
}

/** The featured currencies, in FEATURED_CURRENCY_CODES order. */
export function featuredCurrencyList(): Currency[] {
  return FEATURED_CURRENCY_CODES.map(currencyOf);
}

/** The edition of ISO 4217 that `currency-codes` carries (YYYY-MM-DD). */
export const CURRENCY_DATA_DATE: string = currencyCodes.publishDate;
