// A browser test file's pgbase and Chromium: pgbase started as `npm start`
// starts it and the Studio opened (the first operator made through the
// setup link, unless `setUp: false`) before the tests; a failed test's page
// saved as a screenshot; both stopped after, asserting nothing went wrong in
// the page. `started` hands the two to the file's own variables.
import { after, afterEach, before } from 'node:test';
import { openBrowser, setUpFirstOperator, type StudioPage } from './chromium.ts';
import { startStudioServer, type StudioServer } from './studio-process.ts';

export type StudioRun = { server: StudioServer; s: StudioPage };

/** `env` may be a function, read when the server starts (after the file's own earlier `before` hooks). */
export function studioSuite(opts: { env?: Record<string, string> | (() => Record<string, string>); setUp?: boolean; prepare?: (server: StudioServer) => Promise<void> }, started: (run: StudioRun) => void): void {
  let server: StudioServer | undefined;
  let s: StudioPage | undefined;
  before(async () => {
    server = await startStudioServer(typeof opts.env === 'function' ? opts.env() : opts.env);
    await opts.prepare?.(server);
    s = await openBrowser(server.studioUrl);
    if (opts.setUp !== false) await setUpFirstOperator(s, server.setupUrl!);
    started({ server, s });
  });
  afterEach((t) => s?.afterTest(t));
  after(async () => {
    await s?.close();
    await server?.stop();
  });
}

/** A studioSuite `prepare`: the project's OpenAI key (the scripted vendor's), stored through /api with the service key as any client would. */
export async function storeOpenAiKey(server: StudioServer): Promise<void> {
  const { signApiKey } = await import('../../server/keys.ts');
  const { GOOD_KEY } = await import('./openai-server.ts');
  const key = await signApiKey(server.jwtSecret, 'default', 'service_role');
  const res = await fetch(`${server.apiUrl}/api/ai-provider-keys`, { method: 'POST', headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ provider: 'openai', api_key: GOOD_KEY }) });
  if (res.status !== 201) throw new Error(`storing the OpenAI key: ${res.status} ${await res.text()}`);
}
