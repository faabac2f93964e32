/**
 * THE input rule for every request: one walk over the parsed body, query
 * and path parameters before any handler or schema sees them. What the
 * service stores has to be text PostgreSQL and JSON can hold, of a size a
 * list can show, and numbers whose sums stay finite:
 *
 * - text is well-formed Unicode (no lone surrogate) without control
 *   characters (U+0000-U+001F, U+007F-U+009F); tab, CR and line feed only
 *   in multi-line texts (notes, comments, descriptions, WKT, the free-form
 *   `properties` of GeoJSON features); without the bidirectional embedding,
 *   override and isolate controls (U+202A-U+202E, U+2066-U+2069) that make
 *   a text display otherwise than it reads. 400 INVALID_TEXT.
 * - names (`name`, `...Name`, `operationType`, `source`, `search`, `label`)
 *   are at most 200 characters, multi-line texts 2,000, any other text
 *   16,384 (WKT and other geometry text: only the body limit). 400
 *   TEXT_TOO_LONG.
 * - JSON nests at most 32 deep. 400 NESTING_TOO_DEEP.
 * - numbers are finite and at most 1e15 in magnitude; areas (`area`,
 *   `...Area`) at most 1e10 m², distances and lengths (`...distance`,
 *   `...length`, `...width`, `...radius`, `...offset`, `...spacing`) at
 *   most 1e8 m, counts and indexes (`numberOf...`, `...Count`, `count`,
 *   `sequence`, `...Index`) at most 2^31-1, bearings and headings (`...bearing`, `...heading`, also with
 *   `Deg`) at most 360 degrees. 400 NUMBER_OUT_OF_RANGE.
 *
 * Each refusal names the member by JSON pointer (`/plan/area`,
 * `/querystring/search`) and says what is accepted. Route schemas state
 * the same limits where they define a field (maxLength, maximum), so the
 * OpenAPI document shows them.
 */
import { type FieldError, validationError } from './errors.ts';

export const MAX_NAME_LENGTH = 200;
export const MAX_MULTILINE_LENGTH = 2000;
export const MAX_TEXT_LENGTH = 16_384;
export const MAX_NESTING_DEPTH = 32;
export const MAX_NUMBER = 1e15;
export const MAX_AREA = 1e10;
export const MAX_DISTANCE = 1e8;
export const MAX_COUNT = 2 ** 31 - 1;
export const MAX_BEARING = 360;

export type InputErrorCode = 'INVALID_TEXT' | 'TEXT_TOO_LONG' | 'NESTING_TOO_DEEP' | 'NUMBER_OUT_OF_RANGE';

export interface InputError extends FieldError {
  code: InputErrorCode;
}

type TextKind = 'name' | 'multiline' | 'geometry' | 'text';

const MULTILINE_KEYS = new Set([
  'notes',
  'note',
  'comment',
  'comments',
  'ratingComment',
  'description',
  'reason',
  'message',
]);
const GEOMETRY_TEXT_KEYS = new Set(['wkt', 'kml', 'gpx', 'modelZ']);
const NAME_KEYS = new Set(['name', 'operationType', 'source', 'search', 'label', 'title']);

function textKind(key: string | undefined, inProperties: boolean): TextKind {
  if (key === undefined) return inProperties ? 'multiline' : 'text';
  if (GEOMETRY_TEXT_KEYS.has(key)) return 'geometry';
  if (MULTILINE_KEYS.has(key) || /(Notes|Comment|Description)$/.test(key)) return 'multiline';
  if (NAME_KEYS.has(key) || /Name$/.test(key)) return 'name';
  return inProperties ? 'multiline' : 'text';
}

const LIMIT: Record<TextKind, number> = {
  name: MAX_NAME_LENGTH,
  multiline: MAX_MULTILINE_LENGTH,
  geometry: Number.POSITIVE_INFINITY,
  text: MAX_TEXT_LENGTH,
};

function numberLimit(key: string | undefined): { max: number; what: string } {
  if (key !== undefined) {
    if (/(^a|A)reas?$/.test(key)) return { max: MAX_AREA, what: 'an area [m²]' };
    if (/^(numberOf|count$|sequence$)|Count$|Index$/.test(key))
      return { max: MAX_COUNT, what: 'a count or index' };
    if (/(^b|B)earing(Deg)?$|(^h|H)eading(Deg)?$/.test(key))
      return { max: MAX_BEARING, what: 'a bearing [deg]' };
    if (/(^d|D)istance|(^l|L)engths?$|(^w|W)idths?$|(^r|R)adi(us|i)$|(^o|O)ffsets?$|(^s|S)pacing$/.test(key))
      return { max: MAX_DISTANCE, what: 'a distance [m]' };
  }
  return { max: MAX_NUMBER, what: 'a number' };
}

// C0 controls, DEL and C1 controls; tab, LF and CR are told apart below.
// biome-ignore lint/suspicious/noControlCharactersInRegex: this rule is about control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: this rule is about control characters
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Bidirectional embedding, override and isolate controls ("Trojan Source", CVE-2021-42574). */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

/** Whether `s` has more than `limit` characters, counted as code points (as JSON Schema's maxLength counts them). */
function longerThan(s: string, limit: number): boolean {
  if (s.length <= limit) return false;
  if (s.length > 2 * limit) return true;
  let n = 0;
  for (const _ of s) if (++n > limit) return true;
  return false;
}

function controlName(s: string, re: RegExp): string {
  const m = re.exec(s);
  const c = m ? m[0].charCodeAt(0) : 0;
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}

const pointerToken = (k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Plain JSON containers only: parsed bodies and queries (their prototype is
 * Object.prototype, null, or an empty one without a prototype); multipart
 * parts, buffers and streams are not walked.
 */
function isPlainObject(v: object): boolean {
  const p = Object.getPrototypeOf(v);
  return p === null || Object.getPrototypeOf(p) === null;
}

/** The problems of `value` under the rule, each with its pointer (at most `max`). */
export function inputProblems(value: unknown, root = '', max = 20): InputError[] {
  const out: InputError[] = [];
  const walk = (v: unknown, path: string, key: string | undefined, depth: number, inProps: boolean) => {
    if (out.length >= max) return;
    if (typeof v === 'string') {
      if (!v.isWellFormed()) {
        out.push({
          path,
          code: 'INVALID_TEXT',
          message: 'must be well-formed Unicode text (it holds a lone surrogate)',
        });
        return;
      }
      const kind = textKind(key, inProps);
      const lines = kind === 'multiline' || kind === 'geometry';
      const re = lines ? CONTROL_EXCEPT_LINES : CONTROL;
      if (re.test(v)) {
        out.push({
          path,
          code: 'INVALID_TEXT',
          message: `must not contain control characters (found ${controlName(v, re)}); ${
            lines
              ? 'tab, CR and line feed are accepted here'
              : 'tab, CR and line feed are accepted only in multi-line texts (notes, comments, descriptions)'
          }`,
        });
        return;
      }
      if (kind !== 'geometry' && BIDI_CONTROL.test(v)) {
        out.push({
          path,
          code: 'INVALID_TEXT',
          message: `must not contain bidirectional override or isolate controls (found ${controlName(v, BIDI_CONTROL)}, U+202A-U+202E and U+2066-U+2069 are refused)`,
        });
        return;
      }
      const limit = LIMIT[kind];
      if (longerThan(v, limit)) {
        out.push({
          path,
          code: 'TEXT_TOO_LONG',
          message: `must be at most ${limit} characters (${kind === 'name' ? 'names' : kind === 'multiline' ? 'multi-line texts' : 'texts'})`,
        });
      }
      return;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) {
        out.push({ path, code: 'NUMBER_OUT_OF_RANGE', message: 'must be a finite number' });
        return;
      }
      const { max: limit, what } = numberLimit(key);
      if (Math.abs(v) > limit) {
        out.push({
          path,
          code: 'NUMBER_OUT_OF_RANGE',
          message: `must be at most ${limit === MAX_COUNT ? '2147483647' : limit.toExponential().replace('e+', 'e')} in magnitude (${what})`,
        });
      }
      return;
    }
    if (v === null || typeof v !== 'object') return;
    if (!Array.isArray(v) && !isPlainObject(v)) return;
    if (depth >= MAX_NESTING_DEPTH) {
      out.push({
        path,
        code: 'NESTING_TOO_DEEP',
        message: `nests too deep: at most ${MAX_NESTING_DEPTH} levels of arrays and objects are accepted`,
      });
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && out.length < max; i++)
        walk(v[i], `${path}/${i}`, key, depth + 1, inProps);
      return;
    }
    for (const k of Object.keys(v)) {
      if (out.length >= max) return;
      if (!k.isWellFormed() || CONTROL.test(k)) {
        out.push({
          path: `${path}/${pointerToken(k.toWellFormed())}`,
          code: 'INVALID_TEXT',
          message: 'is a member name with a lone surrogate or control characters',
        });
        continue;
      }
      walk(
        (v as Record<string, unknown>)[k],
        `${path}/${pointerToken(k)}`,
        k,
        depth + 1,
        inProps || k === 'properties',
      );
    }
  };
  walk(value, root, undefined, 0, false);
  return out;
}

/** Throws the 400 for the first problems of a request's body, query and path parameters. */
export function checkRequestInput(parts: { body?: unknown; query?: unknown; params?: unknown }): void {
  const problems = [
    ...inputProblems(parts.params, '/params'),
    ...inputProblems(parts.query, '/querystring'),
    ...inputProblems(parts.body, ''),
  ];
  if (problems.length === 0) return;
  throw validationError(
    problems.map(({ path, message }) => ({ path, message })),
    undefined,
    problems[0].code,
  );
}
