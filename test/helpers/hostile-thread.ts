// A thread module for the isolation pool's tests: answers `echo`, hangs on
// `spin`, allocates until its heap gives out on `hog`, throws on `throw`, and
// calls its parent on `ask`.
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
  return { value };
});
