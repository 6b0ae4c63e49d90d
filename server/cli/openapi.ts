// `npm run openapi`: writes docs/openapi.json, the document GET
// /api/openapi.json serves (built from the routes' zod schemas; a test keeps
// the file equal to what the server answers).
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../openapi/document.ts';
import { runCli } from './run.ts';

export const openApiFile = new URL('../../docs/openapi.json', import.meta.url);
export const openApiText = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

if (import.meta.main) {
  await runCli(async () => {
    writeFileSync(openApiFile, openApiText());
    process.stdout.write('docs/openapi.json written\n');
  });
}
