// `npm run openapi`: writes the OpenAPI documents the servers answer, built
// from the routes' zod schemas (tests keep each file equal to what its
// server answers):
//   docs/openapi.json            /api (GET /api/openapi.json)
//   docs/platform-openapi.json   the control plane (GET /api/platform/openapi.json)
//   studio/src/api/platform/     the Studio's client types, one file per area, generated from the
//                                latter by openapi-typescript (studio-types.ts)
//   studio/src/api/ai/           the same for the AI paths of the former, cut by concept (ai-types.ts)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../openapi/document.ts';
import { platformOpenApiDocument } from '../studio/openapi.ts';
import { runCli } from './run.ts';
import { aiTypeFiles } from './ai-types.ts';
import { aiPathsOf, aiTypesDir, studioTypeFiles, studioTypesDir } from './studio-types.ts';

export const openApiFile = new URL('../../docs/openapi.json', import.meta.url);
export const openApiText = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`;
export const platformOpenApiFile = new URL('../../docs/platform-openapi.json', import.meta.url);
export const platformOpenApiText = () => `${JSON.stringify(platformOpenApiDocument(), null, 2)}\n`;
if (import.meta.main) {
  await runCli(async () => {
    writeFileSync(openApiFile, openApiText());
    writeFileSync(platformOpenApiFile, platformOpenApiText());
    const typed: Array<[URL, Map<string, string>]> = [
      [studioTypesDir, await studioTypeFiles(platformOpenApiDocument())],
      [aiTypesDir, await aiTypeFiles(aiPathsOf(openApiDocument()))],
    ];
    for (const [dir, files] of typed) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of files) writeFileSync(new URL(name, dir), text);
    }
    process.stdout.write('docs/openapi.json, docs/platform-openapi.json, studio/src/api/platform/ and studio/src/api/ai/ written\n');
  });
}
