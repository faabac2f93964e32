/**
 * The published interface as a whole: the models are named components that
 * the operations refer to, `redocly lint` finds no error in the document,
 * and a named schema used at several places of a route still validates as
 * it is written.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiRefResolver, shareNamedSchemas } from './components.ts';
import { type OpenApiDocument, openApiDocument, writeOpenApiDocument } from './document.ts';

const run = promisify(execFile);

let doc: OpenApiDocument;
let dir: string;

beforeAll(async () => {
  doc = await openApiDocument();
  dir = mkdtempSync(join(tmpdir(), 'tramline-openapi-'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every operation's responses: [operation, status, media type, schema]. */
function answers(): [string, string, string, Json][] {
  const out: [string, string, string, Json][] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!isObject(op) || !isObject(op.responses)) continue;
      for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
        for (const [type, media] of Object.entries((r.content ?? {}) as Record<string, Json>)) {
          out.push([`${method.toUpperCase()} ${path}`, status, type, media.schema as Json]);
        }
      }
    }
  }
  return out;
}

/** A schema refers to a named one: a reference, a list of them, or a choice between them (or null). */
function refersToNamed(s: Json): boolean {
  if (typeof s.$ref === 'string') return s.$ref.startsWith('#/components/schemas/');
  if (s.type === 'array' && isObject(s.items)) return refersToNamed(s.items);
  const choice = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  return Array.isArray(choice) && choice.every((c) => c.type === 'null' || refersToNamed(c));
}

describe('named schemas of the OpenAPI document', () => {
  it('names the models of the interface and refers to them from the operations', () => {
    const names = Object.keys(doc.components.schemas);
    expect(names.length).toBeGreaterThanOrEqual(30);
    expect(names).toEqual(
      expect.arrayContaining([
        // The normalized plan model (spec 2.4) and its parts, as the planner writes it and as stored.
        'PathPlanNormalizedModel',
        'PathPlanZoneModel',
        'GeometryGroupModel',
        'GeometryPartModel',
        'GeometryPartType',
        'PlanStats',
        'OptimizerReport',
        'EquipmentModel',
        'StoredPathPlanNormalizedModel',
        'PlanFeatureCollection',
        // Requests.
        'DirectPlanRequest',
        'PathPlanRequest',
        'RouteApiOptions',
        'CurvedOptions',
        'Equipment',
        'Polygon',
        'MultiPolygon',
        // The platform.
        'Company',
        'Grower',
        'Farm',
        'Field',
        'VBoundary',
        'StoredEquipment',
        'Operator',
        'PathPlanListItem',
        'PathPlanGroup',
        'Share',
        'JobAccepted',
        'JobStatus',
        'PathPlanExportRequest',
        // Error bodies.
        'ErrorResponse',
        'ValidationErrorResponse',
        'InsufficientCreditsResponse',
        'RateLimitResponse',
      ]),
    );
    for (const n of names) expect(n, 'a readable name').toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);

    const ok = answers().filter(([, status, type]) => /^2/.test(status) && type === 'application/json');
    const named = ok.filter(([, , , s]) => refersToNamed(s));
    const direct = ok.filter(([, , , s]) => typeof s.$ref === 'string');
    expect(direct.length / ok.length, 'JSON success answers that are a named schema').toBeGreaterThanOrEqual(
      0.8,
    );
    expect(ok.length).toBeGreaterThan(100);
    expect(
      named.length / ok.length,
      'JSON success answers that refer to a named schema',
    ).toBeGreaterThanOrEqual(0.8);
    // Every JSON error body is one of the named error bodies.
    const errors = answers().filter(
      ([, status, type]) => /^[45]/.test(status) && type === 'application/json',
    );
    expect(errors.length).toBeGreaterThan(500);
    expect(errors.filter(([, , , s]) => !refersToNamed(s)).map(([op, status]) => `${op} ${status}`)).toEqual(
      [],
    );
    // The direct interface answers the plan model by name.
    const plan = (
      doc.paths['/api/path-plans/direct'].post.responses['200'].content['application/json'] as Json
    ).schema as Json;
    expect(plan.$ref).toBe('#/components/schemas/PathPlanNormalizedModel');
  });

  it('resolves every reference, and headers told the same everywhere are shared', () => {
    const refs = new Set<string>();
    (function walk(v: unknown) {
      if (Array.isArray(v)) v.forEach(walk);
      else if (isObject(v)) {
        if (typeof v.$ref === 'string') refs.add(v.$ref);
        Object.values(v).forEach(walk);
      }
    })(doc);
    expect(refs.size).toBeGreaterThan(30);
    for (const ref of refs) {
      expect(ref, 'a local reference').toMatch(/^#\/components\/(schemas|headers)\//);
      const [, , kind, name] = ref.split('/');
      expect(doc.components[kind!]?.[name!], ref).toBeDefined();
    }
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining([
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-Correlation-Id',
      ]),
    );
  });

  it('passes redocly lint without errors', async () => {
    const file = writeOpenApiDocument(doc, join(dir, 'openapi.json'));
    const started = Date.now();
    const { stdout } = await run(
      join(process.cwd(), 'node_modules/.bin/redocly'),
      ['lint', file, '--format=json'],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; severity: string; message: string }[];
    };
    const errors = report.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('a named schema used several times in one route', () => {
  const Point = Type.Object(
    { lon: Type.Number({ minimum: -180, maximum: 180 }), lat: Type.Number({ minimum: -90, maximum: 90 }) },
    { $id: 'TestPoint', additionalProperties: false },
  );
  const Segment = Type.Object(
    { from: Point, to: Point },
    { $id: 'TestSegment', additionalProperties: false },
  );

  async function app(routes: (a: ReturnType<typeof Fastify>) => void) {
    const a = Fastify({ ajv: { customOptions: { allErrors: true, coerceTypes: false } } });
    await a.register(swagger, {
      refResolver: openApiRefResolver,
      openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } },
    });
    shareNamedSchemas(a);
    routes(a);
    await a.ready();
    return a;
  }

  it('validates and serialises as written, and the document refers to it by name', async () => {
    const a = await app((x) =>
      x.post(
        '/segment',
        {
          schema: {
            body: Segment,
            response: { 200: { content: { 'application/json': { schema: Segment } } } },
          },
        },
        async (req: { body: unknown }) => ({ ...(req.body as object), extra: 1 }),
      ),
    );
    const good = { from: { lon: 10, lat: 55 }, to: { lon: 11, lat: 56 } };
    const ok = await a.inject({ method: 'POST', url: '/segment', payload: good });
    expect(ok.statusCode).toBe(200);
    // Serialised by the schema: members it does not list are left out.
    expect(ok.json()).toEqual(good);
    const bad = await a.inject({
      method: 'POST',
      url: '/segment',
      payload: { from: good.from, to: { lon: 200, lat: 1 } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('body/to/lon must be <= 180');

    const d = a.swagger() as OpenApiDocument;
    expect(Object.keys(d.components.schemas).sort()).toEqual(['TestPoint', 'TestSegment']);
    expect(d.components.schemas.TestSegment.properties.from).toEqual({
      $ref: '#/components/schemas/TestPoint',
    });
    expect(d.paths['/segment'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/TestSegment',
    });
    await a.close();
  });

  it('refuses two different schemas under one name', async () => {
    const Other = Type.Object({ lon: Type.String() }, { $id: 'TestPoint' });
    await expect(
      app((x) => {
        x.post('/a', { schema: { body: Point } }, async () => null);
        x.post('/b', { schema: { body: Type.Object({ p: Other }) } }, async () => null);
      }),
    ).rejects.toThrow(/Two different schemas are named TestPoint/);
  });
});
