/**
 * WKT boundaries: POLYGON and MULTIPOLYGON (with Z, M or ZM coordinates, or
 * EMPTY) to GeoJSON and back. Errors say where in the text and what was
 * expected.
 */
import { PlanningError } from '../core/types/index.ts';

type Ring = number[][];

export interface WktGeometry {
  type: 'Polygon' | 'MultiPolygon';
  coordinates: Ring[] | Ring[][];
}

export function parseWkt(text: string): WktGeometry {
  let i = 0;
  const s = text;
  const fail = (what: string): never => {
    const near = s.slice(i, i + 20).replace(/\s+/g, ' ');
    throw new PlanningError(
      'FIELD_PARSE_ERROR',
      `WKT: expected ${what} at character ${i}${near ? ` (near "${near}")` : ' (end of text)'}.`,
      {
        path: `wkt[${i}]`,
        offset: i,
      },
    );
  };
  const ws = () => {
    while (i < s.length && /\s/.test(s[i])) i++;
  };
  const word = (): string => {
    ws();
    const m = /^[A-Za-z]+/.exec(s.slice(i));
    if (!m) return '';
    i += m[0].length;
    return m[0].toUpperCase();
  };
  const expect = (c: string) => {
    ws();
    if (s[i] !== c) fail(`"${c}"`);
    i++;
  };
  const number = (): number => {
    ws();
    const m = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(s.slice(i));
    if (!m) fail('a number');
    const v = Number((m as RegExpExecArray)[0]);
    // 1e999 reads as Infinity: no coordinate.
    if (!Number.isFinite(v)) fail('a finite number');
    i += (m as RegExpExecArray)[0].length;
    return v;
  };
  const dims = (): number => {
    const save = i;
    const w = word();
    if (w === 'Z' || w === 'M') return 3;
    if (w === 'ZM') return 4;
    i = save;
    return 0;
  };
  const isEmpty = (): boolean => {
    const save = i;
    if (word() === 'EMPTY') return true;
    i = save;
    return false;
  };
  const point = (): number[] => {
    const c = [number(), number()];
    ws();
    while (i < s.length && /[-+.\d]/.test(s[i])) {
      number();
      ws();
    }
    return c;
  };
  const list = <T>(item: () => T): T[] => {
    if (isEmpty()) return [];
    expect('(');
    const out = [item()];
    ws();
    while (s[i] === ',') {
      i++;
      out.push(item());
      ws();
    }
    expect(')');
    return out;
  };
  const ring = () => list(point);
  const poly = () => list(ring);
  const kind = word();
  dims();
  let g: WktGeometry;
  if (kind === 'POLYGON') g = { type: 'Polygon', coordinates: poly() };
  else if (kind === 'MULTIPOLYGON') g = { type: 'MultiPolygon', coordinates: list(poly) };
  else {
    i = 0;
    return fail(kind ? `POLYGON or MULTIPOLYGON, not ${kind}` : 'POLYGON or MULTIPOLYGON');
  }
  ws();
  if (i < s.length) fail('the end of the text');
  return g;
}

export function toWkt(geometry: WktGeometry): string {
  const ring = (r: Ring) => `(${r.map((p) => `${p[0]} ${p[1]}`).join(', ')})`;
  const poly = (p: Ring[]) => `(${p.map(ring).join(', ')})`;
  if (geometry.type === 'Polygon') return `POLYGON ${poly(geometry.coordinates as Ring[])}`;
  return `MULTIPOLYGON (${(geometry.coordinates as Ring[][]).map(poly).join(', ')})`;
}
