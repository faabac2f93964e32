import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleCurvePath } from '../turn/clothoid.ts';
import { endPose, samplePath, TWO_CHORDS_FROM } from '../turn/path.ts';
import { pathOf, pose, radius, randomSegments } from '../turn/turn-testing.ts';
import type { Point } from '../types/index.ts';
import { pushFilletArc } from './fillet.ts';
import { endTangent, startTangent } from './tangent.ts';

const DEG = Math.PI / 180;

function angleBetween(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d < -Math.PI) d += 2 * Math.PI;
  return Math.abs(d);
}

/** The arc of radius r from the origin heading east, turning by th [rad] (left positive), at `step` [rad]. */
function arc(r: number, th: number, step: number): Point[] {
  const out: Point[] = [{ x: -1, y: 0 }];
  pushFilletArc(out, { x: r * Math.tan(Math.abs(th) / 2), y: 0 }, { x: 1, y: 0 }, th, r, step, 1);
  return out.slice(1);
}

describe('endTangent and startTangent', () => {
  it('read a straight by its chords', () => {
    const line = [
      { x: 0, y: 0 },
      { x: 3, y: 4 },
    ];
    expect(endTangent(line)).toBeCloseTo(Math.atan2(4, 3), 14);
    expect(startTangent(line)).toBeCloseTo(Math.atan2(4, 3), 14);
    const fine = [0, 0.4, 0.8, 1.2].map((t) => ({ x: 3 * t, y: 4 * t }));
    expect(endTangent(fine)).toBeCloseTo(Math.atan2(4, 3), 14);
  });

  it('read an arc sampled at 5 degrees exactly, where its end chords are 2.5 degrees off', () => {
    for (const r of [6, 8, 20]) {
      for (const th of [30 * DEG, -75 * DEG, 200 * DEG]) {
        const pts = arc(r, th, 5 * DEG);
        expect(startTangent(pts)).toBeCloseTo(0, 9);
        expect(angleBetween(endTangent(pts), th)).toBeLessThan(1e-9);
        const n = pts.length;
        const chord = Math.atan2(pts[n - 1].y - pts[n - 2].y, pts[n - 1].x - pts[n - 2].x);
        // The chord alone: about half a step off where the arc is drawn at the angle step (r = 6, 8).
        if (r < 11) expect(angleBetween(chord, th) / DEG).toBeGreaterThan(2.3);
      }
    }
  });

  it('read an arc that leaves a long straight exactly, at each of its vertices', () => {
    const pts = [{ x: -10, y: 0 }, ...arc(6, 40 * DEG, 5 * DEG)];
    for (let k = 2; k < pts.length; k++) {
      const want = (5 * (k - 1) * Math.PI) / 180;
      expect(angleBetween(endTangent(pts.slice(0, k + 1)), want)).toBeLessThan(1e-9);
    }
  });

  it('read a straight after an arc as the straight, when it is longer than a curved chord', () => {
    const a = arc(6, 30 * DEG, 5 * DEG);
    const end = a[a.length - 1];
    const pts = [...a, { x: end.x + 5 * Math.cos(30 * DEG), y: end.y + 5 * Math.sin(30 * DEG) }];
    expect(angleBetween(endTangent(pts), 30 * DEG)).toBeLessThan(1e-12);
  });

  it('read no more curvature into a short end chord than maxCurvature allows', () => {
    // A 10-degree kink one short chord before the end, after a straight.
    const h = 10 * DEG;
    const pts = [
      { x: -5, y: 0 },
      { x: 0, y: 0 },
      { x: 0.5 * Math.cos(h), y: 0.5 * Math.sin(h) },
    ];
    expect(angleBetween(endTangent(pts), 2 * h)).toBeLessThan(1e-12);
    const cap = Math.asin((0.5 * (1 / 6)) / 2);
    expect(angleBetween(endTangent(pts, 1, 1 / 6), h + cap)).toBeLessThan(1e-12);
  });

  it('property: give the exact end headings of sampled Dubins and Reeds-Shepp words', () => {
    fc.assert(
      fc.property(pose, radius, randomSegments(false, 5), (p, r, raw) => {
        // Each segment long enough to be drawn with two chords (leastSteps).
        const segments = raw.map((s) => ({ ...s, length: s.length * r + TWO_CHORDS_FROM }));
        const path = pathOf(segments);
        const pieces = samplePath(p, path, r);
        const first = pieces[0];
        const last = pieces[pieces.length - 1];
        // The direction of travel: the machine heading, turned round when reversing.
        const h0 = p.heading + (first.reverse ? Math.PI : 0);
        const h1 = endPose(p, path, r).heading + (last.reverse ? Math.PI : 0);
        expect(angleBetween(startTangent(first.points), h0)).toBeLessThan(1e-6);
        expect(angleBetween(endTangent(last.points), h1)).toBeLessThan(1e-6);
      }),
      { numRuns: 400 },
    );
  });

  it('read the end of a clothoid that runs out to a straight within a quarter of a degree', () => {
    // Curvature from 1/6 down to 0 at 0.05 1/m^2, sampled as the planner does
    // (0.48 m chords): the circle through the last three samples turns by the
    // mean curvature there, sigma h^2 / 3 = 0.2 degrees more than the clothoid.
    const sigma = 0.05;
    const len = 1 / 6 / sigma;
    const pieces = sampleCurvePath(
      { x: 0, y: 0, heading: 0 },
      { pieces: [{ k0: 1 / 6, sharpness: -sigma, length: len, reverse: false }], length: len, word: '' },
    );
    const turn = (1 / 6) * len - (sigma * len * len) / 2;
    expect(angleBetween(endTangent(pieces[0].points), turn) / DEG).toBeLessThan(0.25);
  });
});
