// openapi-typescript, resolved with this package's TypeScript 5.
export { astToString, default as openapiTS } from 'openapi-typescript';
