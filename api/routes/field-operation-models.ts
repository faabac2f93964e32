/**
 * Schemas and views of field operations (spec 4.4, "Field operations"),
 * shared by their routes and exports.
 */
import { type Static, Type } from 'typebox';
import type { FieldOperationRecord } from '../../store/repositories/field-operations.ts';
import { named } from '../openapi/components.ts';
import { Etag, etagOf, iso, Timestamp, Uuid } from './common.ts';

export const OPERATION_STATUSES = ['inProgress', 'completed', 'cancelled'] as const;
const Status = Type.Union(
  OPERATION_STATUSES.map((s) => Type.Literal(s)),
  { description: 'inProgress until completed or cancelled; positions are logged only while inProgress.' },
);
const OperationType = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'What was done (spraying, seeding, ...); free text, as the plans’ operationType.',
});
const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);
const Meters = (d: string) => Type.Number({ description: d });

export const TrackDeviation = named(
  'FieldOperationTrackDeviation',
  Type.Object({
    zoneIndex: Type.Integer(),
    trackIndex: Type.Integer({
      description: 'The planned track (trackDetail.trackIndex of its RouteTrack).',
    }),
    length: Meters('Planned length [m].'),
    drivenLength: Meters('Length along which working positions were logged within half a swath [m].'),
    drivenPercent: Type.Number(),
    status: Type.Union([Type.Literal('driven'), Type.Literal('partial'), Type.Literal('missed')], {
      description: 'driven: at least 90 % of its length; missed: under 10 %.',
    }),
    pointCount: Type.Integer({ description: 'Working positions matched to the track.' }),
    meanError: Nullable(
      Meters('Signed mean cross-track error, positive right of the planned direction [m].'),
    ),
    meanAbsError: Nullable(Meters('[m]')),
    rmsError: Nullable(Meters('[m]')),
    p95AbsError: Nullable(Meters('[m]')),
    maxAbsError: Nullable(Meters('[m]')),
  }),
);

const members = {
  fieldOpId: Uuid('The operation id.'),
  companyId: Uuid('Its company.'),
  fieldId: Uuid('The field worked.'),
  fieldName: Type.String(),
  boundaryId: Uuid('The boundary measured against.'),
  pathPlanId: Type.Union([Uuid('The plan followed.'), Type.Null()]),
  operationType: Type.String(),
  equipmentId: Type.Union([Uuid('The machine.'), Type.Null()]),
  operatorId: Type.Union([Uuid('The driver.'), Type.Null()]),
  swathWidth: Meters('Working width the coverage is measured with [m].'),
  status: Status,
  notes: Type.Union([Type.String(), Type.Null()]),
  startedAt: Timestamp,
  endedAt: Type.Union([Timestamp, Type.Null()]),
  pointCount: Type.Integer({ description: 'Positions logged (one per time).' }),
  firstPointAt: Type.Union([Timestamp, Type.Null()]),
  lastPointAt: Type.Union([Timestamp, Type.Null()]),
  fieldArea: Meters('Area of the boundary [m²].'),
  coveredArea: Meters('Ground worked at least once inside the boundary [m²].'),
  coveredPercent: Type.Number({ description: 'coveredArea of fieldArea [%].' }),
  overlapArea: Meters('Ground worked more than once, once per extra pass [m²].'),
  missedArea: Meters('fieldArea less coveredArea [m²].'),
  workingDistance: Meters('Distance driven while working [m].'),
  workingTime: Type.Number({ description: 'Time spent working [s].' }),
  trackSummary: Type.Union(
    [
      Type.Object({
        driven: Type.Integer(),
        partial: Type.Integer(),
        missed: Type.Integer(),
        rmsError: Type.Union([Type.Number(), Type.Null()], {
          description: 'Cross-track error over all matched positions [m].',
        }),
      }),
      Type.Null(),
    ],
    { description: 'Planned tracks by how they were driven; null without a linked plan.' },
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  etag: Etag,
};

export const FieldOperation = named(
  'FieldOperation',
  Type.Object(members, {
    description: 'A field operation with its figures, current as soon as a log call has returned.',
  }),
);

export const FieldOperationDetail = named(
  'FieldOperationDetail',
  Type.Object(
    {
      ...members,
      tracks: Type.Union([Type.Array(TrackDeviation), Type.Null()], {
        description: 'Deviation from the linked plan per planned track; null without a plan.',
      }),
    },
    { description: 'A field operation with the deviation from its plan per track.' },
  ),
);

export const FieldOperationPage = named(
  'FieldOperationPage',
  Type.Object({ items: Type.Array(FieldOperation), total: Type.Integer() }),
);

export const StartFieldOperationRequest = named(
  'StartFieldOperationRequest',
  Type.Object(
    {
      fieldId: Uuid('The field.'),
      boundaryId: Uuid('A boundary of the field: coverage is measured against it.'),
      pathPlanId: Type.Optional(Uuid('The plan followed (of the same field): cross-track errors per track.')),
      operationType: OperationType,
      equipmentId: Type.Optional(Uuid('The machine; its swath width is used unless swathWidth is given.')),
      operatorId: Type.Optional(Uuid('The driver.')),
      startedAt: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
      swathWidth: Type.Optional(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 100,
          description: 'Working width [m]; default the equipment’s, else the linked plan’s.',
        }),
      ),
      notes: Type.Optional(Type.String({ maxLength: 2000 })),
    },
    { additionalProperties: false },
  ),
);

export const MAX_POINTS_PER_LOG = 20_000;

export const LogFieldOperationRequest = named(
  'LogFieldOperationRequest',
  Type.Object(
    {
      points: Type.Array(
        Type.Object(
          {
            t: Type.String({ format: 'date-time', description: 'When (ISO 8601); one position per time.' }),
            lon: Type.Number({ minimum: -180, maximum: 180 }),
            lat: Type.Number({ minimum: -90, maximum: 90 }),
            heading: Type.Optional(
              Type.Number({ minimum: 0, maximum: 360, description: '[deg from north]' }),
            ),
            speed: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: '[m/s]' })),
            working: Type.Boolean({ description: 'The implement was working.' }),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: MAX_POINTS_PER_LOG },
      ),
    },
    {
      additionalProperties: false,
      description: `Up to ${MAX_POINTS_PER_LOG} positions, in any order; positions at a time already logged are ignored.`,
    },
  ),
);

export const LogFieldOperationResponse = named(
  'LogFieldOperationResponse',
  Type.Object({
    accepted: Type.Integer({ description: 'Positions stored by this call.' }),
    duplicates: Type.Integer({ description: 'Positions at a time already logged (ignored).' }),
    operation: FieldOperation,
  }),
);

export const UpdateFieldOperationRequest = named(
  'UpdateFieldOperationRequest',
  Type.Object(
    {
      status: Type.Optional(Type.Union([Type.Literal('completed'), Type.Literal('cancelled')])),
      notes: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
      endedAt: Type.Optional(
        Type.String({ format: 'date-time', description: 'With status: when it ended (default now).' }),
      ),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

export const operationFilterMembers = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Started at or after.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Started before.' })),
  operationTypes: Type.Optional(Type.Array(OperationType, { maxItems: 100 })),
  statuses: Type.Optional(Type.Array(Status, { maxItems: 3 })),
  fieldIds: Type.Optional(Type.Array(Uuid('A field of the company.'), { maxItems: 1000 })),
};

export const FieldOperationTableRequest = named(
  'FieldOperationTableRequest',
  Type.Object(
    {
      ...operationFilterMembers,
      offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 100.' })),
    },
    { additionalProperties: false },
  ),
);

export const MAX_GEOJSON_EXPORT = 100;

export const FieldOperationExportRequest = named(
  'FieldOperationExportRequest',
  Type.Object(
    {
      format: Type.Union([Type.Literal('csv'), Type.Literal('geojson')]),
      fieldOpIds: Type.Optional(Type.Array(Uuid('An operation of the company.'), { maxItems: 1000 })),
      ...operationFilterMembers,
    },
    {
      additionalProperties: false,
      description: `The operations named, else those the filters select. csv: one row of figures per operation (at most 10,000); geojson: a FeatureCollection with the covered ground of each (at most ${MAX_GEOJSON_EXPORT}).`,
    },
  ),
);

export const ListQuery = Type.Object(
  {
    offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,7}$', description: 'Whole number, default 0.' })),
    limit: Type.Optional(
      Type.String({ pattern: '^(1000|[1-9][0-9]{0,2})$', description: 'Whole number 1..1000, default 100.' }),
    ),
    from: operationFilterMembers.from,
    to: operationFilterMembers.to,
    operationType: Type.Optional(OperationType),
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
);

export type FilterBody = {
  from?: string;
  to?: string;
  operationTypes?: string[];
  statuses?: Static<typeof Status>[];
  fieldIds?: string[];
};

type Deviation = Static<typeof TrackDeviation>;

function trackSummary(tracks: Deviation[] | null) {
  if (!tracks) return null;
  let n = 0;
  let s2 = 0;
  for (const t of tracks) {
    if (t.rmsError === null) continue;
    n += t.pointCount;
    s2 += t.rmsError * t.rmsError * t.pointCount;
  }
  return {
    driven: tracks.filter((t) => t.status === 'driven').length,
    partial: tracks.filter((t) => t.status === 'partial').length,
    missed: tracks.filter((t) => t.status === 'missed').length,
    rmsError: n > 0 ? Math.sqrt(s2 / n) : null,
  };
}

const isoOrNull = (d: Date | null) => (d ? iso(d) : null);

export function operationView(o: FieldOperationRecord): Static<typeof FieldOperation> {
  return {
    fieldOpId: o.id,
    companyId: o.companyId,
    fieldId: o.fieldId,
    fieldName: o.fieldName,
    boundaryId: o.boundaryId,
    pathPlanId: o.pathPlanId,
    operationType: o.operationType,
    equipmentId: o.equipmentId,
    operatorId: o.operatorId,
    swathWidth: o.swathWidth,
    status: o.status as Static<typeof Status>,
    notes: o.notes,
    startedAt: iso(o.startedAt),
    endedAt: isoOrNull(o.endedAt),
    pointCount: o.pointCount,
    firstPointAt: isoOrNull(o.firstPointAt),
    lastPointAt: isoOrNull(o.lastPointAt),
    fieldArea: o.fieldArea,
    coveredArea: o.coveredArea,
    coveredPercent: o.coveredPercent,
    overlapArea: o.overlapArea,
    missedArea: o.missedArea,
    workingDistance: o.workingDistance,
    workingTime: o.workingTime,
    trackSummary: trackSummary(o.tracks as Deviation[] | null),
    createdAt: iso(o.createdAt),
    updatedAt: iso(o.updatedAt),
    etag: etagOf(o.version),
  };
}

export function operationDetail(o: FieldOperationRecord): Static<typeof FieldOperationDetail> {
  return { ...operationView(o), tracks: (o.tracks as Deviation[] | null) ?? null };
}

/** CSV columns of an operation export: the view's scalar members. */
export const OPERATION_CSV_COLUMNS = [
  'fieldOpId',
  'fieldId',
  'fieldName',
  'boundaryId',
  'pathPlanId',
  'operationType',
  'equipmentId',
  'operatorId',
  'status',
  'startedAt',
  'endedAt',
  'pointCount',
  'swathWidth',
  'fieldArea',
  'coveredArea',
  'coveredPercent',
  'overlapArea',
  'missedArea',
  'workingDistance',
  'workingTime',
  'tracksDriven',
  'tracksPartial',
  'tracksMissed',
  'crossTrackRms',
  'notes',
] as const;

export function operationCsvRow(o: FieldOperationRecord): unknown[] {
  const v = operationView(o) as Record<string, unknown>;
  const s = v.trackSummary as ReturnType<typeof trackSummary>;
  const extra: Record<string, unknown> = {
    tracksDriven: s?.driven,
    tracksPartial: s?.partial,
    tracksMissed: s?.missed,
    crossTrackRms: s?.rmsError,
  };
  return OPERATION_CSV_COLUMNS.map((c) => (c in extra ? extra[c] : v[c]));
}
