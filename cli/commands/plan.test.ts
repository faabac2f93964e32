import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { planField } from '../../core/plan.ts';
import { PlanningError, type PlanRequest, type PlanResult } from '../../core/types/index.ts';
import { samplePlanResult } from '../../formats/plan-sample.ts';
import { formatOfPath, type PlanIO, parsePlanArgs, planIdFor, runPlan } from './plan.ts';

const SQUARE = JSON.stringify({
  type: 'Polygon',
  coordinates: [
    [
      [10, 52],
      [10.002, 52],
      [10.002, 52.002],
      [10, 52.002],
      [10, 52],
    ],
  ],
});

interface Fake extends PlanIO {
  out: string;
  /** Bytes written to standard output (zipped exports). */
  outBytes: Uint8Array[];
  err: string;
  written: Record<string, string>;
  writtenBytes: Record<string, Uint8Array>;
  requests: PlanRequest[];
}

function fakeIO(
  files: Record<string, string> = { 'field.geojson': SQUARE },
  plan: (req: PlanRequest) => PlanResult = () => samplePlanResult(),
): Fake {
  const io: Fake = {
    out: '',
    outBytes: [],
    err: '',
    written: {},
    writtenBytes: {},
    requests: [],
    stdout: (s) => {
      if (typeof s === 'string') io.out += s;
      else io.outBytes.push(s);
    },
    stderr: (s) => {
      io.err += s;
    },
    readStdin: () => files['-'] ?? '',
    readFile: (p) => {
      if (!(p in files))
        throw Object.assign(new Error(`ENOENT: no such file, open '${p}'`), { code: 'ENOENT' });
      return files[p];
    },
    writeFile: (p, d) => {
      if (typeof d === 'string') io.written[p] = d;
      else io.writtenBytes[p] = d;
    },
    plan: (req) => {
      io.requests.push(req);
      return plan(req);
    },
    now: () => new Date('2026-03-01T12:00:00Z'),
  };
  return io;
}

describe('tramline plan', () => {
  it('prints help on --help', () => {
    const io = fakeIO();
    expect(runPlan(['--help'], io)).toBe(0);
    expect(io.out).toContain('Usage: tramline plan FIELD');
    expect(io.err).toBe('');
  });

  it('plans with the defaults and writes only the GeoJSON to standard output', () => {
    const io = fakeIO();
    expect(runPlan(['field.geojson'], io)).toBe(0);
    expect(io.requests).toHaveLength(1);
    const req = io.requests[0];
    expect(req.boundary).toEqual(JSON.parse(SQUARE));
    expect(req.machine).toEqual({ swathWidth: 6, minTurningRadius: 6 });
    expect(req.exteriorHeadlandPasses).toBe(2);
    expect(req.interiorHeadlandPasses).toBe(1);
    expect('preferredBearingDeg' in req).toBe(false);
    const fc = JSON.parse(io.out);
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.properties.pathPlanName).toBe('field');
    expect(fc.properties.pathPlanId).toMatch(/^plan-[0-9a-f]{16}$/);
    expect(io.out.endsWith('}\n')).toBe(true);
    // A summary and the repairs go to standard error.
    expect(io.err).toContain('repaired: removed 1 duplicate point');
    expect(io.err).toMatch(/field: 1\.19 ha, 2 zone\(s\), 3 tracks/);
  });

  it('passes the options to the planner', () => {
    const io = fakeIO();
    const code = runPlan(
      [
        'field.geojson',
        '--swath',
        '12.5',
        '--headlands',
        '0',
        '--interior-headlands',
        '3',
        '--turn-radius',
        '7.5',
        '--direction=-30',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.requests[0]).toMatchObject({
      machine: { swathWidth: 12.5, minTurningRadius: 7.5 },
      exteriorHeadlandPasses: 0,
      interiorHeadlandPasses: 3,
      preferredBearingDeg: -30,
    });
  });

  it('passes the route options and the curvature rate to the planner', () => {
    const io = fakeIO();
    const code = runPlan(
      [
        'field.geojson',
        '--algorithm',
        'optimized',
        '--max-optimizer-time',
        '0.5',
        '--max-curvature-rate',
        '0.05',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.requests[0]).toMatchObject({
      machine: { maxCurvatureRate: 0.05 },
      route: { algorithm: 'optimized' },
    });
    expect(JSON.parse(io.out).type).toBe('FeatureCollection');
  });

  it('reads WKT and KML files, and standard input', () => {
    const wkt = 'POLYGON ((10 52, 10.002 52, 10.002 52.002, 10 52.002, 10 52))';
    const io = fakeIO({ 'f.wkt': wkt, '-': SQUARE });
    expect(runPlan(['f.wkt'], io)).toBe(0);
    const b = io.requests[0].boundary as { type: string };
    expect(JSON.stringify(b)).toContain('52.002');
    expect(runPlan(['-', '--name', 'piped'], io)).toBe(0);
    expect(io.requests[1].boundary).toEqual(JSON.parse(SQUARE));
    expect(io.out).toContain('"pathPlanName":"piped"');
  });

  it('writes the normalized model with --format json', () => {
    const io = fakeIO();
    expect(runPlan(['field.geojson', '--format', 'json', '--name', 'North'], io)).toBe(0);
    const m = JSON.parse(io.out);
    expect(m.pathPlanName).toBe('North');
    expect(m.createdAt).toBe('2026-03-01T12:00:00.000Z');
    expect(m.zones).toHaveLength(2);
    expect(m.zones[0].zoneId).toBe(`${m.pathPlanId}-z0`);
  });

  it('writes an SVG with --format svg, or when --out ends in .svg', () => {
    const io = fakeIO();
    expect(runPlan(['field.geojson', '--format', 'svg'], io)).toBe(0);
    expect(io.out.startsWith('<svg')).toBe(true);
    expect(XMLValidator.validate(io.out)).toBe(true);
    const io2 = fakeIO();
    expect(runPlan(['field.geojson', '--out', 'plan.svg'], io2)).toBe(0);
    expect(io2.out).toBe('');
    expect(io2.written['plan.svg'].startsWith('<svg')).toBe(true);
    expect(io2.err).toContain('-> plan.svg');
  });

  it('writes to --out and nothing to standard output', () => {
    const io = fakeIO();
    expect(runPlan(['field.geojson', '--out', 'plan.geojson'], io)).toBe(0);
    expect(io.out).toBe('');
    expect(JSON.parse(io.written['plan.geojson']).type).toBe('FeatureCollection');
  });

  it('gives the same output for the same input', () => {
    const a = fakeIO();
    const b = fakeIO();
    runPlan(['field.geojson', '--swath', '8'], a);
    runPlan(['field.geojson', '--swath', '8'], b);
    expect(a.out).toBe(b.out);
    const c = fakeIO();
    runPlan(['field.geojson', '--swath', '9'], c);
    expect(JSON.parse(c.out).properties.pathPlanId).not.toBe(JSON.parse(a.out).properties.pathPlanId);
  });

  it('exits 1 with one line naming the code on a planning error', () => {
    const io = fakeIO(undefined, () => {
      throw new PlanningError('HEADLAND_EXHAUSTS_FIELD', 'The headlands use up field part 0.');
    });
    expect(runPlan(['field.geojson'], io)).toBe(1);
    expect(io.out).toBe('');
    expect(io.err).toBe('tramline plan: HEADLAND_EXHAUSTS_FIELD: The headlands use up field part 0.\n');
  });

  it('exits 1 on a field it cannot read', () => {
    const bad = fakeIO({ 'bad.geojson': '{"type": ' });
    expect(runPlan(['bad.geojson'], bad)).toBe(1);
    expect(bad.err).toMatch(/^tramline plan: FIELD_PARSE_ERROR: /);
    expect(bad.out).toBe('');
    const missing = fakeIO();
    expect(runPlan(['nope.geojson'], missing)).toBe(1);
    expect(missing.err).toBe('tramline plan: cannot read nope.geojson: no such file\n');
  });

  it('exits 1 when the output cannot be written', () => {
    const io = fakeIO();
    io.writeFile = () => {
      throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
    };
    expect(runPlan(['field.geojson', '--out', '/root/x.geojson'], io)).toBe(1);
    expect(io.err).toContain('cannot write /root/x.geojson: permission denied');
  });

  it.each([
    [[], 'missing FIELD'],
    [['a.geojson', 'b.geojson'], 'expected one FIELD'],
    [['field.geojson', '--bogus'], "Unknown option '--bogus'"],
    [['field.geojson', '--format', 'dxf'], '--format must be geojson, json, svg or one of isoxml'],
    [['field.geojson', '--format', 'isoxml', '--client', ' '], '--client must not be empty'],
    [['field.geojson', '--swath', 'wide'], '--swath must be a number'],
    [['field.geojson', '--swath', '0'], '--swath must be a number of metres > 0'],
    [['field.geojson', '--swath', ''], '--swath must be a number'],
    [['field.geojson', '--headlands', '1.5'], '--headlands must be a whole number >= 0'],
    [['field.geojson', '--interior-headlands=-1'], '--interior-headlands must be a whole number >= 0'],
    [['field.geojson', '--direction', 'north'], '--direction must be a number'],
    [['field.geojson', '--swath'], "Option '--swath <value>' argument missing"],
  ])('exits 2 on a usage error: %j', (argv, message) => {
    const io = fakeIO();
    expect(runPlan(argv, io)).toBe(2);
    expect(io.requests).toHaveLength(0);
    expect(io.out).toBe('');
    expect(io.err).toContain(message);
    expect(io.err).toContain('tramline plan --help');
  });

  it("prints each zone's warnings (what the route leaves out, say)", () => {
    const left =
      '30 tracks (about 1.98 ha) cannot be reached by a path inside the field at turning radius 6 m and are left out; their area shows as missed.';
    const io = fakeIO(undefined, () => {
      const r = samplePlanResult();
      r.plan.zones[1].routeFailures = 2;
      r.plan.zones[1].warnings = [left];
      return r;
    });
    expect(runPlan(['field.geojson'], io)).toBe(0);
    expect(io.err).toContain(`warning: zone 1: ${left}`);
  });
});

describe('plan argument helpers', () => {
  it('reads the format from the file extension', () => {
    expect(formatOfPath('a/b.GeoJSON')).toBe('geojson');
    expect(formatOfPath('b.json')).toBe('geojson');
    expect(formatOfPath('b.wkt')).toBe('wkt');
    expect(formatOfPath('b.kml')).toBe('kml');
    expect(formatOfPath('b.txt')).toBeUndefined();
  });

  it('parses a full command line', () => {
    expect(parsePlanArgs(['f.kml', '--swath', '3', '--format', 'json', '--out', 'x.json'])).toEqual({
      field: 'f.kml',
      swathWidth: 3,
      minTurningRadius: 6,
      exteriorHeadlandPasses: 2,
      interiorHeadlandPasses: 1,
      format: 'json',
      out: 'x.json',
      route: {},
      maxOptimizerTime: 10,
    });
  });

  it('parses the route options and the turn model', () => {
    expect(
      parsePlanArgs([
        'f.geojson',
        '--algorithm',
        'clusteredSpiral',
        '--skip-count',
        '2',
        '--headlands-first',
        '--forced-direction',
        'CCW',
        '--extend-tracks',
        '--max-curvature-rate',
        '0.05',
        '--max-optimizer-time',
        '1.5',
        '--start-node',
        '3',
        '--end-node',
        '0',
      ]),
    ).toMatchObject({
      route: {
        algorithm: 'clusteredSpiral',
        skipCount: 2,
        headlandsFirst: true,
        forcedDirection: 'CCW',
        startPointNodeIndex: 3,
        endPointNodeIndex: 0,
      },
      extendTracks: true,
      maxCurvatureRate: 0.05,
      maxOptimizerTime: 1.5,
    });
  });

  it('plans curved and spiral tracks and crosshatch lines', () => {
    for (const [flag, type] of [
      ['curved', 'Curved'],
      ['Spiral', 'Spiral'],
      ['straight', 'Straight'],
    ] as const) {
      const io = fakeIO(undefined, planField);
      const code = runPlan(['field.geojson', '--track-type', flag, '--cross-hatch'], io);
      expect(code, io.err).toBe(0);
      expect(io.requests[0]).toMatchObject({ trackType: type, useCrossHatches: true });
      const parts = JSON.parse(io.out).features.map(
        (f: { properties: { geometryPartType?: string } }) => f.properties.geometryPartType,
      );
      expect(parts).toContain('Crosshatch');
      expect(parts).toContain('RouteTrack');
    }
    expect(() => parsePlanArgs(['f.geojson', '--track-type', 'zigzag'])).toThrow('--track-type');
  });

  it('refuses route options it cannot honour, naming the flag', () => {
    for (const [argv, flag] of [
      [['--algorithm', 'spiral'], '--algorithm'],
      [['--skip-count', '2'], '--skip-count'],
      [['--forced-direction', 'left'], '--forced-direction'],
      [['--max-curvature-rate', '0'], '--max-curvature-rate'],
      [['--max-optimizer-time', '-1'], '--max-optimizer-time'],
      [['--start-node', '1.5'], '--start-node'],
    ] as const) {
      expect(() => parsePlanArgs(['f.geojson', ...argv])).toThrow(flag);
    }
  });

  it('derives the plan id from the input and the options', () => {
    const opts = { machine: { swathWidth: 6 } };
    expect(planIdFor('a', opts)).toBe(planIdFor('a', opts));
    expect(planIdFor('a', opts)).not.toBe(planIdFor('b', opts));
    expect(planIdFor('a', opts)).not.toBe(planIdFor('a', { machine: { swathWidth: 7 } }));
  });
});
