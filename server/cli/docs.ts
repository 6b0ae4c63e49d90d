// `npm run docs`: writes the documentation pages made from code, so they
// cannot drift from it: docs/ai/errors.md from the AI error catalogue.
// (The settings table in docs/ai/settings.md is checked against the SQL
// registry by test/ai/settings.test.ts.)
import { writeFileSync } from 'node:fs';
import { errorCatalogueMarkdown } from '../ai/errors.ts';
import { runCli } from './run.ts';

await runCli(async () => {
  writeFileSync(new URL('../../docs/ai/errors.md', import.meta.url), errorCatalogueMarkdown());
  process.stdout.write('docs/ai/errors.md written\n');
});
