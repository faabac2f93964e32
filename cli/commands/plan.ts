/**
 * `tramline plan FIELD [options]`: plan a field and write the plan to standard
 * output (or --out). Only the plan goes to standard output; messages go to
 * standard error.
 *
 * Exit codes: 0 planned; 1 the field could not be read or planned (a
 * PlanningError, printed as `CODE: message`) or the output could not be
 * written; 2 usage error.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseArgs } from 'node:util';
import { planField } from '../../core/plan.ts';
import {
  type PlanHooks,
  PlanningError,
  type PlanRequest,
  type PlanResult,
  ROUTE_ALGORITHMS,
  type RouteAlgorithm,
  type TrackType,
} from '../../core/types/index.ts';
import { type BoundaryFormat, readBoundary } from '../../formats/boundary-read.ts';
import { ExportError, type ExportFormat, exportFiles, exportPlans } from '../../formats/export/index.ts';
import { FileRefusal } from '../../formats/file-limits.ts';
import { toPlanGeoJSON } from '../../formats/plan-geojson.ts';
import { toNormalizedModel } from '../../formats/plan-model.ts';
import { toSvg } from '../../formats/plan-svg.ts';

/** Everything the command touches outside itself, so tests can stand in for it. */
export interface PlanIO {
  /** Text or, for zipped exports, bytes. */
  stdout: (s: string | Uint8Array) => void;
  stderr: (s: string) => void;
  readStdin: () => string;
  readFile: (path: string) => string;
  writeFile: (path: string, data: string | Uint8Array) => void;
  /** The planner. */
  plan: (req: PlanRequest, hooks?: PlanHooks) => PlanResult;
  now: () => Date;
}

export const defaultPlanIO: PlanIO = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  readStdin: () => readFileSync(0, 'utf8'),
  readFile: (p) => readFileSync(p, 'utf8'),
  writeFile: (p, d) => writeFileSync(p, d),
  plan: planField,
  now: () => new Date(),
};

/** Export formats the command writes (formats/export): zips, or a single file for kml and gpx. */
export const CLI_EXPORT_FORMATS = [
  'isoxml',
  'isoxml-v3',
  'shapefile',
  'kml',
  'gpx',
  'vendor-a',
  'vendor-b',
  'vendor-c',
] as const satisfies readonly ExportFormat[];

export type CliExportFormat = (typeof CLI_EXPORT_FORMATS)[number];

export type PlanOutputFormat = 'geojson' | 'json' | 'svg' | CliExportFormat;

const isCliExport = (f: string): f is CliExportFormat =>
  (CLI_EXPORT_FORMATS as readonly string[]).includes(f);

/** Export formats written as one plain file (unless --out ends in .zip). */
const SINGLE_FILE_EXPORTS: readonly CliExportFormat[] = ['kml', 'gpx'];

export const PLAN_HELP = `Usage: tramline plan FIELD [options]

Plan a field and write the plan to standard output (or --out).

FIELD is a GeoJSON, WKT or KML file (the format is taken from the file
extension .geojson/.json, .wkt or .kml, else from the content), or - to read
standard input.

Options:
  --swath M                working width [m] (default 6)
  --headlands N            exterior headland passes (default 2)
  --interior-headlands N   headland passes around each obstacle (default 1)
  --turn-radius M          minimum turning radius [m] (default 6)
  --direction DEG          track bearing [deg clockwise from north] (default: the best found)
  --extend-tracks          run the tracks on into the headland (covers the wedges at their ends
                           and what the passes leave unworked) and the passes on into their corners
  --no-decomposition       one zone per field part (default: non-convex parts are split into
                           zones with their own track direction where that saves 10 % of the
                           turn and connector distance)
  --max-curvature-rate K   how fast the machine can steer [1/m^2]: continuous-curvature (clothoid)
                           turns and headland corners (default: none, arcs start abruptly)
  --algorithm A            track order: auto (default), boustrophedon, snake, clusteredSpiral, optimized
  --skip-count N           lines skipped per turn (clusteredSpiral only)
  --max-optimizer-time S   time cap of the optimized order [s] (default 10)
  --headlands-first        drive the exterior headland passes before the tracks
  --forced-direction D     wind every headland pass CW or CCW (default: whichever joins best)
  --start-node N           start the route at boundary vertex N (from 0, in input order)
  --end-node N             end the route at boundary vertex N
  --track-type T           straight (default), curved (along the longest smooth run of
                           the boundary) or spiral (inwards, loops rounded to the turn radius)
  --cross-hatch            also plan tracks across the main ones (a second pass at 90 degrees)
  --format F               geojson   GeoJSON FeatureCollection (default)
                           json      the v2.0.0 normalized path plan model
                           svg       a picture of the plan
                           isoxml    ISO 11783-10 TASKDATA version 4, zipped (isoxml-v3: version 3)
                           shapefile boundary and guidance line shapefiles, zipped
                           kml       KML document (a zip when --out ends in .zip)
                           gpx       GPX 1.1 route, one track per route part (a zip when --out ends in .zip)
                           vendor-a, vendor-b, vendor-c
                                     John Deere, CNH and Trimble display layouts, zipped
                           (default from --out: .svg svg, .kml kml, .gpx gpx)
  --name NAME              plan and field name (default: the file name without extension)
  --client NAME            client (customer) name in exports (default Tramline)
  --farm NAME              farm name in exports (default: the client name)
  --out FILE               write to FILE instead of standard output (zips are bytes)
  -h, --help               this help

Exit codes: 0 planned, 1 the field could not be read or planned, 2 usage error.

Examples:
  tramline plan field.geojson --swath 12 --headlands 2 --format svg --out field.svg
  tramline plan field.geojson --format isoxml --client Hansen --farm North --out taskdata.zip
`;

class UsageError extends Error {}

const TRACK_TYPE_NAMES: Record<string, TrackType> = {
  straight: 'Straight',
  curved: 'Curved',
  spiral: 'Spiral',
};

const OPTIONS = {
  swath: { type: 'string' },
  headlands: { type: 'string' },
  'interior-headlands': { type: 'string' },
  'turn-radius': { type: 'string' },
  direction: { type: 'string' },
  'extend-tracks': { type: 'boolean' },
  'no-decomposition': { type: 'boolean' },
  'max-curvature-rate': { type: 'string' },
  algorithm: { type: 'string' },
  'skip-count': { type: 'string' },
  'max-optimizer-time': { type: 'string' },
  'headlands-first': { type: 'boolean' },
  'forced-direction': { type: 'string' },
  'start-node': { type: 'string' },
  'end-node': { type: 'string' },
  'track-type': { type: 'string' },
  'cross-hatch': { type: 'boolean' },
  format: { type: 'string' },
  name: { type: 'string' },
  client: { type: 'string' },
  farm: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What the command line asks for, checked. */
export interface PlanArgs {
  field: string;
  swathWidth: number;
  exteriorHeadlandPasses: number;
  interiorHeadlandPasses: number;
  minTurningRadius: number;
  preferredBearingDeg?: number;
  extendTracks?: boolean;
  /** false: one zone per field part (--no-decomposition). */
  decomposition?: false;
  maxCurvatureRate?: number;
  /** Route options (spec 2.3) given on the command line. */
  route: NonNullable<PlanRequest['route']>;
  /** Time cap of the optimized order [s]. */
  maxOptimizerTime: number;
  trackType?: TrackType;
  crossHatch?: boolean;
  format: PlanOutputFormat;
  name?: string;
  client?: string;
  farm?: string;
  out?: string;
}

/** Parses and checks the arguments; `help` when --help was given. Throws UsageError. */
export function parsePlanArgs(argv: string[]): PlanArgs | 'help' {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values as { [K in keyof typeof OPTIONS]?: K extends 'help' ? boolean : string };
  if (v.help) return 'help';
  if (parsed.positionals.length !== 1) {
    throw new UsageError(
      parsed.positionals.length === 0
        ? 'missing FIELD (a GeoJSON, WKT or KML file, or - for standard input)'
        : `expected one FIELD, got ${parsed.positionals.length}: ${parsed.positionals.join(' ')}`,
    );
  }
  const byExtension: Record<string, PlanOutputFormat> = { '.svg': 'svg', '.kml': 'kml', '.gpx': 'gpx' };
  const format = v.format ?? (v.out ? byExtension[extname(v.out).toLowerCase()] : undefined) ?? 'geojson';
  if (format !== 'geojson' && format !== 'json' && format !== 'svg' && !isCliExport(format)) {
    throw new UsageError(
      `--format must be geojson, json, svg or one of ${CLI_EXPORT_FORMATS.join(', ')}, got "${format}"`,
    );
  }
  if (v.name !== undefined && !v.name.trim()) throw new UsageError('--name must not be empty');
  if (v.client !== undefined && !v.client.trim()) throw new UsageError('--client must not be empty');
  if (v.farm !== undefined && !v.farm.trim()) throw new UsageError('--farm must not be empty');
  if (v.out !== undefined && !v.out) throw new UsageError('--out must name a file');
  const direction = v.direction === undefined ? undefined : number('direction', v.direction);
  const flags = v as Record<string, string | boolean | undefined>;
  const text = (k: string) => flags[k] as string | undefined;
  const route: NonNullable<PlanRequest['route']> = {};
  const algorithm = text('algorithm');
  if (algorithm !== undefined) {
    if (!(ROUTE_ALGORITHMS as readonly string[]).includes(algorithm))
      throw new UsageError(`--algorithm must be one of ${ROUTE_ALGORITHMS.join(', ')}, got "${algorithm}"`);
    route.algorithm = algorithm as RouteAlgorithm;
  }
  if (text('skip-count') !== undefined) {
    if (route.algorithm !== 'clusteredSpiral')
      throw new UsageError('--skip-count needs --algorithm clusteredSpiral');
    route.skipCount = count('skip-count', text('skip-count'), 0);
  }
  if (flags['headlands-first']) route.headlandsFirst = true;
  const forced = text('forced-direction');
  if (forced !== undefined) {
    if (forced !== 'CW' && forced !== 'CCW')
      throw new UsageError(`--forced-direction must be CW or CCW, got "${forced}"`);
    route.forcedDirection = forced;
  }
  if (text('start-node') !== undefined)
    route.startPointNodeIndex = count('start-node', text('start-node'), 0);
  if (text('end-node') !== undefined) route.endPointNodeIndex = count('end-node', text('end-node'), 0);
  let maxOptimizerTime = 10;
  if (text('max-optimizer-time') !== undefined) {
    maxOptimizerTime = number('max-optimizer-time', text('max-optimizer-time') as string);
    if (!(maxOptimizerTime > 0))
      throw new UsageError(
        `--max-optimizer-time must be a number of seconds > 0, got "${text('max-optimizer-time')}"`,
      );
  }
  let maxCurvatureRate: number | undefined;
  if (text('max-curvature-rate') !== undefined) {
    maxCurvatureRate = number('max-curvature-rate', text('max-curvature-rate') as string);
    if (!(maxCurvatureRate > 0))
      throw new UsageError(
        `--max-curvature-rate must be a number > 0 [1/m^2], got "${text('max-curvature-rate')}"`,
      );
  }
  const typeName = v['track-type'];
  const trackType = typeName === undefined ? undefined : TRACK_TYPE_NAMES[typeName.toLowerCase()];
  if (typeName !== undefined && !trackType) {
    throw new UsageError(`--track-type must be straight, curved or spiral, got "${typeName}"`);
  }
  return {
    route,
    maxOptimizerTime,
    ...(flags['extend-tracks'] ? { extendTracks: true } : {}),
    ...(flags['no-decomposition'] ? { decomposition: false as const } : {}),
    ...(maxCurvatureRate === undefined ? {} : { maxCurvatureRate }),
    field: parsed.positionals[0],
    swathWidth: positive('swath', v.swath, 6),
    minTurningRadius: positive('turn-radius', v['turn-radius'], 6),
    exteriorHeadlandPasses: count('headlands', v.headlands, 2),
    interiorHeadlandPasses: count('interior-headlands', v['interior-headlands'], 1),
    ...(direction === undefined ? {} : { preferredBearingDeg: direction }),
    ...(trackType === undefined ? {} : { trackType }),
    ...(v['cross-hatch'] ? { crossHatch: true } : {}),
    format,
    ...(v.name === undefined ? {} : { name: v.name }),
    ...(v.client === undefined ? {} : { client: v.client }),
    ...(v.farm === undefined ? {} : { farm: v.farm }),
    ...(v.out === undefined ? {} : { out: v.out }),
  };
}

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function number(name: string, text: string): number {
  const n = NUMBER_RE.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${text}"`);
  return n;
}

function positive(name: string, text: string | undefined, def: number): number {
  if (text === undefined) return def;
  const n = number(name, text);
  if (n <= 0) throw new UsageError(`--${name} must be a number of metres > 0, got "${text}"`);
  return n;
}

function count(name: string, text: string | undefined, def: number): number {
  if (text === undefined) return def;
  const n = number(name, text);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`--${name} must be a whole number >= 0, got "${text}"`);
  return n;
}

/** The boundary format named by a file extension, if any. */
export function formatOfPath(path: string): BoundaryFormat | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.geojson' || ext === '.json') return 'geojson';
  if (ext === '.wkt') return 'wkt';
  if (ext === '.kml') return 'kml';
  return undefined;
}

/**
 * A plan id derived from the input and the options, so planning the same
 * field the same way gives the same ids in the output.
 */
export function planIdFor(text: string, req: Omit<PlanRequest, 'boundary'>): string {
  const h = createHash('sha256').update(text).update('\0').update(JSON.stringify(req)).digest('hex');
  return `plan-${h.slice(0, 16)}`;
}

/**
 * Runs `tramline plan` with `argv` (the arguments after "plan"); returns the
 * exit code (a promise of it for the export formats, which zip asynchronously).
 */
export function runPlan(argv: string[], io: PlanIO = defaultPlanIO): number | Promise<number> {
  const say = (s: string) => io.stderr(`tramline plan: ${s}\n`);
  let args: PlanArgs | 'help';
  try {
    args = parsePlanArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    say(e.message);
    io.stderr('Run "tramline plan --help" for the options.\n');
    return 2;
  }
  if (args === 'help') {
    io.stdout(PLAN_HELP);
    return 0;
  }
  const stdin = args.field === '-';
  let text: string;
  try {
    text = stdin ? io.readStdin() : io.readFile(args.field);
  } catch (e) {
    say(`cannot read ${stdin ? 'standard input' : args.field}: ${describe(e)}`);
    return 1;
  }
  const options: Omit<PlanRequest, 'boundary'> = {
    machine: {
      swathWidth: args.swathWidth,
      minTurningRadius: args.minTurningRadius,
      ...(args.maxCurvatureRate === undefined ? {} : { maxCurvatureRate: args.maxCurvatureRate }),
    },
    exteriorHeadlandPasses: args.exteriorHeadlandPasses,
    interiorHeadlandPasses: args.interiorHeadlandPasses,
    ...(args.preferredBearingDeg === undefined ? {} : { preferredBearingDeg: args.preferredBearingDeg }),
    ...(args.extendTracks ? { extendTracks: true } : {}),
    ...(args.decomposition === false ? { decomposition: false } : {}),
    ...(Object.keys(args.route ?? {}).length ? { route: args.route } : {}),
    ...(args.trackType === undefined ? {} : { trackType: args.trackType }),
    ...(args.crossHatch ? { useCrossHatches: true } : {}),
  };
  let result: PlanResult;
  try {
    const boundary = readBoundary(text, stdin ? undefined : formatOfPath(args.field));
    // The optimizer's time cap counts from here (the planner itself reads no clock).
    const deadline = performance.now() + (args.maxOptimizerTime ?? 10) * 1000;
    result = io.plan({ boundary, ...options }, { shouldStopOptimizer: () => performance.now() >= deadline });
  } catch (e) {
    if (e instanceof PlanningError || e instanceof FileRefusal) {
      say(`${e.code}: ${e.message}`);
      return 1;
    }
    say(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 1;
  }
  const name = args.name ?? (stdin ? 'plan' : basename(args.field, extname(args.field)) || 'plan');
  const meta = {
    pathPlanId: planIdFor(text, options),
    pathPlanName: name,
    createdAt: io.now().toISOString(),
  };
  const finish = (body: string | Uint8Array): number => {
    if (args.out !== undefined) {
      try {
        io.writeFile(args.out, body);
      } catch (e) {
        say(`cannot write ${args.out}: ${describe(e)}`);
        return 1;
      }
    } else {
      io.stdout(body);
    }
    for (const r of result.repairs) say(`repaired: ${r}`);
    for (const z of result.plan.zones) {
      for (const w of z.warnings ?? []) say(`warning: zone ${z.index}: ${w}`);
    }
    const st = result.plan.stats;
    say(
      `${name}: ${(st.fieldArea / 10000).toFixed(2)} ha, ${result.plan.zones.length} zone(s), ${st.trackCount} tracks, ${st.turnCount} turns, covered ${st.coveredPercent.toFixed(1)} %, overlap ${st.overlapPercent.toFixed(1)} %, ${(st.totalDistance / 1000).toFixed(2)} km, ${(st.totalTime / 3600).toFixed(2)} h${args.out === undefined ? '' : ` -> ${args.out}`}`,
    );
    return 0;
  };
  const internal = (e: unknown): number => {
    say(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 1;
  };
  const format = args.format;
  if (isCliExport(format)) {
    const plan = {
      plan: toNormalizedModel(result, meta),
      fieldName: name,
      ...(args.client === undefined ? {} : { customerName: args.client }),
      ...(args.farm === undefined ? {} : { farmName: args.farm }),
    };
    const zipped = !SINGLE_FILE_EXPORTS.includes(format) || extname(args.out ?? '').toLowerCase() === '.zip';
    return (async () => {
      let body: string | Uint8Array;
      try {
        if (zipped) {
          body = (await exportPlans([plan], format)).zip;
        } else {
          const [file] = await exportFiles([plan], format);
          body = file.data;
        }
      } catch (e) {
        if (e instanceof ExportError) {
          say(`${e.code}: ${e.message}`);
          return 1;
        }
        return internal(e);
      }
      return finish(body);
    })();
  }
  let body: string;
  try {
    body =
      format === 'svg'
        ? toSvg(result, { title: name })
        : `${JSON.stringify(format === 'json' ? toNormalizedModel(result, meta) : toPlanGeoJSON(result, meta))}\n`;
  } catch (e) {
    return internal(e);
  }
  return finish(body);
}

/** The dispatcher's entry point. */
export function run(argv: string[], io: PlanIO = defaultPlanIO): number | Promise<number> {
  return runPlan(argv, io);
}

function describe(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOENT') return 'no such file';
  if (err?.code === 'EISDIR') return 'it is a directory';
  if (err?.code === 'EACCES') return 'permission denied';
  return err instanceof Error ? err.message : String(e);
}
