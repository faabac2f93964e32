/**
 * Decomposition of the workable area: synthetic U, L and comb shapes (zone
 * count, each zone's direction, the estimated saving) and the partition
 * property (the cells cover the area exactly, without overlaps).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intersectionArea, union, unionArea } from '../geometry/clip.ts';
import { multiPolygonArea, polygonArea } from '../geometry/polygon.ts';
import type { Polygon } from '../types/index.ts';
import { decompose, splitByLine } from './decompose.ts';

const poly = (pts: [number, number][]): Polygon => ({ outer: pts.map(([x, y]) => ({ x, y })), holes: [] });
const S1 = { swathWidth: 6, turningRadius: 6 };

/** Bearings folded to [0, 180), compared within a degree. */
function sameBearing(a: number, b: number): boolean {
  const d = Math.abs((((a - b) % 180) + 180) % 180);
  return Math.min(d, 180 - d) < 1;
}

function expectPartition(area: readonly Polygon[], cells: readonly Polygon[]) {
  const total = multiPolygonArea(area);
  const sum = cells.reduce((s, c) => s + polygonArea(c), 0);
  expect(Math.abs(sum - total)).toBeLessThan(1e-6 * total + 1e-3);
  expect(Math.abs(unionArea(cells as Polygon[]) - total)).toBeLessThan(1e-6 * total + 1e-3);
  for (let i = 0; i < cells.length; i++)
    for (let j = i + 1; j < cells.length; j++)
      expect(intersectionArea([cells[i]], [cells[j]])).toBeLessThan(1e-3);
}

describe('decompose', () => {
  it('splits an L into its two arms, each worked along its length', () => {
    const L = poly([
      [0, 0],
      [300, 0],
      [300, 80],
      [80, 80],
      [80, 300],
      [0, 300],
    ]);
    const d = decompose([L], S1);
    expect(d.decomposed).toBe(true);
    expect(d.cells).toHaveLength(2);
    const bearings = d.cells.map((c) => c.bearingDeg);
    expect(bearings.some((b) => sameBearing(b, 90))).toBe(true);
    expect(bearings.some((b) => sameBearing(b, 0))).toBe(true);
    // The estimate: two arms of 14 tracks against 51 tracks across.
    expect(d.cells.reduce((s, c) => s + c.trackCount, 0)).toBeLessThanOrEqual(28);
    expect(d.cost).toBeLessThan(0.75 * d.baselineCost);
    expectPartition(
      [L],
      d.cells.map((c) => c.polygon),
    );
  });

  it('keeps a short U as one zone: its arms run the same way as the whole', () => {
    const U = poly([
      [0, 0],
      [200, 0],
      [200, 200],
      [140, 200],
      [140, 60],
      [60, 60],
      [60, 200],
      [0, 200],
    ]);
    const d = decompose([U], S1);
    expect(d.decomposed).toBe(false);
    expect(d.cells).toHaveLength(1);
    expect(sameBearing(d.cells[0].bearingDeg, 0)).toBe(true);
  });

  it('splits a U with a long base into the base and its arms', () => {
    const U = poly([
      [0, 0],
      [300, 0],
      [300, 400],
      [220, 400],
      [220, 80],
      [80, 80],
      [80, 400],
      [0, 400],
    ]);
    const d = decompose([U], S1);
    expect(d.decomposed).toBe(true);
    expect(d.cells).toHaveLength(3);
    const base = d.cells.find((c) => c.polygon.outer.every((p) => p.y <= 81));
    expect(base && sameBearing(base.bearingDeg, 90)).toBe(true);
    for (const c of d.cells) if (c !== base) expect(sameBearing(c.bearingDeg, 0)).toBe(true);
    expectPartition(
      [U],
      d.cells.map((c) => c.polygon),
    );
  });

  it('splits a comb into its back and teeth', () => {
    const comb = poly([
      [0, 0],
      [280, 0],
      [280, 200],
      [240, 200],
      [240, 50],
      [160, 50],
      [160, 200],
      [120, 200],
      [120, 50],
      [40, 50],
      [40, 200],
      [0, 200],
    ]);
    const d = decompose([comb], S1);
    expect(d.decomposed).toBe(true);
    expect(d.cells.length).toBeGreaterThanOrEqual(4);
    const back = d.cells.filter((c) => sameBearing(c.bearingDeg, 90));
    expect(back).toHaveLength(1);
    expect(d.cells.filter((c) => sameBearing(c.bearingDeg, 0)).length).toBeGreaterThanOrEqual(3);
    expect(d.cost).toBeLessThan(0.9 * d.baselineCost);
    expectPartition(
      [comb],
      d.cells.map((c) => c.polygon),
    );
  });

  it('leaves convex fields alone', () => {
    const rect = poly([
      [0, 0],
      [300, 0],
      [300, 100],
      [0, 100],
    ]);
    const d = decompose([rect], S1);
    expect(d.decomposed).toBe(false);
    expect(d.cells).toHaveLength(1);
    expect(sameBearing(d.cells[0].bearingDeg, 90)).toBe(true);
  });

  it('splitByLine partitions a polygon with a hole', () => {
    const p: Polygon = {
      outer: poly([
        [0, 0],
        [100, 0],
        [100, 100],
        [0, 100],
      ]).outer,
      holes: [
        poly([
          [40, 40],
          [40, 60],
          [60, 60],
          [60, 40],
        ]).outer,
      ],
    };
    const parts = splitByLine(p, { x: 50, y: 50 }, { x: Math.SQRT1_2, y: Math.SQRT1_2 });
    expect(parts).toHaveLength(2);
    expectPartition([p], parts);
  });
});

describe('decompose: the cells partition the area (property)', () => {
  // Rectilinear fields: the union of random rectangles on a grid, rotated and moved far from the origin.
  const rect = fc.record({
    x: fc.integer({ min: 0, max: 8 }),
    y: fc.integer({ min: 0, max: 8 }),
    w: fc.integer({ min: 2, max: 8 }),
    h: fc.integer({ min: 2, max: 8 }),
  });
  it('union of the cells equals the area and no two cells overlap', () => {
    fc.assert(
      fc.property(
        fc.array(rect, { minLength: 1, maxLength: 4 }),
        fc.double({ min: 0, max: Math.PI, noNaN: true }),
        fc.integer({ min: 20, max: 40 }),
        (rects, angle, cellSize) => {
          const c = Math.cos(angle);
          const s = Math.sin(angle);
          const polys = rects.map((r) =>
            poly([
              [r.x, r.y],
              [r.x + r.w, r.y],
              [r.x + r.w, r.y + r.h],
              [r.x, r.y + r.h],
            ]),
          );
          const area = union(polys).map((p) => ({
            outer: p.outer.map((q) => ({
              x: 500_000 + cellSize * (q.x * c - q.y * s),
              y: 5_000_000 + cellSize * (q.x * s + q.y * c),
            })),
            holes: p.holes.map((h) =>
              h.map((q) => ({
                x: 500_000 + cellSize * (q.x * c - q.y * s),
                y: 5_000_000 + cellSize * (q.x * s + q.y * c),
              })),
            ),
          }));
          const d = decompose(area, S1);
          expect(d.cost).toBeLessThanOrEqual(d.baselineCost);
          expectPartition(
            area,
            d.cells.map((x) => x.polygon),
          );
        },
      ),
      { numRuns: 60, seed: 7 },
    );
  });
});
