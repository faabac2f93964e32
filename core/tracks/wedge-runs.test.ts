import { describe, expect, it } from 'vitest';
import type { Point, Polygon } from '../types/index.ts';
import type { Track, TrackSet } from './generate-tracks.ts';
import { runIntoMissedWedges } from './wedge-runs.ts';

const W = 6;
const rect = (x0: number, y0: number, x1: number, y1: number): Polygon => ({
  outer: [
    { x: x0, y: y0 },
    { x: x1, y: y0 },
    { x: x1, y: y1 },
    { x: x0, y: y1 },
  ],
  holes: [],
});
const zone = rect(0, 0, 100, 100);

/** East-west tracks from x = 20 to 80, one swath apart. */
function trackSet(extra: Track[] = []): TrackSet {
  const tracks: Track[] = [];
  for (let k = 0; k < 10; k++) {
    const y = 23 + k * W;
    tracks.push({ a: { x: 20, y }, b: { x: 80, y }, line: k, seg: 0 });
  }
  return {
    heading: 0,
    bearingDeg: 90,
    swathWidth: W,
    lineOffsets: tracks.map((t) => t.a.y),
    tracks: [...tracks, ...extra],
    abLine: [tracks[0].a, tracks[0].b],
  };
}

const moved = (before: TrackSet, after: TrackSet) =>
  after.tracks
    .map((t, i) => ({ i, da: before.tracks[i].a.x - t.a.x, db: t.b.x - before.tracks[i].b.x }))
    .filter((m) => m.da !== 0 || m.db !== 0);

describe('runIntoMissedWedges', () => {
  it('runs the one track whose end meets a missed wedge on over it', () => {
    const ts = trackSet();
    // A wedge 12 m long ahead of the track at y = 53 (line 5).
    const wedge: Polygon = {
      outer: [
        { x: 80, y: 50 },
        { x: 92, y: 52 },
        { x: 92, y: 54 },
        { x: 80, y: 56 },
      ],
      holes: [],
    };
    const r = runIntoMissedWedges({ tracks: ts, zone, missed: [wedge] });
    const m = moved(ts, r.tracks);
    expect(m.map((x) => x.i)).toEqual([5]);
    expect(m[0].da).toBe(0);
    // It stops where the swath ahead would mostly work ground already worked.
    expect(m[0].db).toBeGreaterThan(6);
    expect(m[0].db).toBeLessThan(12.5);
    expect(r.stretches).toHaveLength(1);
    expect(r.gain).toBeGreaterThan(20);
  });

  it('leaves the tracks where the missed ground ahead is a sliver of the swath', () => {
    const ts = trackSet();
    const r = runIntoMissedWedges({ tracks: ts, zone, missed: [rect(80, 52.5, 95, 53.5)] });
    expect(r.tracks).toBe(ts);
    expect(r.stretches).toEqual([]);
  });

  it('keeps the swath inside the field: the run-on stops half a swath off the edge', () => {
    const ts = trackSet();
    const r = runIntoMissedWedges({ tracks: ts, zone, missed: [rect(80, 50, 100, 56)] });
    const b = r.tracks.tracks[5].b;
    expect(b.x).toBeGreaterThan(95);
    expect(b.x).toBeLessThanOrEqual(100 - W / 2);
    expect(b.y).toBe(53);
  });

  it('goes no farther than half way to the next track on its line', () => {
    const next: Track = { a: { x: 90, y: 53 }, b: { x: 97, y: 53 }, line: 5, seg: 1 };
    const ts = trackSet([next]);
    const r = runIntoMissedWedges({ tracks: ts, zone, missed: [rect(80, 50, 90, 56)] });
    const b: Point = r.tracks.tracks[5].b;
    expect(b.x).toBeGreaterThan(84);
    expect(b.x).toBeLessThanOrEqual(85 + 1e-9);
  });

  it('runs track starts on too, backwards along the heading', () => {
    const ts = trackSet();
    const r = runIntoMissedWedges({ tracks: ts, zone, missed: [rect(8, 20, 20, 26)] });
    const m = moved(ts, r.tracks);
    expect(m.map((x) => x.i)).toEqual([0]);
    expect(m[0].db).toBe(0);
    expect(m[0].da).toBeGreaterThan(8);
  });

  it('leaves the tracks the route leaves out', () => {
    const ts = trackSet();
    const r = runIntoMissedWedges({ tracks: ts, zone, missed: [rect(80, 50, 92, 56)], skip: [5] });
    expect(r.tracks).toBe(ts);
  });

  it('leaves curved tracks as they are', () => {
    const ts = trackSet();
    const curved: TrackSet = {
      ...ts,
      tracks: ts.tracks.map((t) => ({ ...t, path: [t.a, { x: 50, y: t.a.y + 1 }, t.b] })),
    };
    const r = runIntoMissedWedges({ tracks: curved, zone, missed: [rect(80, 50, 92, 56)] });
    expect(r.tracks).toBe(curved);
  });
});
