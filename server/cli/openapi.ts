// `npm run openapi`: writes the OpenAPI documents the servers answer, built
// from the routes' zod schemas (tests keep each file equal to what its
// server answers):
//   docs/openapi.json            /api (GET /api/openapi.json)
//   docs/platform-openapi.json   the control plane (GET /api/platform/openapi.json)
//   studio/src/api/platform.ts   the Studio's client types, generated from the latter by openapi-typescript
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../openapi/document.ts';
import { platformOpenApiDocument } from '../studio/openapi.ts';
import { runCli } from './run.ts';

export const openApiFile = new URL('../../docs/openapi.json', import.meta.url);
export const openApiText = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`;
export const platformOpenApiFile = new URL('../../docs/platform-openapi.json', import.meta.url);
export const platformOpenApiText = () => `${JSON.stringify(platformOpenApiDocument(), null, 2)}\n`;
export const studioTypesFile = new URL('../../studio/src/api/platform.ts', import.meta.url);

/** The Studio's client types: openapi-typescript 6 (it writes TypeScript as text, with no compiler API). */
export async function studioTypes(document: object): Promise<string> {
  const { default: openapiTS } = await import('openapi-typescript');
  return openapiTS(document as Parameters<typeof openapiTS>[0]);
}

if (import.meta.main) {
  await runCli(async () => {
    writeFileSync(openApiFile, openApiText());
    writeFileSync(platformOpenApiFile, platformOpenApiText());
    writeFileSync(studioTypesFile, await studioTypes(platformOpenApiDocument()));
    process.stdout.write('docs/openapi.json, docs/platform-openapi.json and studio/src/api/platform.ts written\n');
  });
}
