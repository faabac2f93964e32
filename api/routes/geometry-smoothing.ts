/**
 * Line smoothing (spec 4.4, "Geometry"); nothing is stored:
 *   POST /api/geometry/smoothline    one line, its radius and strategy → the smoothed line
 *   POST /api/geometry/smoothlines   many lines, parameters per line
 * Lines are WGS84 GeoJSON LineStrings, smoothed in a local metric frame by
 * the planner's curve code (core/tracks/smooth-line.ts): the result never
 * bends tighter than the radius and keeps its ends.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { createMetricFrame, wrapLon } from '../../core/geometry/projection.ts';
import { polylineLength } from '../../core/geometry/vec.ts';
import {
  SMOOTHING_STRATEGIES,
  type SmoothingStrategy,
  smoothPolyline,
  tightestRadius,
} from '../../core/tracks/smooth-line.ts';
import { PlanningError } from '../../core/types/index.ts';
import { fromPlanningError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers } from './common.ts';

const MAX_POINTS = 10_000;
const MAX_LINES = 200;

const LineString = Type.Object(
  {
    type: Type.Literal('LineString'),
    coordinates: Type.Array(
      Type.Array(Type.Number(), {
        minItems: 2,
        maxItems: 3,
        description: '[lon, lat] (a third value is dropped).',
      }),
      { minItems: 2, maxItems: MAX_POINTS },
    ),
  },
  { additionalProperties: false, description: 'WGS84.' },
);

export const SmoothingStrategyType = named(
  'SmoothingStrategyType',
  Type.Union(
    SMOOTHING_STRATEGIES.map((s) => Type.Literal(s)),
    {
      description:
        'Fillet: every corner becomes the arc of the radius tangent to both edges. CornerCutting: Chaikin corner cutting (curvedOptions) first, then filleted so no bend is tighter than the radius.',
    },
  ),
);

const lineMembers = {
  line: LineString,
  radius: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1000,
    description: 'The tightest radius the result may bend at [m] (the machine’s turning radius).',
  }),
  strategy: Type.Optional(SmoothingStrategyType),
  curvedOptions: Type.Optional(
    Type.Object(
      {
        levelOfSmoothing: Type.Optional(Type.Number({ minimum: 0, maximum: 0.5 })),
        smoothingIterations: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
        minAngleToSmooth: Type.Optional(Type.Number({ minimum: 0, maximum: 180 })),
      },
      {
        additionalProperties: false,
        description: 'CornerCutting only: as the curved tracks’ curvedOptions.',
      },
    ),
  ),
};

const SmoothLineRequest = named(
  'SmoothLineRequest',
  Type.Object(lineMembers, { additionalProperties: false }),
);

const SmoothedLine = named(
  'SmoothedLine',
  Type.Object({
    id: Type.Optional(Type.String()),
    line: Type.Object({
      type: Type.Literal('LineString'),
      coordinates: Type.Array(Type.Array(Type.Number())),
    }),
    strategy: SmoothingStrategyType,
    radius: Type.Number(),
    tightestRadius: Type.Union([Type.Number(), Type.Null()], {
      description: 'The tightest bend of the result [m]; null when it is straight. Never below radius.',
    }),
    length: Type.Number({ description: '[m]' }),
  }),
);

const SmoothLinesRequest = named(
  'SmoothLinesRequest',
  Type.Object(
    {
      lines: Type.Array(
        Type.Object(
          { id: Type.Optional(Type.String({ maxLength: 200, description: 'Echoed back.' })), ...lineMembers },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: MAX_LINES },
      ),
    },
    { additionalProperties: false },
  ),
);

type LineRequest = Static<typeof SmoothLineRequest> & { id?: string };

function smoothOne(r: LineRequest, pointer: string) {
  for (const [i, c] of r.line.coordinates.entries()) {
    if (!(Math.abs(c[0]) <= 180 && Math.abs(c[1]) <= 90)) {
      throw validationError([
        {
          path: `${pointer}/line/coordinates/${i}`,
          message: 'must be [lon, lat] with lon in -180..180 and lat in -90..90',
        },
      ]);
    }
  }
  const ref = r.line.coordinates[0][0];
  let minLon = Number.POSITIVE_INFINITY;
  let maxLon = Number.NEGATIVE_INFINITY;
  let minLat = Number.POSITIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  for (const [lon, lat] of r.line.coordinates) {
    const u = ref + wrapLon(lon - ref);
    minLon = Math.min(minLon, u);
    maxLon = Math.max(maxLon, u);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  const frame = createMetricFrame(wrapLon((minLon + maxLon) / 2), (minLat + maxLat) / 2);
  const pts = r.line.coordinates.map(([lon, lat]) => frame.toMetric(lon, lat));
  if (polylineLength(pts) < 0.01) {
    throw validationError([{ path: `${pointer}/line/coordinates`, message: 'must span at least 1 cm' }]);
  }
  const strategy: SmoothingStrategy = r.strategy ?? 'Fillet';
  let out: ReturnType<typeof smoothPolyline>;
  try {
    out = smoothPolyline(pts, { strategy, radius: r.radius, curved: r.curvedOptions });
  } catch (e) {
    if (e instanceof PlanningError) throw fromPlanningError(e.code, e.message, e.details, pointer);
    throw e;
  }
  const tight = tightestRadius(out);
  return {
    ...(r.id !== undefined ? { id: r.id } : {}),
    line: { type: 'LineString' as const, coordinates: out.map((p) => frame.toLonLat(p)) },
    strategy,
    radius: r.radius,
    tightestRadius: Number.isFinite(tight) ? tight : null,
    length: polylineLength(out),
  };
}

export async function geometrySmoothingRoutes(appBase: FastifyInstance): Promise<void> {
  const app = appBase.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Geometry operations'];

  app.post(
    '/api/geometry/smoothline',
    {
      schema: {
        tags,
        summary: 'Smooth a line so it never bends tighter than a radius',
        description: `A WGS84 LineString (2..${MAX_POINTS} points) smoothed by the strategy (default Fillet) so no bend is tighter than radius [m]; its ends stay where they are. Nothing is stored.`,
        body: SmoothLineRequest,
        response: answers({ 200: { schema: SmoothedLine, description: 'The smoothed line.' } }, 400),
      },
    },
    async (req) => smoothOne(req.body, ''),
  );

  app.post(
    '/api/geometry/smoothlines',
    {
      schema: {
        tags,
        summary: 'Smooth many lines, parameters per line',
        description: `1..${MAX_LINES} lines, each with its own radius, strategy and curvedOptions; answered in order (ids echoed). Nothing is stored.`,
        body: SmoothLinesRequest,
        response: answers(
          {
            200: {
              schema: named('SmoothedLines', Type.Object({ lines: Type.Array(SmoothedLine) })),
              description: 'The smoothed lines, in request order.',
            },
          },
          400,
        ),
      },
    },
    async (req) => ({ lines: req.body.lines.map((l, i) => smoothOne(l, `/lines/${i}`)) }),
  );
}
