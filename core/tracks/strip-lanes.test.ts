import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPlan } from '../../test/helpers/check-plan.ts';
import { hasCorpus } from '../../test/helpers/corpus.ts';
import { findCorpusField, orientations } from '../../test/helpers/field-transforms.ts';
import { bufferLines, intersectionArea } from '../geometry/clip.ts';
import { EdgeIndex } from '../geometry/edge-index.ts';
import { polygonArea } from '../geometry/polygon.ts';
import { planField } from '../plan.ts';
import type { Point, Polygon } from '../types/index.ts';
import { expectDrivable, expectInside } from './path-testing.ts';
import { stripLanes } from './strip-lanes.ts';

const W = 6;
const R = 6;

/**
 * A strip `width` wide along an arc of `radius` (its centre line) turning by
 * `turn` radians, then running on straight for `run` metres: a bending strip
 * like a field along a stream or a road.
 */
function bendingStrip(width: number, radius: number, turn: number, run: number): Polygon {
  const centre: Point[] = [];
  const n = Math.max(8, Math.ceil((radius * turn) / 2));
  for (let i = 0; i <= n; i++) {
    const a = (turn * i) / n;
    centre.push({ x: radius * Math.sin(a), y: radius * (1 - Math.cos(a)) });
  }
  const end = centre[centre.length - 1];
  centre.push({ x: end.x + run * Math.cos(turn), y: end.y + run * Math.sin(turn) });
  const left: Point[] = [];
  const right: Point[] = [];
  for (let i = 0; i < centre.length; i++) {
    const p = centre[i];
    const q = centre[Math.min(i + 1, centre.length - 1)];
    const o = centre[Math.max(i - 1, 0)];
    const h = Math.atan2(q.y - o.y, q.x - o.x);
    left.push({ x: p.x - (Math.sin(h) * width) / 2, y: p.y + (Math.cos(h) * width) / 2 });
    right.push({ x: p.x + (Math.sin(h) * width) / 2, y: p.y - (Math.cos(h) * width) / 2 });
  }
  return { outer: [...right, ...left.reverse()], holes: [] };
}

/** Share of the strip the lanes' swaths cover. */
function covered(strip: Polygon, lanes: Point[][]): number {
  return intersectionArea(bufferLines(lanes, W / 2, 'butt'), [strip]) / polygonArea(strip);
}

describe('stripLanes', () => {
  it('works a bending strip two swaths wide by its two sides, each half a swath in', () => {
    const strip = bendingStrip(11, 60, Math.PI / 2, 150);
    const set = stripLanes(strip, { swathWidth: W, turningRadius: R });
    expect(set).not.toBeNull();
    const lanes = (set?.tracks ?? []).map((t) => t.path as Point[]);
    expect(lanes).toHaveLength(2);
    // Neighbours across the strip.
    expect(new Set(set?.tracks.map((t) => t.line))).toEqual(new Set([0, 1]));
    const edge = new EdgeIndex([strip.outer]);
    for (const lane of lanes) {
      expectDrivable(lane, R);
      expectInside(lane, [strip]);
      for (const p of lane) expect(edge.distance(p, W)).toBeGreaterThan(W / 2 - 0.1);
    }
    // The sides follow the bend; what they leave is at the ends, where the machine turns.
    expect(covered(strip, lanes)).toBeGreaterThan(0.95);
  });

  it('adds a lane down the middle where the sides leave a gap no further offset fits (a strip 2.5 swaths wide)', () => {
    const strip = bendingStrip(15, 80, Math.PI / 3, 150);
    const set = stripLanes(strip, { swathWidth: W, turningRadius: R });
    const lanes = (set?.tracks ?? []).map((t) => t.path as Point[]);
    expect(lanes).toHaveLength(3);
    // The middle one between the sides, across the strip.
    expect(new Set(set?.tracks.map((t) => t.line))).toEqual(new Set([0, 1, 2]));
    // Two sides alone leave a 3 m strip down the middle (under 80 %); the
    // rest is at the ends, where the machine turns.
    expect(covered(strip, lanes)).toBeGreaterThan(0.9);
  });

  it('gives a strip narrower than a swath and a quarter one lane down its middle (its sides would be one track)', () => {
    for (const width of [5, 7]) {
      const strip = bendingStrip(width, 60, Math.PI / 2, 100);
      const set = stripLanes(strip, { swathWidth: W, turningRadius: R });
      expect(set?.tracks, `${width} m`).toHaveLength(1);
      const lane = set?.tracks[0].path as Point[];
      expectDrivable(lane, R);
      expectInside(lane, [strip]);
      // Down the middle, half the width from either side (the fillet at the
      // turning radius draws it a few decimetres aside).
      const edge = new EdgeIndex([strip.outer]);
      for (const p of lane) expect(edge.distance(p, W), `${width} m`).toBeGreaterThan(width / 2 - 0.5);
      // The swath works all of it (a 7 m strip: all but half a metre along
      // each side) but the ends where the lane stops.
      expect(covered(strip, [lane]), `${width} m`).toBeGreaterThan(0.85 * Math.min(1, W / width));
    }
  });

  it('cuts the lanes where the offset turns round tighter than the machine can (the strip ends)', () => {
    // A 12 m strip: the offset half a swath in turns round its ends on a radius of 3 m.
    const strip = bendingStrip(12, 1e4, 0.01, 200);
    const set = stripLanes(strip, { swathWidth: W, turningRadius: R });
    for (const t of set?.tracks ?? []) expectDrivable(t.path as Point[], R);
    expect(set?.tracks).toHaveLength(2);
  });

  it('property: lanes stay half a swath inside any bending strip and bend no tighter than the radius', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 9, max: 20, noNaN: true }),
        fc.double({ min: 25, max: 200, noNaN: true }),
        fc.double({ min: 0.2, max: 2.5, noNaN: true }),
        (width, radius, turn) => {
          const strip = bendingStrip(width, radius, turn, 60);
          const set = stripLanes(strip, { swathWidth: W, turningRadius: R });
          if (!set) return;
          const edge = new EdgeIndex([strip.outer]);
          for (const t of set.tracks) {
            const lane = t.path as Point[];
            expectDrivable(lane, R);
            expectInside(lane, [strip]);
            // (Filleted to the turning radius across an inside corner of its offset, a lane may draw a little nearer the edge.)
            for (const p of lane) expect(edge.distance(p, W)).toBeGreaterThan(W / 2 - 0.5);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe.skipIf(!hasCorpus())('a strip of a field narrower than the swath', () => {
  it('fiboa-be_vlg:2315125874 (about 5 m wide, 400 m long, bent): one pass along it, in any orientation', () => {
    for (const f of orientations(findCorpusField('fiboa-be_vlg:2315125874')!)) {
      const { plan } = planField({
        boundary: f,
        machine: { swathWidth: W, minTurningRadius: R },
        exteriorHeadlandPasses: 2,
        interiorHeadlandPasses: 1,
        decomposition: true,
      });
      const name = String(f.properties.id);
      expect(checkPlan(plan), name).toEqual([]);
      // Straight tracks across it: 55.9 %, 18 of them out of reach.
      expect(plan.stats.coveredPercent, name).toBeGreaterThan(95);
      expect(
        plan.zones.flatMap((z) => z.warnings ?? []).some((w) => w.includes('passes along it')),
        name,
      ).toBe(true);
    }
  });
});
