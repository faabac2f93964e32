/**
 * Named schemas of the OpenAPI document. A TypeBox schema given an `$id`
 * where it is defined (`Type.Object({...}, { $id: 'Grower', ... })`) is
 * published once, as `#/components/schemas/Grower`, and every operation
 * refers to it there.
 *
 * The route schemas stay written as they are; when a route is added, each
 * named schema in it becomes a shared schema of the route's context
 * (`addSchema`, itself with its named parts as references) and the route
 * refers to it with `{ $ref: '<$id>' }`. Validation and serialisation
 * resolve the reference to the very same schema, so they work as before;
 * a JSON Schema may not hold one `$id` twice, which a schema used at
 * several places of a route would otherwise do.
 */
import type { FastifyInstance } from 'fastify';

type Json = Record<string, unknown>;

/** @fastify/swagger's ref resolver options: a shared schema is named by its `$id`. */
export const openApiRefResolver = {
  buildLocalReference(json: Json, _baseUri: unknown, _fragment: string, i: number): string {
    return typeof json.$id === 'string' && NAME.test(json.$id) ? json.$id : `def-${i}`;
  },
};

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Members that only annotate a schema: a use of a named schema may tell its own. */
const ANNOTATIONS = ['description', 'title', 'default', 'examples', '$comment'] as const;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of `schema` in which every named part is a reference, registering the named parts. */
function referencing(schema: unknown, share: (named: Json) => void, root: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => referencing(s, share, false));
  if (!isObject(schema)) return schema;
  if (!root && typeof schema.$id === 'string') {
    share(schema);
    const ref: Json = { $ref: schema.$id };
    // A use that tells its own description keeps it beside the reference (OpenAPI 3.1 allows it).
    if (typeof schema.description === 'string') ref.description = schema.description;
    return ref;
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) out[k] = referencing(v, share, false);
  return out;
}

/** The schema without the annotations of its root, to tell two uses of one name apart. */
function essence(schema: Json): string {
  const s = { ...schema };
  for (const k of ANNOTATIONS) delete s[k];
  return JSON.stringify(s);
}

/**
 * Makes the named schemas of every route added from now on (to `app` and
 * its child contexts) shared schemas, referred to by `$id`. Two different
 * schemas under one name are refused when the route is added.
 */
export function shareNamedSchemas(app: FastifyInstance): void {
  const known = new Map<string, { essence: string; schema: Json; parts: string[] }>();

  app.addHook('onRoute', function (route) {
    const ctx = this as FastifyInstance;
    // Shares a named schema (and the named schemas it refers to) in the route's context.
    const provide = (id: string): void => {
      if (ctx.getSchema(id)) return;
      const { schema, parts } = known.get(id)!;
      for (const p of parts) provide(p);
      ctx.addSchema(schema);
    };
    const share = (named: Json): void => {
      const id = named.$id as string;
      if (!NAME.test(id)) throw new Error(`Schema name ${JSON.stringify(id)} is not a plain identifier.`);
      const seen = known.get(id);
      const e = essence(named);
      if (seen === undefined) {
        // The first use defines it (its own description included).
        const parts: string[] = [];
        const schema = referencing(named, (part) => parts.push(part.$id as string), true) as Json;
        known.set(id, { essence: e, schema, parts });
        // Its named parts are shared as well (checked against their other uses).
        referencing(named, share, true);
      } else if (seen.essence !== e) {
        throw new Error(
          `Two different schemas are named ${id} (route ${route.method} ${route.url}); give one another $id.`,
        );
      }
      provide(id);
    };
    const schema = route.schema as Json | undefined;
    if (!schema) return;
    const out: Json = { ...schema };
    // Parameters stay inline: OpenAPI lists them one by one.
    for (const k of ['body', 'response'] as const) {
      if (schema[k] !== undefined) out[k] = referencing(schema[k], share, false);
    }
    route.schema = out as typeof route.schema;
  });
}

/**
 * @fastify/swagger's `transformObject`: a response header told the same way
 * everywhere (the rate limit headers, X-Correlation-Id, ETag, ...) is
 * published once under `components.headers` and referred to from each
 * response, which makes the document some 60 % smaller.
 */
export function shareResponseHeaders(document: { openapiObject: object } | { swaggerObject: object }): never {
  if (!('openapiObject' in document)) return document.swaggerObject as never;
  const openapiObject = document.openapiObject as Json;
  const headersOf = (): Json[] => {
    const out: Json[] = [];
    for (const item of Object.values((openapiObject.paths ?? {}) as Record<string, Json>)) {
      for (const op of Object.values(item)) {
        if (!isObject(op) || !isObject(op.responses)) continue;
        for (const r of Object.values(op.responses))
          if (isObject(r) && isObject(r.headers)) out.push(r.headers);
      }
    }
    return out;
  };
  const variants = new Map<string, Set<string>>();
  const uses = new Map<string, number>();
  for (const headers of headersOf()) {
    for (const [name, h] of Object.entries(headers)) {
      if (!variants.has(name)) variants.set(name, new Set());
      variants.get(name)!.add(JSON.stringify(h));
      uses.set(name, (uses.get(name) ?? 0) + 1);
    }
  }
  const shared: Json = { ...((openapiObject.components as Json | undefined)?.headers as Json | undefined) };
  for (const [name, v] of variants) {
    if (v.size === 1 && (uses.get(name) ?? 0) > 1 && NAME_OF_HEADER.test(name) && !(name in shared)) {
      shared[name] = JSON.parse([...v][0]!);
    }
  }
  for (const headers of headersOf()) {
    for (const name of Object.keys(headers)) {
      if (isObject(shared[name]) && JSON.stringify(headers[name]) === JSON.stringify(shared[name])) {
        headers[name] = { $ref: `#/components/headers/${name}` };
      }
    }
  }
  openapiObject.components = { ...(openapiObject.components as Json), headers: shared };
  return openapiObject as never;
}

const NAME_OF_HEADER = /^[A-Za-z0-9._-]+$/;

/** Names a schema written in place (a route's answer): `named('DeletedCount', Type.Object({ ... }))`. */
export function named<T extends object>(name: string, schema: T): T {
  return { ...schema, $id: name, title: name };
}
