/**
 * Hostile requests made from the service's own OpenAPI document: for every
 * operation, a plain request built from its schemas (required members only,
 * ids of the caller's company), then one change at a time in one place:
 *
 *   - string:  control characters (NUL, U+0001, U+001B), lone surrogates,
 *              bidi overrides, 70,000 characters, in every string member,
 *              query and path parameter;
 *   - number:  1e308, -1e308, 3e9, -1, 0 and 1e999 (as raw JSON text) in every
 *              number member and numeric query parameter;
 *   - cross:   every path and body id replaced by the id of the same kind of
 *              another company (the caller must not reach it);
 *   - type:    a wrong JSON type in every member and for the whole body;
 *   - deep:    arrays and objects nested thousands deep.
 *
 * Generation is pure and reproducible: the places come from the document,
 * the details (where a character goes, which wrong type, how deep) from
 * fast-check with a fixed seed.
 */
import fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema documents are walked freely
type Schema = any;

export interface OpenApiDocument {
  paths: Record<string, Record<string, Schema>>;
}

export type CaseKind = 'string' | 'number' | 'cross' | 'type' | 'deep';

export interface HostileCase {
  /** `METHOD /api/route/{param}` as in the OpenAPI document. */
  route: string;
  method: string;
  /** The path and query, percent-encoded. */
  url: string;
  /** Raw request body (JSON text, or a file for uploads); undefined: none. */
  body?: string;
  contentType?: string;
  kind: CaseKind;
  /** Where the change is: `path:name`, `query:name`, `body/a/0/b` or `body`. */
  slot: string;
  /** What was put there, for the report. */
  value: string;
  /** Sent with the partner admin's key (partner routes), not the company's. */
  asPartner?: boolean;
}

/** Ids of one company's objects, by parameter or member name (`companyId`, `fieldId`, ...). */
export type Ids = Record<string, string>;

/** Which id kind a parameter or member names (`pathPlanIds` -> `pathPlanId`, `shareIdOrCode` -> `shareId`). */
export function idKind(name: string): string | null {
  if (name === 'id') return 'id';
  if (name === 'shareIdOrCode') return 'shareId';
  if (name === 'code') return null;
  const m = /^([a-z][A-Za-z]*Id)s?$/.exec(name);
  return m ? m[1] : null;
}

/** A plain boundary: a ~5 ha rectangle (WGS84 rings, exterior first). */
export const RINGS = [
  [
    [10.1, 56.1],
    [10.104, 56.1],
    [10.104, 56.102],
    [10.1, 56.102],
    [10.1, 56.1],
  ],
];

/** A small file for uploads (the upload route takes a raw body). */
export const UPLOAD_FILE = JSON.stringify({
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', properties: { name: 'Upload' }, geometry: { type: 'Polygon', coordinates: RINGS } },
  ],
});

const MARK = '\u0000hostile-mark\u0000';

/**
 * Ids a plan model gives its own zones, groups and parts: labels inside the
 * one stored model (zone and group reads go through the plan), not
 * references to stored objects, so another company's value there reaches
 * nothing of that company.
 */
const MODEL_OWN_IDS = new Set(['zoneId', 'geometryGroupId', 'activeGeometryGroupId', 'geometryPartId']);

const nonNull = (s: Schema): Schema[] => (s.anyOf ?? s.oneOf ?? [s]).filter((b: Schema) => b.type !== 'null');

/** The branch a plain value is made from. */
function branch(s: Schema): Schema {
  if (!s || typeof s !== 'object') return {};
  if (s.anyOf || s.oneOf) return branch(nonNull(s)[0] ?? {});
  if (s.allOf) return Object.assign({}, ...s.allOf.map(branch));
  return s;
}

function typeOf(s: Schema): string | undefined {
  const b = branch(s);
  if (Array.isArray(b.type)) return b.type.find((t: string) => t !== 'null');
  if (b.type) return b.type;
  if (b.const !== undefined) return typeof b.const;
  if (b.enum) return typeof b.enum[0];
  if (b.properties) return 'object';
  return undefined;
}

/** Nesting depth of arrays of numbers: 1 a position, 2 a ring, 3 a polygon, 4 a multipolygon. */
function numberArrayDepth(s: Schema): number {
  const b = branch(s);
  if (typeOf(b) !== 'array') return typeOf(b) === 'number' ? 0 : -1;
  const inner = numberArrayDepth(b.items ?? {});
  return inner < 0 ? -1 : inner + 1;
}

const CANDIDATES = ['Hostile test', 'x', 'abc', 'a1', '1', 'A', 'tl_x', 'en', 'metric', 'UTC', 'sprayer'];

/** A plain value of a schema: valid where the schema alone can tell. */
export function plainValue(s: Schema, name: string, ids: Ids, n: { seq: number; tag?: number }): unknown {
  const b = branch(s);
  if (b.const !== undefined) return b.const;
  if (b.enum) return b.enum[0];
  if (b.default !== undefined && typeOf(b) !== 'object') return b.default;
  const kind = idKind(name);
  switch (typeOf(b)) {
    case 'string': {
      if (kind && ids[kind]) return ids[kind];
      if (b.format === 'uuid') return '0190a8f4-0000-7000-8000-000000000000';
      if (b.format === 'email') return `hostile-${n.tag ?? 0}-${++n.seq}@example.org`;
      if (b.format === 'date-time') return new Date(0).toISOString();
      if (b.format === 'date') return '2026-01-01';
      if (b.format === 'uri') return 'https://example.org/';
      if (name === 'wkt') return 'POLYGON((10.1 56.1,10.104 56.1,10.104 56.102,10.1 56.102,10.1 56.1))';
      const min = b.minLength ?? 0;
      const ok = (v: string) =>
        v.length >= min &&
        v.length <= (b.maxLength ?? Infinity) &&
        (!b.pattern || new RegExp(b.pattern, 'u').test(v));
      const found = CANDIDATES.find(ok) ?? CANDIDATES.map((c) => c.padEnd(min, 'x')).find(ok);
      return found ?? 'x'.repeat(Math.max(1, min));
    }
    case 'number':
    case 'integer': {
      const lo = b.minimum ?? (b.exclusiveMinimum !== undefined ? b.exclusiveMinimum + 1 : undefined);
      const hi = b.maximum ?? (b.exclusiveMaximum !== undefined ? b.exclusiveMaximum - 1 : undefined);
      let v = /time|seconds|limit|count|passes|offset/i.test(name) ? 1 : 6;
      if (lo !== undefined && v < lo) v = lo;
      if (hi !== undefined && v > hi) v = hi;
      return typeOf(b) === 'integer' ? Math.ceil(v) : v;
    }
    case 'boolean':
      return false;
    case 'array': {
      const depth = numberArrayDepth(b);
      if (depth === 1) return [...RINGS[0][0]];
      if (depth === 2) return RINGS[0].map((p) => [...p]);
      if (depth === 3) return RINGS.map((r) => r.map((p) => [...p]));
      if (depth === 4) return [RINGS.map((r) => r.map((p) => [...p]))];
      const items = b.items ?? {};
      const count = Math.max(b.minItems ?? 0, idKind(name) ? 1 : 0);
      return Array.from({ length: count }, () => plainValue(items, name, ids, n));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of b.required ?? []) out[k] = plainValue(b.properties?.[k] ?? {}, k, ids, n);
      if (b.properties?.type?.enum?.includes?.('Polygon') || b.properties?.type?.const === 'Polygon') {
        out.type = 'Polygon';
        out.coordinates = structuredClone(RINGS);
      }
      // "The members to change": at least one.
      const props = Object.entries<Schema>(b.properties ?? {});
      if (Object.keys(out).length < (b.minProperties ?? 0) && props.length) {
        const [k, v] = props[0];
        out[k] = plainValue(v, k, ids, n);
      }
      return out;
    }
    default:
      return {};
  }
}

interface Slot {
  /** Path of keys/indexes from the body root. */
  at: (string | number)[];
  schema: Schema;
  name: string;
}

/** Every member of a body schema (optional ones too), to a depth of 6. */
export function bodySlots(s: Schema, at: (string | number)[] = [], name = '', depth = 0): Slot[] {
  const out: Slot[] = [];
  if (at.length) out.push({ at, schema: s, name });
  if (depth >= 6) return out;
  const b = branch(s);
  const t = typeOf(b);
  if (t === 'object' && b.properties) {
    for (const [k, v] of Object.entries<Schema>(b.properties))
      out.push(...bodySlots(v, [...at, k], k, depth + 1));
  } else if (t === 'array' && b.items && numberArrayDepth(b) < 0) {
    out.push(...bodySlots(b.items, [...at, 0], name, depth + 1));
  } else if (t === 'array' && numberArrayDepth(b) >= 1) {
    // Coordinates: the first number of the first position.
    const depthOf = numberArrayDepth(b);
    out.push({ at: [...at, ...Array.from({ length: depthOf }, () => 0)], schema: { type: 'number' }, name });
  }
  return out;
}

/** The plain body with `value` put at `at`, making the objects and arrays on the way. */
export function withValue(
  body: unknown,
  root: Schema,
  at: (string | number)[],
  value: unknown,
  ids: Ids,
  n: { seq: number },
): unknown {
  if (at.length === 0) return value;
  const copy = structuredClone(body);
  let node = copy as Record<string | number, unknown>;
  let schema = root;
  for (let i = 0; i < at.length; i++) {
    const key = at[i];
    const b = branch(schema);
    const childSchema = typeof key === 'number' ? (b.items ?? {}) : (b.properties?.[key] ?? {});
    const childName = typeof key === 'number' ? String(at[i - 1] ?? '') : key;
    if (i === at.length - 1) {
      node[key] = value;
      break;
    }
    let next = node[key];
    if (next === null || typeof next !== 'object') {
      next = plainValue(childSchema, childName, ids, n);
      if (next === null || typeof next !== 'object') next = typeof at[i + 1] === 'number' ? [] : {};
      node[key] = next;
    }
    if (Array.isArray(next) && typeof at[i + 1] === 'number' && next.length === 0) {
      next.push(plainValue(branch(childSchema).items ?? {}, childName, ids, n));
    }
    node = next as Record<string | number, unknown>;
    schema = childSchema;
  }
  return copy;
}

/** JSON text with the marker string replaced by raw JSON text (1e999, deep nesting). */
function jsonWithRaw(value: unknown, raw: string): string {
  return JSON.stringify(value).replace(JSON.stringify(MARK), raw);
}

export const NUMBER_EXTREMES = ['1e308', '-1e308', '3e9', '-1', '0', '1e999'] as const;
const CONTROL = ['\u0000', '\u0001', '\u001b'] as const;
const SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];
const BIDI = ['\u202e', '\u202d', '\u202a', '\u2066', '\u2067', '\u2068', '\u2069'];
export const HUGE_LENGTH = 70_000;

/** Percent-encodes a path or query value; lone surrogates go as the bytes UTF-8 would give them. */
export function encodeComponent(v: string): string {
  let out = '';
  for (const ch of v) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) {
      out += `%${(0xe0 | (c >> 12)).toString(16).toUpperCase()}%${(0x80 | ((c >> 6) & 0x3f)).toString(16).toUpperCase()}%${(0x80 | (c & 0x3f)).toString(16).toUpperCase()}`;
    } else out += encodeURIComponent(ch);
  }
  return out;
}

const show = (v: string) =>
  v.length > 60
    ? `${JSON.stringify(v.slice(0, 12))}… (${v.length} chars)`
    : JSON.stringify(v).replace(/[\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/** Details drawn with fast-check: where a character goes and what surrounds it. */
interface Draws {
  insertAt: number;
  surrogate: string;
  bidi: string;
  hugeChar: string;
  wrong: number;
  deepKind: 'array' | 'object';
  deepLevels: number;
}

const drawsArb: fc.Arbitrary<Draws> = fc.record({
  insertAt: fc.nat({ max: 12 }),
  surrogate: fc.constantFrom(...SURROGATES),
  bidi: fc.constantFrom(...BIDI),
  hugeChar: fc.constantFrom('a', 'é', '田', '\u{1F33E}'),
  wrong: fc.nat({ max: 5 }),
  deepKind: fc.constantFrom('array' as const, 'object' as const),
  deepLevels: fc.constantFrom(1_000, 10_000, 100_000),
});

/** The hostile strings for one place: three control characters, a surrogate, a bidi override, a huge one. */
function hostileStrings(d: Draws, tag: number): { value: string; label: string }[] {
  const base = 'Hostile test';
  // The tag names the place, so junk found stored later leads back to the request that stored it.
  const put = (c: string) => `${base.slice(0, d.insertAt)}${c}${base.slice(d.insertAt)} #${tag}`;
  const huge = d.hugeChar.repeat(Math.ceil(HUGE_LENGTH / d.hugeChar.length)).slice(0, HUGE_LENGTH);
  return [
    ...CONTROL.map((c) => ({
      value: put(c),
      label: `control U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    })),
    { value: put(d.surrogate), label: `lone surrogate U+${d.surrogate.charCodeAt(0).toString(16)}` },
    { value: put(d.bidi), label: `bidi override U+${d.bidi.charCodeAt(0).toString(16)}` },
    { value: huge, label: `${HUGE_LENGTH} × ${JSON.stringify(d.hugeChar)}` },
  ];
}

function wrongTypes(t: string | undefined): unknown[] {
  switch (t) {
    case 'string':
      return [12345, true, {}, [], 1.5, { $ne: '' }];
    case 'number':
    case 'integer':
      return ['12', true, {}, [], '1e3', 'NaN'];
    case 'boolean':
      return ['true', 1, 0, {}, [], 'yes'];
    case 'array':
      return ['x', {}, 1, true, { length: 1 }, 'a,b'];
    case 'object':
      return ['x', [], 1, true, '{}', [{}]];
    default:
      return [[[[]]], 'x', 1, true, [{}], {}];
  }
}

function deepText(kind: 'array' | 'object', levels: number): string {
  return kind === 'array'
    ? `${'['.repeat(levels)}${']'.repeat(levels)}`
    : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** Routes whose non-id parts are not changed while the caller's real ids are in them (they would remove the fixture). */
export function destructive(method: string, path: string): boolean {
  return (
    method === 'DELETE' ||
    /\/(delete|purge|archive|hide|cancel|delete-plans|ungroup-plan\/[^/]+|logout)$/.test(path)
  );
}

export interface GenerateOptions {
  doc: OpenApiDocument;
  /** The caller's ids (company A). */
  own: Ids;
  /** Another company's ids (company B). */
  other: Ids;
  seed: number;
  /** Operations left out (`METHOD /route`), e.g. ones whose cost is planning, not checking. */
  skip?: (method: string, path: string, op: Schema) => boolean;
}

/** Every hostile case the document gives, in a fixed order. */
export function generateCases(o: GenerateOptions): HostileCase[] {
  const n = { seq: 0, tag: o.seed };
  const draws = fc.sample(drawsArb, { seed: o.seed, numRuns: 20_000 });
  let di = 0;
  let tags = 0;
  const draw = () => draws[di++ % draws.length];
  const cases: HostileCase[] = [];

  for (const [path, ops] of Object.entries(o.doc.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const [m, op] of Object.entries<Schema>(ops)) {
      const method = m.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].includes(method)) continue;
      if (o.skip?.(method, path, op)) continue;
      const route = `${method} ${path}`;
      const params: Schema[] = (op.parameters ?? []).filter(
        (p: Schema) => p.in === 'path' || p.in === 'query',
      );
      const pathValues: Record<string, string> = {};
      for (const p of params.filter((x) => x.in === 'path')) {
        pathValues[p.name] = String(plainValue(p.schema ?? {}, p.name, o.own, n));
      }
      const queryValues: Record<string, string> = {};
      for (const p of params.filter((x) => x.in === 'query' && x.required)) {
        queryValues[p.name] = String(plainValue(p.schema ?? {}, p.name, o.own, n));
      }
      const jsonSchema = op.requestBody?.content?.['application/json']?.schema;
      const upload = /\/file-upload$/.test(path) && !jsonSchema;
      const plainBody = jsonSchema ? plainValue(jsonSchema, '', o.own, n) : undefined;
      const isDestructive = destructive(method, path);

      const build = (
        kind: CaseKind,
        slot: string,
        value: string,
        change: { path?: Record<string, string>; query?: Record<string, string>; body?: string },
      ): HostileCase => {
        const pv = { ...pathValues, ...change.path };
        const qv = { ...queryValues, ...change.query };
        const url =
          path.replace(/\{([^}]+)\}/g, (_, k: string) => encodeComponent(pv[k] ?? 'x')) +
          (Object.keys(qv).length
            ? `?${Object.entries(qv)
                .map(([k, v]) => `${encodeURIComponent(k)}=${encodeComponent(v)}`)
                .join('&')}`
            : '');
        const raw =
          change.body ?? (jsonSchema ? JSON.stringify(plainBody) : upload ? UPLOAD_FILE : undefined);
        // Each request registers its own e-mail address, so registrations do not refuse each other.
        const body = raw?.replace(
          /hostile-(\d+)-\d+@example\.org/g,
          `hostile-$1-c${cases.length}@example.org`,
        );
        return {
          ...(op.tags?.includes('Partner') ? { asPartner: true } : {}),
          route,
          method,
          url,
          body,
          contentType: body === undefined ? undefined : upload ? 'application/geo+json' : 'application/json',
          kind,
          slot,
          value,
        };
      };

      // Path parameters: another company's id, and hostile strings.
      for (const p of params.filter((x) => x.in === 'path')) {
        const kind = idKind(p.name);
        if (kind && o.other[kind]) {
          cases.push(
            build('cross', `path:${p.name}`, `${kind} of another company`, {
              path: { [p.name]: o.other[kind] },
            }),
          );
        }
        for (const h of hostileStrings(draw(), ++tags)) {
          cases.push(
            build('string', `path:${p.name}`, `${h.label}: ${show(h.value)}`, {
              path: { [p.name]: h.value },
            }),
          );
        }
      }
      // Query parameters.
      for (const p of params.filter((x) => x.in === 'query')) {
        if (isDestructive) continue;
        const t = typeOf(p.schema ?? {});
        const kind = idKind(p.name);
        if (kind && o.other[kind]) {
          cases.push(
            build('cross', `query:${p.name}`, `${kind} of another company`, {
              query: { [p.name]: o.other[kind] },
            }),
          );
        }
        for (const h of hostileStrings(draw(), ++tags)) {
          cases.push(
            build('string', `query:${p.name}`, `${h.label}: ${show(h.value)}`, {
              query: { [p.name]: h.value },
            }),
          );
        }
        if (t === 'number' || t === 'integer') {
          for (const x of NUMBER_EXTREMES)
            cases.push(build('number', `query:${p.name}`, x, { query: { [p.name]: x } }));
        } else if (t === 'boolean') {
          cases.push(build('type', `query:${p.name}`, '"maybe"', { query: { [p.name]: 'maybe' } }));
        }
      }
      if (!jsonSchema) continue;

      // Body members.
      const bodyOf = (at: (string | number)[], raw: string) =>
        jsonWithRaw(withValue(plainBody, jsonSchema, at, MARK, o.own, n), raw);
      for (const s of bodySlots(jsonSchema)) {
        const where = `body/${s.at.join('/')}`;
        const t = typeOf(s.schema);
        const kind = idKind(s.name);
        if (kind && o.other[kind] && !MODEL_OWN_IDS.has(kind) && (t === 'string' || t === 'array')) {
          const v = t === 'array' ? [o.other[kind]] : o.other[kind];
          cases.push(
            build('cross', where, `${kind} of another company`, { body: bodyOf(s.at, JSON.stringify(v)) }),
          );
        }
        if (isDestructive) continue;
        if (t === 'string' || t === undefined) {
          for (const h of hostileStrings(draw(), ++tags)) {
            cases.push(
              build('string', where, `${h.label}: ${show(h.value)}`, {
                body: bodyOf(s.at, JSON.stringify(h.value)),
              }),
            );
          }
        }
        if (t === 'number' || t === 'integer') {
          for (const x of NUMBER_EXTREMES) cases.push(build('number', where, x, { body: bodyOf(s.at, x) }));
        }
        const d = draw();
        const wrong = wrongTypes(t)[d.wrong];
        cases.push(
          build('type', where, JSON.stringify(wrong), { body: bodyOf(s.at, JSON.stringify(wrong)) }),
        );
        if (t === 'object' || t === 'array' || t === undefined) {
          const text = deepText(d.deepKind, d.deepLevels);
          cases.push(
            build('deep', where, `${d.deepKind}s ${d.deepLevels} deep`, { body: bodyOf(s.at, text) }),
          );
        }
      }
      // The whole body.
      const d = draw();
      const wrong = wrongTypes(typeOf(jsonSchema))[d.wrong];
      cases.push(build('type', 'body', JSON.stringify(wrong), { body: JSON.stringify(wrong) }));
      cases.push(
        build('deep', 'body', `${d.deepKind}s ${d.deepLevels} deep`, {
          body: deepText(d.deepKind, d.deepLevels),
        }),
      );
    }
  }
  return cases;
}

/** A reproducible sample of `size` cases (every kind keeps its share). */
export function sampleCases(cases: HostileCase[], size: number, seed: number): HostileCase[] {
  if (cases.length <= size) return cases;
  const [picked] = fc.sample(
    fc.shuffledSubarray(
      cases.map((_, i) => i),
      { minLength: size, maxLength: size },
    ),
    { seed, numRuns: 1 },
  );
  return picked.sort((a, b) => a - b).map((i) => cases[i]);
}
