/**
 * Candidate reference lines (stateless, nothing is stored): the lines a user
 * picks from before planning, as JSON or as GeoJSON.
 *   POST /api/reference-lines/default-straight-edges[/geojson]
 *   POST /api/reference-lines/default-contours[/geojson]
 *   POST /api/reference-lines/default-lines[/geojson]
 *   POST /api/reference-lines/default-reference-lines   all of them in one answer
 *   POST /api/reference-lines/default-lines-deprecated  the old name of default-lines
 * Each takes { boundary, equipment?, exteriorHeadlandPasses?, interiorHeadlandPasses?, maxLines? }
 * and answers the lines in WGS84 [lon, lat], best first.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { prepareField } from '../../core/field/prepare-field.ts';
import {
  contourLines,
  defaultLines,
  type ReferenceCandidate,
  straightEdges,
} from '../../core/tracks/reference-lines.ts';
import { DEFAULT_MACHINE, type MetricFrame, PlanningError } from '../../core/types/index.ts';
import { type BoundaryInput, MAX_FIELD_VERTICES, planningBoundary } from '../../formats/direct-request.ts';
import { measureBoundary } from '../../formats/field-complexity.ts';
import { ApiError, fromPlanningError, validationError } from '../errors.ts';
import { Boundary } from '../planning/schemas.ts';
import { answers } from './common.ts';

const strict = { additionalProperties: false } as const;

const Machine = Type.Object(
  {
    swathWidth: Type.Optional(
      Type.Number({
        minimum: 0.5,
        maximum: 100,
        description: 'Working width [m], 0.5..100. Required by default-lines (it counts the tracks).',
      }),
    ),
    minTurningRadius: Type.Optional(
      Type.Number({
        minimum: 0.5,
        maximum: 100,
        default: 6,
        description: 'Minimum turning radius [m]. Default 6.',
      }),
    ),
  },
  { additionalProperties: true, description: 'The machine; members other than these two are ignored here.' },
);

const Passes = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 50, default: 0, description }));

const ReferenceLinesRequest = Type.Object(
  {
    boundary: Boundary,
    equipment: Type.Optional(Machine),
    exteriorHeadlandPasses: Passes('Headland passes along the field edge (default-lines), 0..50. Default 0.'),
    interiorHeadlandPasses: Passes('Headland passes around each obstacle (default-lines), 0..50. Default 0.'),
    maxLines: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 50,
        default: 5,
        description: 'At most this many lines, 1..50. Default 5.',
      }),
    ),
  },
  { ...strict, $id: 'ReferenceLinesRequest', title: 'ReferenceLinesRequest' },
);

type Body = Static<typeof ReferenceLinesRequest>;

const LineStringGeometry = Type.Object(
  {
    type: Type.Literal('LineString'),
    coordinates: Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }), { minItems: 2 }),
  },
  { additionalProperties: false, $id: 'ReferenceLineString', title: 'ReferenceLineString' },
);

const lineProps = {
  kind: Type.Union([Type.Literal('best'), Type.Literal('edge'), Type.Literal('contour')], {
    description:
      "'best': the bearing the planner finds best for straight tracks (fewest tracks and turns); 'edge': a long straight run of the boundary; 'contour': a long smooth run of the boundary (a reference for Curved tracks).",
  }),
  rank: Type.Integer({ minimum: 0, description: 'Position in the answer, 0 = first choice.' }),
  bearing: Type.Number({
    description: 'Bearing of the line (of its chord for a contour) [deg clockwise from north, 0..180).',
  }),
  length: Type.Number({ description: 'Length of the line [m].' }),
  trackCount: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'default-lines: straight tracks at this bearing inside the headlands.',
    }),
  ),
  fieldPartIndex: Type.Integer({
    minimum: 0,
    description: 'The field part (input polygon) the line belongs to.',
  }),
};

const ReferenceLine = Type.Object(
  { ...lineProps, line: LineStringGeometry },
  { additionalProperties: false, $id: 'ReferenceLine', title: 'ReferenceLine' },
);

const ReferenceLinesResponse = Type.Object(
  { lines: Type.Array(ReferenceLine) },
  { additionalProperties: false, $id: 'ReferenceLinesResponse', title: 'ReferenceLinesResponse' },
);

const ReferenceLinesGeoJson = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    features: Type.Array(
      Type.Object(
        {
          type: Type.Literal('Feature'),
          geometry: LineStringGeometry,
          properties: Type.Object(lineProps, { additionalProperties: false }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    $id: 'ReferenceLinesFeatureCollection',
    title: 'ReferenceLinesFeatureCollection',
  },
);

function prepare(body: Body) {
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
  try {
    return prepareField(planningBoundary(boundary));
  } catch (e) {
    if (e instanceof PlanningError) throw fromPlanningError(e.code, e.message, { ...e.details }, '/boundary');
    throw e;
  }
}

function lines(frame: MetricFrame, list: readonly ReferenceCandidate[]) {
  return list.map((c, rank) => ({
    kind: c.kind,
    rank,
    bearing: c.bearingDeg,
    length: Math.round(c.length * 100) / 100,
    ...(c.trackCount !== undefined ? { trackCount: c.trackCount } : {}),
    fieldPartIndex: c.fieldPart,
    line: {
      type: 'LineString' as const,
      coordinates: c.points.map((p) => frame.toLonLat(p).map((v) => Math.round(v * 1e9) / 1e9)),
    },
  }));
}

function geojson(frame: MetricFrame, list: readonly ReferenceCandidate[]) {
  return {
    type: 'FeatureCollection' as const,
    features: lines(frame, list).map(({ line, ...properties }) => ({
      type: 'Feature' as const,
      geometry: line,
      properties,
    })),
  };
}

type Kind = 'default-straight-edges' | 'default-contours' | 'default-lines';
/** Kinds answered only as JSON: every reference line, and the old name of default-lines. */
type MoreKind = 'default-reference-lines' | 'default-lines-deprecated';

function candidates(kind: Kind | MoreKind, body: Body): { frame: MetricFrame; list: ReferenceCandidate[] } {
  const { field, frame } = prepare(body);
  const max = body.maxLines ?? 5;
  if (kind === 'default-straight-edges') return { frame, list: straightEdges(field.parts, max) };
  if (kind === 'default-contours') return { frame, list: contourLines(field.parts, max) };
  if (kind === 'default-reference-lines') {
    // The best bearing and the edges (the edges alone without a swath to count tracks), then the contours.
    const straight =
      body.equipment?.swathWidth === undefined
        ? straightEdges(field.parts, max)
        : candidates('default-lines', body).list;
    return { frame, list: [...straight, ...contourLines(field.parts, max)] };
  }
  const swathWidth = body.equipment?.swathWidth;
  if (swathWidth === undefined) {
    throw validationError([
      { path: '/equipment/swathWidth', message: 'default-lines needs the swath width to count the tracks' },
    ]);
  }
  const list = defaultLines(field.parts, {
    swathWidth,
    turningRadius: body.equipment?.minTurningRadius ?? DEFAULT_MACHINE.minTurningRadius,
    exteriorPasses: body.exteriorHeadlandPasses ?? 0,
    interiorPasses: body.interiorHeadlandPasses ?? 0,
    max,
  });
  return { frame, list };
}

const DESCRIPTIONS: Record<Kind, [string, string]> = {
  'default-straight-edges': [
    'Straight edges of the field',
    'The long straight runs of the boundary (collinear edges merged, wiggles under 1 m ignored, at least 20 m long), longest first, one per direction (within 3 degrees): lines to lay straight tracks parallel to.',
  ],
  'default-contours': [
    'Contours of the field',
    'The long smooth runs of the boundary (no corner sharper than 40 degrees, at least 20 m long), smoothed, longest first: reference lines for Curved tracks (give one as referenceLine of a direct plan).',
  ],
  'default-lines': [
    'Candidate track directions',
    "First the bearing the planner finds best for straight tracks (kind 'best': fewest tracks and turns; its line is the first track's AB line, in the largest field part), then the straight edges, each with the number of straight tracks it gives inside the headlands; one per direction. Needs equipment.swathWidth.",
  ],
};

export async function referenceLineRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Reference lines'];
  const more: [MoreKind, string, string, boolean][] = [
    [
      'default-reference-lines',
      'All reference lines of a boundary',
      `Every candidate in one answer: ${DESCRIPTIONS['default-lines'][1].replace(' Needs equipment.swathWidth.', '')} Without equipment.swathWidth, the straight edges alone (no best bearing, no track counts). Then the contours (kind 'contour'). Up to maxLines of each.`,
      false,
    ],
    [
      'default-lines-deprecated',
      'Candidate track directions (deprecated: use default-lines)',
      `The answer of POST /api/reference-lines/default-lines. ${DESCRIPTIONS['default-lines'][1]}`,
      true,
    ],
  ];
  /** A kind answered as JSON lines. */
  const jsonRoute = (kind: Kind | MoreKind, summary: string, description: string, deprecated = false) =>
    r.post(
      `/api/reference-lines/${kind}`,
      {
        schema: {
          tags,
          summary,
          description,
          ...(deprecated ? { deprecated } : {}),
          body: ReferenceLinesRequest,
          response: answers(
            { 200: { schema: ReferenceLinesResponse, description: 'The lines, best first.' } },
            400,
            413,
            415,
          ),
        },
      },
      async (req) => {
        const { frame, list } = candidates(kind, req.body);
        return { lines: lines(frame, list) };
      },
    );
  for (const [kind, summary, description, deprecated] of more)
    jsonRoute(kind, summary, description, deprecated);
  for (const kind of ['default-straight-edges', 'default-contours', 'default-lines'] as const) {
    const [summary, description] = DESCRIPTIONS[kind];
    jsonRoute(kind, summary, description);
    r.post(
      `/api/reference-lines/${kind}/geojson`,
      {
        schema: {
          tags,
          summary: `${summary} (GeoJSON)`,
          description: `${description} As a GeoJSON FeatureCollection of LineString features.`,
          body: ReferenceLinesRequest,
          response: {
            ...answers({}, 400, 413, 415),
            200: {
              description: 'The lines, best first, as GeoJSON (application/geo+json).',
              content: { 'application/geo+json': { schema: ReferenceLinesGeoJson } },
            },
          },
        },
      },
      async (req, reply) => {
        const { frame, list } = candidates(kind, req.body);
        reply.header('content-type', 'application/geo+json; charset=utf-8');
        return geojson(frame, list);
      },
    );
  }
}
