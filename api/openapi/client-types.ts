/**
 * TypeScript types of the OpenAPI document (openapi-typescript), the types
 * a client made with openapi-fetch is checked against: `paths` by URL and
 * method, `components['schemas']` by name. `api/client/` holds such a
 * client; its `schema.ts` is generated (`npm run openapi`), not kept in git.
 */
import { astToString, openapiTS } from 'tramline-openapi-typegen';
import type { OpenApiDocument } from './document.ts';

export const CLIENT_TYPES_HEADER =
  '// Generated from the OpenAPI document by openapi-typescript (npm run openapi). Do not edit.\n\n';

export async function clientTypes(doc: OpenApiDocument): Promise<string> {
  // Members with a default stay optional in requests (the server fills them in).
  const ast = await openapiTS(structuredClone(doc) as never, { defaultNonNullable: false });
  return CLIENT_TYPES_HEADER + astToString(ast);
}
