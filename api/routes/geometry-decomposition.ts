/**
 * Field decomposition (spec 4.4 "Geometry operations"); stateless, nothing
 * is stored:
 *   POST /api/geometry-operations/automatic-decomposition
 *        { boundary, equipment, exteriorHeadlandPasses?, interiorHeadlandPasses? }
 *        -> { decomposed, estimate, zones: FeatureCollection }
 *   POST /api/geometry-operations/manual-decomposition
 *        { boundary, lines: LineString[], equipment, ... } -> { zones: FeatureCollection }
 *
 * Automatic: per field part, the zones the planner's decomposition proposes
 * along straight edges (cells with their own track direction, and the
 * headland band of the whole part), or the part as one zone when splitting
 * does not pay. Manual: the field cut along the given lines, each piece a
 * zone with its best direction. Zones are polygons in WGS84 [lon, lat].
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { automaticZones, type FieldZone, manualZones } from '../../core/decompose/field-zones.ts';
import { prepareField } from '../../core/field/prepare-field.ts';
import { DEFAULT_MACHINE, type MetricFrame, PlanningError, type Polygon } from '../../core/types/index.ts';
import { type BoundaryInput, MAX_FIELD_VERTICES, planningBoundary } from '../../formats/direct-request.ts';
import {
  DEFAULT_COMPLEXITY_LIMITS,
  estimateComplexity,
  measureBoundary,
  tooComplex,
} from '../../formats/field-complexity.ts';
import { ApiError, fromPlanningError, validationError } from '../errors.ts';
import { ErrorResponse, withHeaders } from '../openapi/responses.ts';
import { Boundary } from '../planning/schemas.ts';
import { answers } from './common.ts';

const strict = { additionalProperties: false } as const;

/** 422 beside the common answers (typed as they are, so the handler's result is checked against 200 only). */
const tooComplexAnswer: unknown = withHeaders(
  ErrorResponse,
  'PLAN_TOO_COMPLEX: the field is too large for this swath width to be searched at once.',
);

const Machine = Type.Object(
  {
    swathWidth: Type.Number({
      minimum: 0.5,
      maximum: 100,
      description: 'Working width [m], 0.5..100. Required.',
    }),
    minTurningRadius: Type.Optional(
      Type.Number({
        minimum: 0.5,
        maximum: 100,
        default: 6,
        description:
          'Minimum turning radius [m], 0.5..100. Default 6. Prices the turns a decomposition saves.',
      }),
    ),
  },
  { additionalProperties: true, description: 'The machine; members other than these two are ignored here.' },
);

const Passes = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 50, default: 0, description }));

const common = {
  boundary: Boundary,
  equipment: Machine,
  exteriorHeadlandPasses: Passes('Headland passes along the field edge, 0..50. Default 0.'),
  interiorHeadlandPasses: Passes('Headland passes around each obstacle, 0..50. Default 0.'),
};

export const AutomaticRequest = Type.Object(common, {
  ...strict,
  $id: 'AutomaticDecompositionRequest',
  title: 'AutomaticDecompositionRequest',
});

const LineString = Type.Object(
  {
    type: Type.Literal('LineString'),
    coordinates: Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 3 }), {
      minItems: 2,
      maxItems: 10_000,
      description: '[lon, lat] positions in WGS84.',
    }),
  },
  { ...strict, $id: 'DecompositionLineString', title: 'LineString' },
);

const ManualRequest = Type.Object(
  {
    ...common,
    lines: Type.Array(LineString, {
      minItems: 1,
      maxItems: 100,
      description:
        'Cut lines drawn across the field. Each must cut at least one field part (or a piece of one) in two; a line that cuts nothing is refused (400).',
    }),
  },
  { ...strict, $id: 'ManualDecompositionRequest', title: 'ManualDecompositionRequest' },
);

const ZoneFeature = Type.Object(
  {
    type: Type.Literal('Feature'),
    geometry: Type.Object(
      {
        type: Type.Literal('Polygon'),
        coordinates: Type.Array(Type.Array(Type.Array(Type.Number()))),
      },
      { additionalProperties: false },
    ),
    properties: Type.Object(
      {
        zoneIndex: Type.Integer({ minimum: 0 }),
        fieldPartIndex: Type.Integer({
          minimum: 0,
          description: 'The field part (input polygon) the zone belongs to.',
        }),
        role: Type.Union([Type.Literal('cell'), Type.Literal('headland'), Type.Literal('field')], {
          description:
            "'cell': a piece of a decomposed part, worked in its own direction; 'headland': the headland band around a decomposed part; 'field': a part left whole, or a piece of a manual decomposition.",
        }),
        trackBearing: Type.Optional(
          Type.Number({
            description:
              'Best straight-track bearing [deg clockwise from north, 0..180); not for the headland.',
          }),
        ),
        trackCount: Type.Optional(
          Type.Integer({
            minimum: 0,
            description: 'Straight tracks at that bearing inside the headlands of the zone.',
          }),
        ),
        area: Type.Number({ description: '[m^2]' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, $id: 'ZoneFeature', title: 'ZoneFeature' },
);

const Zones = Type.Object(
  { type: Type.Literal('FeatureCollection'), features: Type.Array(ZoneFeature) },
  {
    additionalProperties: false,
    $id: 'ZoneFeatureCollection',
    title: 'ZoneFeatureCollection',
    description: 'The zones; together they cover the field.',
  },
);

export const AutomaticResponse = Type.Object(
  {
    decomposed: Type.Boolean({ description: 'True when at least one field part was split into cells.' }),
    estimate: Type.Object(
      {
        nonWorkingDistance: Type.Number({
          description: 'Estimated turn and headland travel of these zones [m].',
        }),
        baselineNonWorkingDistance: Type.Number({
          description: 'The same estimate with every part worked in one direction [m].',
        }),
      },
      { additionalProperties: false },
    ),
    zones: Zones,
  },
  {
    additionalProperties: false,
    $id: 'AutomaticDecompositionResponse',
    title: 'AutomaticDecompositionResponse',
  },
);

const ManualResponse = Type.Object(
  { zones: Zones },
  { additionalProperties: false, $id: 'ManualDecompositionResponse', title: 'ManualDecompositionResponse' },
);

type Common = Static<typeof AutomaticRequest>;

export function prepareDecomposition(body: Common) {
  const boundary = body.boundary as BoundaryInput;
  const measure = measureBoundary(boundary);
  if (measure.vertices > MAX_FIELD_VERTICES) {
    throw new ApiError(
      413,
      'PAYLOAD_TOO_LARGE',
      `The field has ${measure.vertices} vertices; at most ${MAX_FIELD_VERTICES} are accepted. Simplify the boundary.`,
      { details: { vertices: measure.vertices, maxVertices: MAX_FIELD_VERTICES } },
    );
  }
  const opts = {
    swathWidth: body.equipment.swathWidth,
    turningRadius: body.equipment.minTurningRadius ?? DEFAULT_MACHINE.minTurningRadius,
    exteriorPasses: body.exteriorHeadlandPasses ?? 0,
    interiorPasses: body.interiorHeadlandPasses ?? 0,
  };
  const complexity = estimateComplexity(measure, {
    swathWidth: opts.swathWidth,
    exteriorHeadlandPasses: opts.exteriorPasses,
    interiorHeadlandPasses: opts.interiorPasses,
  });
  const why = tooComplex(complexity, DEFAULT_COMPLEXITY_LIMITS);
  if (why) throw new ApiError(422, 'PLAN_TOO_COMPLEX', why, { details: { ...complexity } });
  try {
    return { ...prepareField(planningBoundary(boundary)), opts };
  } catch (e) {
    if (e instanceof PlanningError) throw fromPlanningError(e.code, e.message, { ...e.details }, '/boundary');
    throw e;
  }
}

function ring(frame: MetricFrame, r: readonly { x: number; y: number }[]): number[][] {
  const c = r.map((p) => frame.toLonLat(p).map((v) => Math.round(v * 1e9) / 1e9));
  return [...c, c[0]];
}

export function zoneCollection(frame: MetricFrame, zones: readonly FieldZone[]) {
  return {
    type: 'FeatureCollection' as const,
    features: zones.map((z, zoneIndex) => ({
      type: 'Feature' as const,
      geometry: { type: 'Polygon' as const, coordinates: polygonCoords(frame, z.polygon) },
      properties: {
        zoneIndex,
        fieldPartIndex: z.fieldPart,
        role: z.role,
        ...(z.bearingDeg !== undefined ? { trackBearing: Math.round(z.bearingDeg * 1e6) / 1e6 } : {}),
        ...(z.trackCount !== undefined ? { trackCount: z.trackCount } : {}),
        area: Math.round(z.area * 100) / 100,
      },
    })),
  };
}

function polygonCoords(frame: MetricFrame, p: Polygon): number[][][] {
  return [ring(frame, p.outer), ...p.holes.map((h) => ring(frame, h))];
}

/** The answer of an automatic decomposition: whether it split, the estimates, the zones. */
export function automaticAnswer(frame: MetricFrame, res: ReturnType<typeof automaticZones>) {
  return {
    decomposed: res.decomposed,
    estimate: {
      nonWorkingDistance: Math.round(res.estimate.nonWorkingDistance * 100) / 100,
      baselineNonWorkingDistance: Math.round(res.estimate.baselineNonWorkingDistance * 100) / 100,
    },
    zones: zoneCollection(frame, res.zones),
  };
}

export async function geometryDecompositionRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Geometry operations'];

  r.post(
    '/api/geometry-operations/automatic-decomposition',
    {
      schema: {
        tags,
        summary: 'Split a field into zones along straight edges',
        description:
          'Each field part of a non-convex field is split where that saves turns and headland travel: concave corners propose cuts that continue their edges across the area inside the headlands, taken when the estimated turns and travel (each extra zone paying its connection) drop by a clear margin, and merged back where neighbours agree on a direction. ' +
          "Each cell gets its own best track bearing; narrow corridors become cells worked along their length. A decomposed part's headland band is one more zone. A part that gains nothing stays one zone (role 'field'). " +
          'Direct plans (POST /api/path-plans/direct) use the same decomposition by default (useDecomposition), and adopt it only when the planned route confirms the saving: at least 10 % less non-working distance and 1 % less time, with no less coverage (0.5 % of the field).',
        body: AutomaticRequest,
        response: {
          ...answers({ 200: { schema: AutomaticResponse, description: 'The zones.' } }, 400, 413, 415),
          422: tooComplexAnswer,
        },
      },
    },
    async (req) => {
      const { field, frame, opts } = prepareDecomposition(req.body);
      return automaticAnswer(frame, automaticZones(field, opts));
    },
  );

  r.post(
    '/api/geometry-operations/manual-decomposition',
    {
      schema: {
        tags,
        summary: 'Split a field into zones along given lines',
        description:
          'The field cut along the lines drawn across it; each piece is a zone with its best straight-track bearing and track count inside the headlands. A line that cuts nothing in two is refused with 400 naming it.',
        body: ManualRequest,
        response: {
          ...answers({ 200: { schema: ManualResponse, description: 'The zones.' } }, 400, 413, 415),
          422: tooComplexAnswer,
        },
      },
    },
    async (req) => {
      const { field, frame, opts } = prepareDecomposition(req.body);
      const bad: { path: string; message: string }[] = [];
      for (const [i, l] of req.body.lines.entries()) {
        for (const [k, c] of l.coordinates.entries()) {
          if (Math.abs(c[0]) > 180 || Math.abs(c[1]) > 90)
            bad.push({
              path: `/lines/${i}/coordinates/${k}`,
              message: `[${c[0]}, ${c[1]}] is not [lon, lat] in degrees`,
            });
        }
      }
      if (bad.length) throw validationError(bad);
      const lines = req.body.lines.map((l) => l.coordinates.map((c) => frame.toMetric(c[0], c[1])));
      const res = manualZones(field, lines, opts);
      if (res.unusedLines.length) {
        throw validationError(
          res.unusedLines.map((i) => ({
            path: `/lines/${i}`,
            message: `line ${i} cuts no part of the field in two; draw it across the field, from edge to edge`,
          })),
        );
      }
      return { zones: zoneCollection(frame, res.zones) };
    },
  );
}
