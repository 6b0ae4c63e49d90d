// The typed client's types, generated from the OpenAPI document by
// openapi-typescript (6.x: it writes TypeScript as text, where 7.x needs
// TypeScript's JavaScript compiler API, which TypeScript 7 no longer ships).
// `npm run openapi` writes them to test/openapi/api.ts; openapi.test.ts
// generates them again from the served document and checks they are equal.
import { writeFileSync } from 'node:fs';
import openapiTS from 'openapi-typescript';

export const typesFile = new URL('./api.ts', import.meta.url);

export async function clientTypes(document: object): Promise<string> {
  return openapiTS(document as Parameters<typeof openapiTS>[0]);
}

if (import.meta.main) {
  const { openApiDocument } = await import('../../server/openapi/document.ts');
  writeFileSync(typesFile, await clientTypes(openApiDocument()));
  process.stdout.write('test/openapi/api.ts written\n');
}
