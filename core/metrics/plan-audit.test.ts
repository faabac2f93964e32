import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PathPart, Point, Polygon } from '../types/index.ts';
import { auditZone, missedPieces, type PlannedPass } from './plan-audit.ts';
import { capsuleInterval, mergeIntervals } from './segment-grid.ts';

const W = 6;
const R = 6;

/** A 120 x 60 m field. */
const field: Polygon = {
  outer: [
    { x: 0, y: 0 },
    { x: 120, y: 0 },
    { x: 120, y: 60 },
    { x: 0, y: 60 },
  ],
  holes: [],
};

const rect = (x0: number, y0: number, x1: number, y1: number): Point[] => [
  { x: x0, y: y0 },
  { x: x1, y: y0 },
  { x: x1, y: y1 },
  { x: x0, y: y1 },
];

const closed = (r: readonly Point[]) => [...r, r[0]];

/** Two passes (3 m and 9 m inside the edge), tracks 6 m apart across the inside, U-turns between them. */
function plan(opts: { drivePass2?: boolean; doubled?: number; turnAtEdge?: boolean } = {}) {
  const passes: PlannedPass[] = [
    { kind: 'exterior', passNumber: 1, ring: rect(3, 3, 117, 57) },
    { kind: 'exterior', passNumber: 2, ring: rect(9, 9, 111, 51) },
  ];
  const parts: PathPart[] = [];
  let sequence = 0;
  const drive = (type: PathPart['type'], points: Point[], extra: Partial<PathPart> = {}) =>
    parts.push({
      type,
      points,
      working: type.endsWith('Pass') || type === 'RouteTrack',
      sequence: sequence++,
      ...extra,
    });
  drive('ExteriorHeadlandPass', closed(passes[0].ring), { passNumber: 1 });
  if (opts.drivePass2 !== false) drive('ExteriorHeadlandPass', closed(passes[1].ring), { passNumber: 2 });
  const tracks: { trackIndex: number; points: Point[] }[] = [];
  // Tracks along y at x = 15, 21, ..., 105, from y = 12 to 48.
  for (let i = 0, x = 15; x <= 105; i++, x += 6) {
    tracks.push({
      trackIndex: i,
      points: [
        { x, y: 12 },
        { x, y: 48 },
      ],
    });
    const up = i % 2 === 0;
    drive(
      'RouteTrack',
      up
        ? [
            { x, y: 12 },
            { x, y: 48 },
          ]
        : [
            { x, y: 48 },
            { x, y: 12 },
          ],
      { trackIndex: i },
    );
    if (x + 6 <= 105) {
      const y = up ? 48 : 12;
      const s = up ? 1 : -1;
      // A U-turn as a half circle of radius 3 (a box suffices for the measures).
      const arc: Point[] = [];
      for (let k = 0; k <= 12; k++) {
        const a = Math.PI - (k * Math.PI) / 12;
        arc.push({ x: x + 3 + 3 * Math.cos(a), y: y + s * 3 * Math.sin(a) });
      }
      drive('Turn', arc, { turnKind: 'U' });
    }
  }
  if (opts.doubled !== undefined) {
    drive(
      'RouteTrack',
      [
        { x: 15 + opts.doubled, y: 12 },
        { x: 15 + opts.doubled, y: 48 },
      ],
      { trackIndex: 99 },
    );
  }
  if (opts.turnAtEdge) {
    // A bulb from the end of the last track out to 1 m from the top edge.
    drive('Turn', [
      { x: 105, y: 48 },
      { x: 105, y: 59 },
      { x: 110, y: 59 },
      { x: 110, y: 48 },
    ]);
  }
  return { passes, tracks, parts };
}

describe('auditZone', () => {
  it('finds nothing wrong in a plan that drives what it planned', () => {
    const p = plan();
    const a = auditZone({ boundary: field, ...p, swathWidth: W, turningRadius: R });
    expect(a.undrivenPassLength).toBe(0);
    expect(a.undrivenTrackLength).toBe(0);
    expect(a.duplicateTrackLength).toBe(0);
    expect(a.overhangLength).toBe(0);
    expect(a.overhangArea).toBe(0);
    expect(a.trackLength).toBeCloseTo(16 * 36, 6);
  });

  it('measures a headland pass not driven, with its pass number and length', () => {
    const p = plan({ drivePass2: false });
    const a = auditZone({ boundary: field, ...p, swathWidth: W, turningRadius: R });
    // Pass 2: 102 x 42 m around.
    expect(a.undrivenPassLength).toBeCloseTo(2 * (102 + 42), 6);
    expect(a.undrivenPasses).toHaveLength(1);
    expect(a.undrivenPasses[0]).toMatchObject({ kind: 'exterior', passNumber: 2 });
    expect(a.undrivenPasses[0].length).toBeCloseTo(288, 6);
  });

  it('measures a pass driven a few metres off where it was planned', () => {
    const p = plan();
    // Pass 1 driven 3 m too far in along its bottom side only.
    const pass1 = p.parts[0];
    pass1.points = [
      { x: 3, y: 6 },
      { x: 117, y: 6 },
      { x: 117, y: 57 },
      { x: 3, y: 57 },
      { x: 3, y: 6 },
    ];
    const a = auditZone({ boundary: field, ...p, swathWidth: W, turningRadius: R });
    // The bottom side (114 m) and the sides up to 0.25 m short of where the driven pass begins
    // (2.75 m each), one stretch round the two corners (pass 2 runs 6 m in, out of reach).
    expect(a.undrivenPassLength).toBeCloseTo(114 + 2 * 2.75, 6);
    expect(a.undrivenPasses.map((s) => s.passNumber)).toEqual([1]);
  });

  it('counts a pass whose rounded corners the route drives square as driven', () => {
    // Planned pass with corners rounded at radius 6; driven square to the apexes.
    const rounded: Point[] = [];
    const corners = [
      { c: { x: 111, y: 9 }, a0: -Math.PI / 2 },
      { c: { x: 111, y: 51 }, a0: 0 },
      { c: { x: 9, y: 51 }, a0: Math.PI / 2 },
      { c: { x: 9, y: 9 }, a0: Math.PI },
    ];
    for (const { c, a0 } of corners)
      for (let k = 0; k <= 18; k++) {
        const a = a0 + (k * Math.PI) / 36;
        rounded.push({ x: c.x + 6 * Math.cos(a), y: c.y + 6 * Math.sin(a) });
      }
    const passes: PlannedPass[] = [{ kind: 'exterior', passNumber: 1, ring: rounded }];
    const parts: PathPart[] = [
      { type: 'ExteriorHeadlandPass', points: closed(rect(3, 3, 117, 57)), working: true, sequence: 0 },
    ];
    const a = auditZone({ boundary: field, passes, tracks: [], parts, swathWidth: W, turningRadius: R });
    expect(a.undrivenPassLength).toBe(0);
    expect(a.undrivenPasses).toHaveLength(0);
    // Driven 2 m inside instead: the rounded corners are not driven (the line runs inside them).
    const inside: PathPart[] = [
      { type: 'ExteriorHeadlandPass', points: closed(rect(5, 5, 115, 55)), working: true, sequence: 0 },
    ];
    const b = auditZone({
      boundary: field,
      passes,
      tracks: [],
      parts: inside,
      swathWidth: W,
      turningRadius: R,
    });
    expect(b.undrivenPassLength).toBeCloseTo(
      b.undrivenPasses.reduce((s, x) => s + x.length, 0),
      6,
    );
    expect(b.undrivenPassLength).toBeGreaterThan(250);
  });

  it('measures tracks planned but not driven', () => {
    const p = plan();
    const dropped = p.parts.findIndex((q) => q.type === 'RouteTrack' && q.trackIndex === 4);
    p.parts.splice(dropped, 1);
    const a = auditZone({ boundary: field, ...p, swathWidth: W, turningRadius: R });
    expect(a.undrivenTrackLength).toBeCloseTo(36, 6);
    expect(a.undrivenTracks).toMatchObject([{ kind: 'track', trackIndex: 4 }]);
  });

  it('measures two tracks 0.1 m apart as a duplicate strip, both counted', () => {
    const p = plan({ doubled: 0.1 });
    const a = auditZone({ boundary: field, ...p, swathWidth: W, turningRadius: R });
    expect(a.duplicateTrackLength).toBeCloseTo(72, 6);
    // 1.4 m apart (a last track squeezed next to its neighbour): more than three quarters of the strip twice.
    const b = auditZone({ boundary: field, ...plan({ doubled: 1.4 }), swathWidth: W, turningRadius: R });
    expect(b.duplicateTrackLength).toBeCloseTo(72, 6);
    // A third of a swath off (a last track working a remainder of a third): not a strip applied twice.
    const d = auditZone({ boundary: field, ...plan({ doubled: W / 3 }), swathWidth: W, turningRadius: R });
    expect(d.duplicateTrackLength).toBe(0);
    // A swath from its neighbour, as tracks are: no duplicate.
    const c = auditZone({ boundary: field, ...plan({ doubled: -6 }), swathWidth: W, turningRadius: R });
    expect(c.duplicateTrackLength).toBe(0);
  });

  it('does not count tracks that meet end to end as duplicates', () => {
    const parts: PathPart[] = [
      {
        type: 'RouteTrack',
        points: [
          { x: 10, y: 10 },
          { x: 50, y: 10 },
        ],
        working: true,
        sequence: 0,
      },
      {
        type: 'RouteTrack',
        points: [
          { x: 50, y: 10 },
          { x: 90, y: 10 },
        ],
        working: true,
        sequence: 1,
      },
    ];
    const a = auditZone({ boundary: field, passes: [], tracks: [], parts, swathWidth: W, turningRadius: R });
    expect(a.duplicateTrackLength).toBeLessThan(1e-9);
  });

  it('measures the overhang of a turn touching the edge: length and area', () => {
    const p = plan({ turnAtEdge: true });
    const a = auditZone({ boundary: field, ...p, swathWidth: W, turningRadius: R });
    // Up the leg at x = 105 from y = 60 - 2.94 (within half the swath less 5 cm and the 1 cm
    // the turn area's rounding may come nearer, of the top edge) to 59: 1.94 m; along the
    // top at y = 59: 5 m; down the leg at x = 110 to 57.06: 1.94 m.
    expect(a.overhangs).toHaveLength(1);
    expect(a.overhangLength).toBeCloseTo(1.94 + 5 + 1.94, 6);
    // The strip of half-width 3 m round the turn sticks out 2 m over the top edge:
    // 5 x 2 along the top plus the legs' 6 x 2 (butt ends) minus the shared corners.
    expect(a.overhangArea).toBeGreaterThan(20);
    expect(a.overhangArea).toBeLessThan(25);
    expect(a.overhangs[0].at.y).toBeGreaterThan(58);
  });

  it('tells overhang across a neck narrower than the working width from overhang a way could avoid', () => {
    // Two 60 x 60 m blocks joined by a neck 3 m wide (half the swath) and 20 m long.
    const blocks: Polygon = {
      outer: [
        { x: 0, y: 0 },
        { x: 60, y: 0 },
        { x: 60, y: 28.5 },
        { x: 80, y: 28.5 },
        { x: 80, y: 0 },
        { x: 140, y: 0 },
        { x: 140, y: 60 },
        { x: 80, y: 60 },
        { x: 80, y: 31.5 },
        { x: 60, y: 31.5 },
        { x: 60, y: 60 },
        { x: 0, y: 60 },
      ],
      holes: [],
    };
    const connector = (sequence: number, from: Point, to: Point): PathPart => ({
      type: 'Connector',
      working: false,
      sequence,
      points: [from, to],
    });
    const track = (sequence: number, from: Point, to: Point): PathPart => ({
      type: 'RouteTrack',
      working: true,
      sequence,
      points: [from, to],
    });
    const parts = [
      // From the middle of one block to the middle of the other, through the neck.
      connector(0, { x: 30, y: 30 }, { x: 110, y: 30 }),
      track(1, { x: 110, y: 30 }, { x: 110, y: 50 }),
      // Then a way in the second block, along its top edge 1 m from it: avoidable.
      connector(2, { x: 110, y: 50 }, { x: 100, y: 59 }),
      connector(3, { x: 100, y: 59 }, { x: 130, y: 59 }),
    ];
    const a = auditZone({ boundary: blocks, passes: [], tracks: [], parts, swathWidth: W, turningRadius: R });
    expect(a.overhangs.map((o) => [o.part, Boolean(o.acrossNeck)])).toEqual([
      [0, true],
      [2, false],
      [3, false],
    ]);
    expect(a.overhangAcrossNecksLength).toBeCloseTo(a.overhangs[0].length, 9);
    expect(a.overhangAcrossNecksLength).toBeGreaterThan(20);
    expect(a.overhangLength).toBeGreaterThan(a.overhangAcrossNecksLength + 30);

    // Travel through the field in legs, a waypoint in the neck: the legs are one
    // way from block to block, across the neck; a track worked in the second
    // block before the last leg ends that way there.
    const legs = [
      connector(0, { x: 30, y: 30 }, { x: 70, y: 30 }),
      connector(1, { x: 70, y: 30 }, { x: 110, y: 30 }),
      track(2, { x: 110, y: 30 }, { x: 110, y: 40 }),
      connector(3, { x: 110, y: 40 }, { x: 110, y: 59 }),
    ];
    const b = auditZone({
      boundary: blocks,
      passes: [],
      tracks: [],
      parts: legs,
      swathWidth: W,
      turningRadius: R,
    });
    expect(b.overhangs.map((o) => [o.part, Boolean(o.acrossNeck)])).toEqual([
      [0, true],
      [1, true],
      [3, false],
    ]);
  });

  it('measures a turn leaving the field and one crossing an obstacle', () => {
    const withHole: Polygon = { outer: field.outer, holes: [rect(60, 20, 70, 30).reverse()] };
    const parts: PathPart[] = [
      {
        type: 'Connector',
        points: [
          { x: 50, y: 25 },
          { x: 80, y: 25 },
        ],
        working: false,
        sequence: 0,
      },
      {
        type: 'Connector',
        points: [
          { x: 110, y: 40 },
          { x: 130, y: 40 },
        ],
        working: false,
        sequence: 1,
      },
    ];
    const a = auditZone({
      boundary: withHole,
      passes: [],
      tracks: [],
      parts,
      swathWidth: W,
      turningRadius: R,
    });
    expect(a.overhangs).toHaveLength(2);
    // Through the obstacle: 10 m inside plus 2.94 m either side.
    expect(a.overhangs[0].length).toBeCloseTo(10 + 2 * 2.94, 6);
    // Out of the field: 10 m outside plus 2.94 m before the edge.
    expect(a.overhangs[1].length).toBeCloseTo(10 + 2.94, 6);
    // The strips: 10 m x 6 m in the obstacle plus 10 m x 6 m outside (butt ends at the stretches' ends).
    expect(a.overhangArea).toBeCloseTo(120, 1);
  });

  it('counts no overhang for a turn held to the turn area (half the width less 5 cm) within its rounding', () => {
    // Along the top edge at 2.945 m: the turn area's chords may come a few millimetres nearer.
    const parts: PathPart[] = [
      {
        type: 'Turn',
        points: [
          { x: 20, y: 20 },
          { x: 20, y: 60 - 2.945 },
          { x: 80, y: 60 - 2.945 },
          { x: 80, y: 20 },
        ],
        working: false,
        sequence: 0,
      },
    ];
    const a = auditZone({ boundary: field, passes: [], tracks: [], parts, swathWidth: W, turningRadius: R });
    expect(a.overhangLength).toBe(0);
  });

  it('counts a way leaving a pass that runs nearer the edge only where it comes nearer still', () => {
    // A pass round an obstacle corner runs 2.8 m from the edge; the way leaving it heads away ...
    const away: PathPart = {
      type: 'HeadlandConnector',
      points: [
        { x: 40, y: 2.8 },
        { x: 41, y: 2.9 },
        { x: 42, y: 3.5 },
        { x: 45, y: 10 },
      ],
      working: false,
      sequence: 0,
    };
    // ... this one first runs on nearer the edge, at 2 m, for 5 m.
    const nearer: PathPart = {
      type: 'HeadlandConnector',
      points: [
        { x: 60, y: 2.8 },
        { x: 61, y: 2 },
        { x: 66, y: 2 },
        { x: 70, y: 10 },
      ],
      working: false,
      sequence: 1,
    };
    const pass = (sequence: number, x0: number, x1: number): PathPart => ({
      type: 'InteriorHeadlandPass',
      points: [
        { x: x0, y: 2.8 },
        { x: x1, y: 2.8 },
      ],
      working: true,
      sequence,
    });
    // The same way between two connectors (no pass at its start) is overhang all along.
    const between: PathPart = {
      ...away,
      points: away.points.map((q) => ({ x: q.x + 60, y: q.y })),
      sequence: 6,
    };
    const a = auditZone({
      boundary: field,
      passes: [],
      tracks: [],
      parts: [
        pass(0, 30, 40),
        { ...away, sequence: 1 },
        pass(2, 50, 60),
        { ...nearer, sequence: 3 },
        {
          ...away,
          type: 'Connector',
          points: [
            { x: 95, y: 20 },
            { x: 100, y: 20 },
          ],
          sequence: 5,
        },
        between,
      ],
      swathWidth: W,
      turningRadius: R,
    });
    expect(a.overhangs.map((o) => o.part)).toEqual([3, 5]);
    // From the pass down to 2 m (1.28 m), along at 2 m (5 m), out of the band (1.05 m).
    expect(a.overhangs[0].length).toBeCloseTo(Math.hypot(1, 0.8) + 5 + (0.94 / 8) * Math.hypot(4, 8), 6);
  });

  it('tells a way leaving a pass by the order of the parts where their sequences are alike (a zone before numbering)', () => {
    // A zone's route is audited before the plan numbers its parts: every driven part has sequence 0.
    const pass = (x0: number, x1: number): PathPart => ({
      type: 'InteriorHeadlandPass',
      points: [
        { x: x0, y: 2.8 },
        { x: x1, y: 2.8 },
      ],
      working: true,
      sequence: 0,
    });
    const away: PathPart = {
      type: 'HeadlandConnector',
      points: [
        { x: 40, y: 2.8 },
        { x: 41, y: 2.9 },
        { x: 42, y: 3.5 },
        { x: 45, y: 10 },
      ],
      working: false,
      sequence: 0,
    };
    const guidance: PathPart = {
      type: 'GuidanceTrack',
      points: [
        { x: 20, y: 20 },
        { x: 100, y: 20 },
      ],
      working: false,
    };
    const a = auditZone({
      boundary: field,
      passes: [],
      tracks: [],
      parts: [guidance, pass(30, 40), away, guidance],
      swathWidth: W,
      turningRadius: R,
    });
    expect(a.overhangLength).toBe(0);
    // The same way with no pass before it is overhang.
    const b = auditZone({
      boundary: field,
      passes: [],
      tracks: [],
      parts: [away, pass(30, 40)],
      swathWidth: W,
      turningRadius: R,
    });
    expect(b.overhangLength).toBeGreaterThan(1);
  });

  it('takes a way from a track that ends on the edge as the track only while it draws away from the edge', () => {
    const track: PathPart = {
      type: 'RouteTrack',
      points: [
        { x: 30, y: 30 },
        { x: 30, y: 0 },
      ],
      working: true,
      sequence: 0,
    };
    // Backs up along the track, away from the edge: the track's own.
    const back: PathPart = {
      type: 'Turn',
      points: [
        { x: 30, y: 0 },
        { x: 30, y: 1 },
        { x: 30, y: 2 },
        { x: 30, y: 4 },
      ],
      working: false,
      reverse: true,
      sequence: 1,
    };
    const a = auditZone({
      boundary: field,
      passes: [],
      tracks: [],
      parts: [track, back],
      swathWidth: W,
      turningRadius: R,
    });
    expect(a.overhangLength).toBe(0);
    // Turning back towards the edge before leaving the band: overhang from where it does.
    const dip: PathPart = {
      ...back,
      points: [
        { x: 30, y: 0 },
        { x: 30, y: 2 },
        { x: 32, y: 1 },
        { x: 36, y: 10 },
      ],
    };
    const b = auditZone({
      boundary: field,
      passes: [],
      tracks: [],
      parts: [track, dip],
      swathWidth: W,
      turningRadius: R,
    });
    expect(b.overhangLength).toBeGreaterThan(Math.hypot(2, 1));
  });

  it('audits a plan of a few thousand segments in a few milliseconds', () => {
    const p = plan({ turnAtEdge: true });
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) auditZone({ boundary: field, ...p, swathWidth: W, turningRadius: R });
    expect((performance.now() - t0) / 20).toBeLessThan(20);
  });
});

describe('missedPieces', () => {
  it('finds the strip between two tracks left out, largest first', () => {
    const parts: PathPart[] = [
      {
        type: 'RouteTrack',
        points: [
          { x: 0, y: 3 },
          { x: 120, y: 3 },
        ],
        working: true,
        sequence: 0,
      },
      {
        type: 'RouteTrack',
        points: [
          { x: 0, y: 30 },
          { x: 120, y: 30 },
        ],
        working: true,
        sequence: 1,
      },
    ];
    const pieces = missedPieces([field], parts, W);
    expect(pieces[0].area).toBeCloseTo(120 * 27, 3);
    expect(pieces[0].at.y).toBeCloseTo(46.5, 3);
    expect(pieces[1].area).toBeCloseTo(120 * 21, 3);
    expect(pieces[1].meanWidth).toBeCloseTo((2 * 120 * 21) / (2 * 141), 3);
  });
});

describe('segment intervals', () => {
  it('a segment within r of another exactly where the brute-force distance says so', () => {
    const coord = fc.double({ min: -20, max: 20, noNaN: true });
    fc.assert(
      fc.property(
        coord,
        coord,
        coord,
        coord,
        coord,
        coord,
        coord,
        coord,
        fc.double({ min: 0.1, max: 5, noNaN: true }),
        (px, py, qx, qy, ax, ay, bx, by, r) => {
          const out = new Float64Array(2);
          const hit = capsuleInterval(px, py, qx, qy, ax, ay, bx, by, r, out);
          const dist = (t: number) => {
            const x = px + t * (qx - px);
            const y = py + t * (qy - py);
            const ex = bx - ax;
            const ey = by - ay;
            const l2 = ex * ex + ey * ey;
            const u = l2 > 0 ? Math.max(0, Math.min(1, ((x - ax) * ex + (y - ay) * ey) / l2)) : 0;
            return Math.hypot(x - (ax + u * ex), y - (ay + u * ey));
          };
          for (let k = 0; k <= 200; k++) {
            const t = k / 200;
            const inside = hit && t >= out[0] - 1e-9 && t <= out[1] + 1e-9;
            const d = dist(t);
            if (d < r - 1e-6) expect(inside).toBe(true);
            if (d > r + 1e-6) expect(inside).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('merged intervals cover their union', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: -0.5, max: 1.5, noNaN: true }),
            fc.double({ min: 0, max: 1, noNaN: true }),
          ),
          { maxLength: 12 },
        ),
        (xs) => {
          const buf = new Float64Array(2 * xs.length + 2);
          xs.forEach(([s, l], i) => {
            buf[2 * i] = s;
            buf[2 * i + 1] = s + l;
          });
          const covered = mergeIntervals(buf, xs.length, new Int32Array(1));
          let brute = 0;
          const n = 2000;
          for (let k = 0; k < n; k++) {
            const t = (k + 0.5) / n;
            if (xs.some(([s, l]) => t >= s && t <= s + l)) brute++;
          }
          expect(Math.abs(covered - brute / n)).toBeLessThan(xs.length * 2e-3 + 1e-9);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('audit properties', () => {
  it('undriven length of a track is its planned length less what a driven track covers, within tolerance', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 10, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: -0.2, max: 0.2, noNaN: true }),
        fc.double({ min: 0, max: Math.PI, noNaN: true }),
        (L, f0, f1, off, angle) => {
          const [s0, s1] = f0 < f1 ? [f0, f1] : [f1, f0];
          const c = Math.cos(angle);
          const s = Math.sin(angle);
          const at = (u: number, v: number) => ({ x: 60 + u * c - v * s, y: 30 + u * s + v * c });
          const planned = [at(-L / 2, 0), at(L / 2, 0)];
          const drivenPart: PathPart = {
            type: 'RouteTrack',
            points: [at(-L / 2 + s0 * L, off), at(-L / 2 + s1 * L, off)],
            working: true,
            sequence: 0,
          };
          const a = auditZone({
            boundary: { outer: rect(-1000, -1000, 1000, 1000), holes: [] },
            passes: [],
            tracks: [{ trackIndex: 0, points: planned }],
            parts: [drivenPart],
            swathWidth: W,
            turningRadius: R,
          });
          // Within 0.25 m: the driven stretch plus the end discs' reach along the line.
          const reach = Math.sqrt(0.25 * 0.25 - off * off);
          const drivenLen = Math.min(L, s1 * L + reach) - Math.max(0, s0 * L - reach);
          expect(a.undrivenTrackLength).toBeCloseTo(L - drivenLen, 6);
          expect(a.duplicateTrackLength).toBe(0);
          expect(a.overhangLength).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
