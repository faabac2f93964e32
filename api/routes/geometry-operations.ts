/**
 * Stateless geometry conversions (spec 4.4 "Geometry operations"); nothing
 * is stored:
 *   POST /api/geometry-operations/convert-wkt-to-geojson    { wkt } → { geometry }
 *   POST /api/geometry-operations/convert-geojson-to-wkt    { geojson } → { wkt }
 *   POST /api/geometry-operations/geojson-change-crs-to-utm { geojson, zone?, hemisphere? } → { geojson, utm }
 *   POST /api/geometry-operations/wkt-change-crs-to-utm     { wkt, zone?, hemisphere? } → { wkt, utm }
 *   POST /api/geometry-operations/convert-jd-multipolygonsjson-to-geojson  John Deere multipolygons → GeoJSON
 *   POST /api/geometry-operations/geojson-wrappers-testing  how a GeoJSON input is wrapped and read
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PlanningError } from '../../core/types/index.ts';
import { parseWkt } from '../../formats/boundary-wkt.ts';
import { geojsonToUtm, geojsonToWkt, type UtmZone } from '../../formats/geometry-convert.ts';
import { checkGeoJsonWrappers, jdMultipolygonsToGeoJson } from '../../formats/vendor-jd-multipolygons.ts';
import { fromPlanningError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { answers } from './common.ts';

const WKT_MAX = 5_000_000;

const Wkt = Type.String({
  minLength: 1,
  maxLength: WKT_MAX,
  description: 'WKT POLYGON or MULTIPOLYGON in WGS84 longitude/latitude (Z and M values are dropped).',
});

const GeoJson = Type.Object(
  { type: Type.String({ description: 'A GeoJSON type.' }) },
  {
    additionalProperties: true,
    description: 'A GeoJSON geometry, Feature or FeatureCollection, WGS84 [lon, lat].',
  },
);

const UtmOptions = {
  zone: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 60,
      description: 'UTM zone; default the zone of the centre of the bounding box.',
    }),
  ),
  hemisphere: Type.Optional(
    Type.Union([Type.Literal('N'), Type.Literal('S')], {
      description: 'Default: N when the centre is on or north of the equator.',
    }),
  ),
};

const Utm = Type.Object(
  {
    zone: Type.Integer(),
    hemisphere: Type.Union([Type.Literal('N'), Type.Literal('S')]),
    epsg: Type.Integer({ description: 'EPSG code (WGS 84 / UTM: 326zz north, 327zz south).' }),
    proj: Type.String({ description: 'The proj4 definition.' }),
  },
  { $id: 'UtmZone', title: 'UtmZone' },
);

/** Parser refusals as 400s pointing into the request. */
function rethrow(e: unknown, member: '/wkt' | '/geojson'): never {
  if (!(e instanceof PlanningError)) throw e;
  const p = typeof e.details.path === 'string' ? e.details.path : '';
  const path = member === '/wkt' ? '' : p.startsWith('/') ? p : '';
  throw fromPlanningError(e.code, e.message, { ...e.details, path }, member);
}

function wktToGeojson(wkt: string) {
  try {
    return parseWkt(wkt);
  } catch (e) {
    rethrow(e, '/wkt');
  }
}

function toUtm(
  geojson: unknown,
  body: { zone?: number; hemisphere?: 'N' | 'S' },
  member: '/wkt' | '/geojson',
) {
  try {
    return geojsonToUtm(geojson, body);
  } catch (e) {
    rethrow(e, member);
  }
}

const utmBody = (u: UtmZone) => ({ zone: u.zone, hemisphere: u.hemisphere, epsg: u.epsg, proj: u.proj });

export async function geometryOperationRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Geometry operations'];

  r.post(
    '/api/geometry-operations/convert-wkt-to-geojson',
    {
      schema: {
        tags,
        summary: 'WKT to GeoJSON',
        description:
          'A POLYGON or MULTIPOLYGON as a GeoJSON geometry. 400 names the character where the WKT goes wrong.',
        body: Type.Object(
          { wkt: Wkt },
          { additionalProperties: false, $id: 'WktRequest', title: 'WktRequest' },
        ),
        response: answers(
          {
            200: {
              schema: Type.Object(
                { geometry: GeoJson },
                { $id: 'GeoJsonGeometryResponse', title: 'GeoJsonGeometryResponse' },
              ),
              description: 'The geometry.',
            },
          },
          400,
          413,
          415,
        ),
      },
    },
    async (req) => ({ geometry: wktToGeojson(req.body.wkt) }),
  );

  r.post(
    '/api/geometry-operations/convert-geojson-to-wkt',
    {
      schema: {
        tags,
        summary: 'GeoJSON to WKT',
        description:
          'The polygons of a Polygon, MultiPolygon, Feature or FeatureCollection as one WKT POLYGON (one polygon) or MULTIPOLYGON. 400 points at the offending member.',
        body: Type.Object(
          { geojson: GeoJson },
          { additionalProperties: false, $id: 'GeoJsonRequest', title: 'GeoJsonRequest' },
        ),
        response: answers(
          {
            200: {
              schema: Type.Object({ wkt: Type.String() }, { $id: 'WktResponse', title: 'WktResponse' }),
              description: 'The WKT.',
            },
          },
          400,
          413,
          415,
        ),
      },
    },
    async (req) => {
      try {
        return { wkt: geojsonToWkt(req.body.geojson) };
      } catch (e) {
        rethrow(e, '/geojson');
      }
    },
  );

  r.post(
    '/api/geometry-operations/geojson-change-crs-to-utm',
    {
      schema: {
        tags,
        summary: 'GeoJSON from WGS84 to UTM',
        description:
          'Every position of a WGS84 GeoJSON geometry, Feature or FeatureCollection (any geometry type) in metres [easting, northing] of a WGS 84 / UTM zone (standard 6° zones; the zone of the centre of the bounding box unless zone is given), rounded to 1 mm; heights are kept. 400 FIELD_NOT_LONLAT names a position that is not a longitude/latitude.',
        body: Type.Object(
          { geojson: GeoJson, ...UtmOptions },
          { additionalProperties: false, $id: 'GeoJsonToUtmRequest', title: 'GeoJsonToUtmRequest' },
        ),
        response: answers(
          {
            200: {
              schema: Type.Object(
                { geojson: GeoJson, utm: Utm },
                { $id: 'GeoJsonUtmResponse', title: 'GeoJsonUtmResponse' },
              ),
              description: 'The same GeoJSON in UTM metres, and the zone.',
            },
          },
          400,
          413,
          415,
        ),
      },
    },
    async (req) => {
      const { utm, geojson } = toUtm(req.body.geojson, req.body, '/geojson');
      return { geojson, utm: utmBody(utm) };
    },
  );

  r.post(
    '/api/geometry-operations/wkt-change-crs-to-utm',
    {
      schema: {
        tags,
        summary: 'WKT from WGS84 to UTM',
        description:
          'A WGS84 POLYGON or MULTIPOLYGON in metres [easting northing] of a WGS 84 / UTM zone (the zone of its centre unless zone is given), rounded to 1 mm.',
        body: Type.Object(
          { wkt: Wkt, ...UtmOptions },
          { additionalProperties: false, $id: 'WktToUtmRequest', title: 'WktToUtmRequest' },
        ),
        response: answers(
          {
            200: {
              schema: Type.Object(
                { wkt: Type.String(), utm: Utm },
                { $id: 'WktUtmResponse', title: 'WktUtmResponse' },
              ),
              description: 'The WKT in UTM metres, and the zone.',
            },
          },
          400,
          413,
          415,
        ),
      },
    },
    async (req) => {
      const g = wktToGeojson(req.body.wkt);
      const { utm, geojson } = toUtm(g, req.body, '/wkt');
      return { wkt: geojsonToWkt(geojson), utm: utmBody(utm) };
    },
  );

  r.post(
    '/api/geometry-operations/convert-jd-multipolygonsjson-to-geojson',
    {
      schema: {
        tags,
        summary: 'John Deere multipolygons JSON to GeoJSON',
        description:
          'The boundary shape of the John Deere Operations Center (`{ multipolygons: [ { rings: [ { type: exterior|interior, passable, points: [ { lat, lon } ] } ] } ] }`, or the array alone) as a GeoJSON FeatureCollection: a Polygon Feature per exterior ring with the non-passable interior rings inside it as holes; passable interior rings as Polygon Features with properties.passable true (as the planner reads them). Rings are closed. 400 names the offending member.',
        body: named(
          'JdMultipolygonsRequest',
          Type.Object(
            {
              multipolygons: Type.Array(Type.Object({}, { additionalProperties: true }), {
                minItems: 1,
                maxItems: 10_000,
              }),
            },
            { additionalProperties: true },
          ),
        ),
        response: answers(
          {
            200: {
              schema: named(
                'JdMultipolygonsGeoJson',
                Type.Object({
                  type: Type.Literal('FeatureCollection'),
                  features: Type.Array(Type.Object({}, { additionalProperties: true })),
                }),
              ),
              description: 'The FeatureCollection.',
            },
          },
          400,
          413,
          415,
        ),
      },
    },
    async (req) => {
      try {
        return jdMultipolygonsToGeoJson(req.body);
      } catch (e) {
        if (!(e instanceof PlanningError)) throw e;
        throw fromPlanningError(e.code, e.message, {}, e.details.path as string);
      }
    },
  );

  r.post(
    '/api/geometry-operations/geojson-wrappers-testing',
    {
      schema: {
        tags,
        summary: 'Check how a GeoJSON input is wrapped and whether it makes a field',
        description:
          'Reports the wrapper of `geojson` (Geometry, Feature, FeatureCollection, GeometryCollection), its features and geometry types, and whether the planner reads a field from it: the field parts, passable obstacles (Features with properties.passable true), area [m²] and repairs, or the problem with a JSON-path-like location. Always 200 for a JSON object; nothing is stored.',
        body: Type.Object({ geojson: GeoJson }, { additionalProperties: false }),
        response: answers(
          {
            200: {
              schema: named(
                'GeoJsonWrapperReport',
                Type.Object({
                  wrapper: Type.String(),
                  type: Type.Union([Type.String(), Type.Null()]),
                  featureCount: Type.Integer(),
                  geometryTypes: Type.Array(Type.String()),
                  valid: Type.Boolean(),
                  fieldParts: Type.Integer(),
                  passableObstacles: Type.Integer(),
                  area: Type.Number(),
                  repairs: Type.Array(Type.String()),
                  problems: Type.Array(
                    Type.Object({ path: Type.String(), errorCode: Type.String(), message: Type.String() }),
                  ),
                }),
              ),
              description: 'The report.',
            },
          },
          400,
          413,
          415,
        ),
      },
    },
    async (req) => checkGeoJsonWrappers(req.body.geojson),
  );
}
