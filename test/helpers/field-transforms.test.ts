import { describe, expect, it } from 'vitest';
import { loadFixtureFields } from './corpus.ts';
import { mirrorField, orientations, rotateField } from './field-transforms.ts';

/** Shoelace area of a lon/lat ring in local metres round its first point [m2]. */
function ringArea(ring: number[][]): number {
  const k = Math.cos((ring[0][1] * Math.PI) / 180) * 111_320;
  let s = 0;
  for (let i = 0; i < ring.length - 1; i++) {
    s += ring[i][0] * k * ring[i + 1][1] * 110_574 - ring[i + 1][0] * k * ring[i][1] * 110_574;
  }
  return s / 2;
}

function outer(f: { geometry: unknown }): number[][] {
  const g = f.geometry as { type: string; coordinates: number[][][] | number[][][][] };
  return (g.type === 'Polygon' ? g.coordinates[0] : g.coordinates[0][0]) as number[][];
}

describe('field transforms', () => {
  const field = loadFixtureFields()[0];

  it('turn and mirror a field keeping its area and counter-clockwise exterior', () => {
    const a0 = ringArea(outer(field));
    for (const f of [rotateField(field, 37), rotateField(field, 211), mirrorField(field)]) {
      const a = ringArea(outer(f));
      expect(Math.sign(a)).toBe(Math.sign(a0));
      expect(Math.abs(Math.abs(a) - Math.abs(a0)) / Math.abs(a0)).toBeLessThan(1e-4);
    }
  });

  it('a turn of 360 degrees gives the field back, and the ids name the transform', () => {
    const back = outer(rotateField(field, 360));
    outer(field).forEach(([x, y], i) => {
      expect(back[i][0]).toBeCloseTo(x, 9);
      expect(back[i][1]).toBeCloseTo(y, 9);
    });
    expect(
      orientations(field).map((f) => String(f.properties.id).replace(String(field.properties.id), '')),
    ).toEqual(['', '@rot37', '@rot90', '@rot211', '@mirror']);
  });
});
