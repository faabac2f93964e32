/**
 * Schemas of the slope figures of a plan (includeSlopes): the
 * GeometryPartSlopeDetail of the interface (`slopeDetails` of a geometry
 * part) and the summary of zones and plan. Named (`$id`) for the OpenAPI
 * document. The figures follow core/terrain/slopes.ts.
 */
import { Type } from 'typebox';

const percent = (description: string) => Type.Optional(Type.Number({ description: `${description} [%]` }));

const detailMembers = {
  samples: Type.Integer({
    minimum: 0,
    description:
      'Sample points with ground data (every 1 m, or every DEM cell on coarser DEMs, at least one per segment).',
  }),
  noDataSamples: Type.Integer({
    minimum: 0,
    description:
      'Sample points without ground data (outside the DEMs or on their no-data cells); not in the figures. The figures below are absent when samples is 0.',
  }),
  meanSlopePercent: percent('Mean steepest slope of the ground (100 x rise / run), weighted by length'),
  maxSlopePercent: percent('Steepest slope met'),
  meanAlongTrackPercent: percent(
    'Mean slope in the direction of the coordinates (for driven parts, of driving); > 0 uphill, < 0 downhill',
  ),
  meanCrossTrackPercent: percent('Mean sideways slope, unsigned'),
  maxCrossTrackPercent: percent('Steepest sideways slope of a sample, unsigned'),
  exceedsMaxCrossSlope: Type.Optional(
    Type.Boolean({
      description:
        "Given equipment.maxCrossSlopePercent only: true where some of the part runs across a slope steeper sideways than the machine's limit (the zone's warnings name the driven parts that do).",
    }),
  ),
  overMaxCrossSlopeLength: Type.Optional(
    Type.Number({
      minimum: 0,
      description: 'Given equipment.maxCrossSlopePercent only: length of the part over that limit [m].',
    }),
  ),
  minElevation: Type.Optional(Type.Number({ description: 'Lowest ground elevation [m].' })),
  maxElevation: Type.Optional(Type.Number({ description: 'Highest ground elevation [m].' })),
};

export const SlopeDetail = Type.Object(detailMembers, {
  additionalProperties: false,
  $id: 'SlopeDetail',
  title: 'SlopeDetail',
  description:
    "GeometryPartSlopeDetail: the ground's slopes along a geometry part, from the DEM (includeSlopes only).",
});

export const SlopeSummary = Type.Object(
  {
    ...detailMembers,
    workingShareAbove2Percent: percent(
      'Share of the working distance where the along-track slope (up or down) is over 2 %',
    ),
    workingShareAbove5Percent: percent('The same over 5 %'),
    workingShareAbove10Percent: percent('The same over 10 %'),
  },
  {
    additionalProperties: false,
    $id: 'SlopeSummary',
    title: 'SlopeSummary',
    description:
      "Slopes along a zone's route (the driven parts of its active group; all its parts when it has no route), or over all zones (includeSlopes only).",
  },
);
