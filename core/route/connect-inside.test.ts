import { describe, expect, it } from 'vitest';
import { EdgeIndex } from '../geometry/edge-index.ts';
import type { Connection } from './connect.ts';
import { staysInside } from './connect-inside.ts';

const field = new EdgeIndex([
  [
    { x: 0, y: 0 },
    { x: 100, y: 0 },
    { x: 100, y: 100 },
    { x: 0, y: 100 },
  ],
]);

const conn = (pts: [number, number][]): Connection => ({
  pieces: [{ points: pts.map(([x, y]) => ({ x, y })), reverse: false }],
  length: 0,
  kind: 'K',
});

describe('staysInside', () => {
  it('refuses a path that starts on the field edge and runs outside without crossing it', () => {
    // Touching the edge at its start is no crossing, so the edge test alone lets this through.
    expect(
      field.polylineCrosses([
        { x: 0, y: 50 },
        { x: -5, y: 50 },
        { x: -5, y: 60 },
      ]),
    ).toBe(false);
    expect(
      staysInside(
        conn([
          [0, 50],
          [-5, 50],
          [-5, 60],
        ]),
        field,
      ),
    ).toBe(false);
  });

  it('accepts a path inside the field, and one along its edge', () => {
    expect(
      staysInside(
        conn([
          [10, 10],
          [50, 50],
          [90, 10],
        ]),
        field,
      ),
    ).toBe(true);
    expect(
      staysInside(
        conn([
          [0, 10],
          [0, 50],
          [0, 90],
        ]),
        field,
      ),
    ).toBe(true);
  });
});
