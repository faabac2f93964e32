/**
 * Route schemas compiled when a route is first used, not when the server
 * starts. Fastify compiles every route's request validator (Ajv) and response
 * serializer (fast-json-stringify) while it gets ready; with a few hundred
 * routes and the plan model's large schemas that is seconds of start-up spent
 * on routes a process may never answer. These factories wrap Fastify's own
 * compilers (the same Ajv options, plugins and shared schemas) and compile
 * each schema on its route's first request, once.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type RouteSchema = { schema: unknown; method?: string; url?: string; httpPart?: string; httpStatus?: string };
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;
type Factory<F> = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => F;

/** A validator that compiles on its first call and then answers as Ajv's own (`errors` copied after each call). */
function lazyValidator(compile: () => Validate): Validate {
  let compiled: Validate | undefined;
  const validate: Validate = (data, context) => {
    compiled ??= compile();
    const ok = compiled(data, context);
    validate.errors = compiled.errors;
    return ok;
  };
  return validate;
}

function lazySerializer(compile: () => Serialize): Serialize {
  let compiled: Serialize | undefined;
  return (data) => {
    compiled ??= compile();
    return compiled(data);
  };
}

/**
 * A compiler factory whose compiler is made (Ajv instance, shared schemas)
 * and run only when a route first needs what it compiles; `wrap` defers the
 * call until then.
 */
function deferred<F>(factory: Factory<F>, wrap: (compile: () => F) => F): Factory<F> {
  return (externalSchemas, options) => {
    let compiler: ((route: RouteSchema) => F) | undefined;
    return (route) =>
      wrap(() => {
        compiler ??= factory(externalSchemas, options);
        return compiler(route);
      });
  };
}

/** Fastify's `schemaController.compilersFactory`, compiling each route's schemas on first use. */
export function lazyCompilersFactory(): {
  buildValidator: Factory<Validate>;
  buildSerializer: Factory<Serialize>;
} {
  return {
    buildValidator: deferred(AjvCompiler() as unknown as Factory<Validate>, lazyValidator),
    buildSerializer: deferred(SerializerSelector() as unknown as Factory<Serialize>, lazySerializer),
  };
}
