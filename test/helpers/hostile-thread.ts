// A thread module for the isolation pool's tests: answers `echo`, hangs on
// `spin`, allocates until its heap gives out on `hog`, throws on `throw`,
// calls its parent on `ask`, and on `pages` works `pageMs` per page for
// `pages` pages, reporting progress after each (as a hostile file whose
// every page stays under the page limit).
import { serveIsolated } from '../../server/ai/runtime/extraction/serve.ts';

serveIsolated(async (input, call) => {
  const { kind, value } = input as { kind: string; value?: unknown };
  if (kind === 'spin') for (;;);
  if (kind === 'hog') {
    const kept: string[][] = [];
    for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => `item ${i} ${kept.length}`));
  }
  if (kind === 'throw') throw Object.assign(new Error('no such thing'), { name: 'Failure' });
  if (kind === 'ask') return { value: await call('double', value) };
  if (kind === 'pages') {
    const { pages, pageMs } = value as { pages: number; pageMs: number };
    for (let n = 1; n <= pages; n++) {
      const until = Date.now() + pageMs;
      while (Date.now() < until);
      await call('progress', n);
    }
    return { value: pages };
  }
  return { value };
});
