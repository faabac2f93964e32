/**
 * The OpenAPI document as the server publishes it at /api/openapi.json,
 * built without listening: an app over an in-memory database, no job
 * workers. `npm run openapi [FILE [TYPES]]` writes it (default
 * docs/openapi.json) and the TypeScript types of it (default
 * api/client/schema.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { openTestPgliteStore } from '../../store/testing.ts';
import { buildApp } from '../app.ts';

// biome-ignore lint/suspicious/noExplicitAny: a JSON document read by path
export type OpenApiDocument = Record<string, any>;

export async function openApiDocument(): Promise<OpenApiDocument> {
  const store = await openTestPgliteStore();
  try {
    const app = await buildApp({ store, logger: false, purgeIntervalMs: 0, jobWorkers: false });
    try {
      await app.ready();
      return structuredClone(app.swagger()) as OpenApiDocument;
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
  }
}

export function writeOpenApiDocument(doc: OpenApiDocument, file: string): string {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
  return path;
}

if (import.meta.main) {
  const doc = await openApiDocument();
  process.stdout.write(`${writeOpenApiDocument(doc, process.argv[2] ?? 'docs/openapi.json')}\n`);
  // The types of the client in api/client (generated, not kept in git).
  const { clientTypes } = await import('./client-types.ts');
  const types = resolve(process.argv[3] ?? 'api/client/schema.ts');
  writeFileSync(types, await clientTypes(doc));
  process.stdout.write(`${types}\n`);
}
