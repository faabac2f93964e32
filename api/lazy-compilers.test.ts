/**
 * Route schemas compiled on first use: nothing is compiled while the server
 * gets ready, a route's validator is compiled once, on its first request,
 * and answers as Ajv does (the errors of the failing request, not an earlier
 * one's); and every route of the service compiles, which start-up no longer
 * shows.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazyCompilersFactory } from './lazy-compilers.ts';
import { startTestServer } from './testing.ts';

describe('lazy compilers', () => {
  it('compiles a route schema on its first request only, and reports the failing request', async () => {
    const factory = lazyCompilersFactory();
    let made = 0;
    const counted: typeof factory.buildValidator = (ext, opts) => {
      const compile = factory.buildValidator(ext, opts);
      return (route) => {
        const validate = compile(route);
        const counting = ((data: unknown, context?: unknown) => {
          const ok = validate(data, context);
          counting.errors = validate.errors;
          return ok;
        }) as typeof validate;
        made++;
        return counting;
      };
    };
    const app = Fastify({
      ajv: { customOptions: { removeAdditional: false, allErrors: true } },
      schemaController: { compilersFactory: { ...factory, buildValidator: counted } as never },
    });
    app.post(
      '/things',
      {
        schema: {
          body: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', minLength: 2 } },
            additionalProperties: false,
          },
          response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
        },
      },
      async (req) => ({ name: (req.body as { name: string }).name, secret: 'not serialized' }),
    );
    await app.ready();
    expect(made).toBe(1);
    const ok = await app.inject({ method: 'POST', url: '/things', payload: { name: 'ab' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ name: 'ab' });
    const short = await app.inject({ method: 'POST', url: '/things', payload: { name: 'a' } });
    expect(short.statusCode).toBe(400);
    expect(short.json().message).toMatch(/name.*2 characters/);
    const extra = await app.inject({ method: 'POST', url: '/things', payload: { name: 'abc', x: 1 } });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().message).toMatch(/additional properties/);
    expect(made).toBe(1);
    await app.close();
  });
});

describe('every route of the service', () => {
  it('has request and response schemas that compile (compiled at start-up, as Fastify does without them)', async () => {
    const srv = await startTestServer({ eagerSchemas: true });
    try {
      const health = await fetch(`${srv.url}/api/healthz`);
      expect(health.status).toBe(200);
    } finally {
      await srv.close();
    }
  });
});
