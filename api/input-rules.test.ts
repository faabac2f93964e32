/** The input rule on its own: what each kind of member accepts, and the pointer of each refusal. */
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { checkRequestInput, inputProblems, MAX_NESTING_DEPTH } from './input-rules.ts';

const codes = (v: unknown) => inputProblems(v).map((p) => `${p.code} ${p.path}`);

describe('the input rule', () => {
  it('accepts ordinary JSON: names, notes with line breaks, WKT, coordinates, timestamps', () => {
    expect(
      codes({
        name: 'Nørre Mark 🌾',
        notes: 'line one\r\n\tline two',
        wkt: 'POLYGON ((10 55,\n 10.1 55, 10.1 55.1, 10 55))',
        boundary: {
          type: 'Polygon',
          coordinates: [
            [
              [10, 55],
              [10.1, 55],
              [10, 55.1],
              [10, 55],
            ],
          ],
        },
        properties: { description: 'a\nb', anything: 'x\ty' },
        createdAt: 1_764_000_000_000,
        area: 1e10,
        numberOfTracks: 2 ** 31 - 1,
        swathWidth: 36,
      }),
    ).toEqual([]);
  });

  it('refuses NUL, other control characters and lone surrogates, naming the member', () => {
    expect(codes({ name: 'a\u0000' })).toEqual(['INVALID_TEXT /name']);
    expect(codes({ a: { b: ['x', 'y\u0085'] } })).toEqual(['INVALID_TEXT /a/b/1']);
    expect(codes({ name: 'two\nlines' })).toEqual(['INVALID_TEXT /name']);
    expect(codes({ notes: 'bell\u0007' })).toEqual(['INVALID_TEXT /notes']);
    expect(codes({ value: 'a\ud800' })).toEqual(['INVALID_TEXT /value']);
    expect(codes({ value: '\udc00b' })).toEqual(['INVALID_TEXT /value']);
    expect(codes({ 'a/b~': 'x\u0000' })).toEqual(['INVALID_TEXT /a~1b~0']);
    expect(codes({ 'k\u0000': 1 })).toEqual(['INVALID_TEXT /k\u0000']);
  });

  it('refuses bidirectional override and isolate controls in text, not in geometry text', () => {
    expect(codes({ name: 'H\u2066ostile' })).toEqual(['INVALID_TEXT /name']);
    expect(codes({ name: 'invoice\u202Efdp.exe' })).toEqual(['INVALID_TEXT /name']);
    expect(codes({ notes: 'a \u2067b\u2069 c' })).toEqual(['INVALID_TEXT /notes']);
    expect(codes({ name: 'שדה צפוני', notes: 'left\u200Eto\u200Fright marks' })).toEqual([]);
    expect(inputProblems({ name: 'x\u202Dy' })[0].message).toContain('U+202D');
  });

  it('limits names to 200 characters (code points), multi-line texts to 2,000, other texts to 16,384', () => {
    expect(codes({ name: 'x'.repeat(200), fieldName: '🌾'.repeat(200) })).toEqual([]);
    expect(codes({ name: 'x'.repeat(201) })).toEqual(['TEXT_TOO_LONG /name']);
    expect(codes({ pathPlanName: '🌾'.repeat(201) })).toEqual(['TEXT_TOO_LONG /pathPlanName']);
    expect(codes({ comment: 'x'.repeat(2000) })).toEqual([]);
    expect(codes({ comment: 'x'.repeat(2001) })).toEqual(['TEXT_TOO_LONG /comment']);
    expect(codes({ value: 'x'.repeat(16_385) })).toEqual(['TEXT_TOO_LONG /value']);
    expect(codes({ wkt: 'x'.repeat(100_000) })).toEqual([]);
  });

  it('limits nesting depth', () => {
    let v: unknown = 1;
    for (let i = 0; i < MAX_NESTING_DEPTH; i++) v = [v];
    expect(codes(v)).toEqual([]);
    expect(codes([v])[0]).toMatch(/^NESTING_TOO_DEEP \/0(\/0)+$/);
    expect(codes(JSON.parse(`${'['.repeat(5000)}${']'.repeat(5000)}`))).toHaveLength(1);
  });

  it('refuses non-finite numbers and numbers out of their range', () => {
    expect(codes({ value: Number.POSITIVE_INFINITY })).toEqual(['NUMBER_OUT_OF_RANGE /value']);
    expect(codes({ value: Number.NaN })).toEqual(['NUMBER_OUT_OF_RANGE /value']);
    expect(codes({ area: 1.1e10, totalArea: -2e10 })).toEqual([
      'NUMBER_OUT_OF_RANGE /area',
      'NUMBER_OUT_OF_RANGE /totalArea',
    ]);
    expect(codes({ numberOfTracks: 3e9, trackCount: 2 ** 31 })).toEqual([
      'NUMBER_OUT_OF_RANGE /numberOfTracks',
      'NUMBER_OUT_OF_RANGE /trackCount',
    ]);
    expect(codes({ stats: { totalDistance: 1.5e8 }, swathWidth: 1e9 })).toEqual([
      'NUMBER_OUT_OF_RANGE /stats/totalDistance',
      'NUMBER_OUT_OF_RANGE /swathWidth',
    ]);
    expect(codes({ equipment: { tireWidths: [0.6, 2e8] } })).toEqual([
      'NUMBER_OUT_OF_RANGE /equipment/tireWidths/1',
    ]);
    expect(codes({ anything: 2e15 })).toEqual(['NUMBER_OUT_OF_RANGE /anything']);
    expect(codes({ trackBearing: 3e9, bearingDeg: -361, heading: 359.9, startHeadingDeg: 360 })).toEqual([
      'NUMBER_OUT_OF_RANGE /trackBearing',
      'NUMBER_OUT_OF_RANGE /bearingDeg',
    ]);
  });

  it('throws one 400 with the first problem’s code and every pointer, query and params under their names', () => {
    let thrown: unknown;
    try {
      checkRequestInput({ body: { name: 'x'.repeat(300) }, query: { search: 'a\u0000' }, params: {} });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const e = thrown as ApiError;
    expect(e.statusCode).toBe(400);
    expect(e.errorCode).toBe('INVALID_TEXT');
    expect((e.extra.errors as { path: string }[]).map((x) => x.path)).toEqual([
      '/querystring/search',
      '/name',
    ]);
    expect(e.message).toContain('/querystring/search');
  });

  it('leaves buffers and other non-JSON objects alone', () => {
    expect(codes({ file: Buffer.from([0, 1, 2]) })).toEqual([]);
    expect(codes(new Map([['a', '\u0000']]))).toEqual([]);
  });
});
