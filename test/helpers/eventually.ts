// Waiting for work that happens after the answer (a job, a stream's end):
// read until `done` says so, every 50 ms, failing with what was last read.
import assert from 'node:assert/strict';

export async function eventually<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, opts: { tries?: number; everyMs?: number; explain?: () => Promise<string> } = {}): Promise<T> {
  let v: T | undefined;
  for (let i = 0; i < (opts.tries ?? 200); i++) {
    v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 50));
  }
  return assert.fail(`${what} did not happen: ${JSON.stringify(v)}${opts.explain ? `; ${await opts.explain()}` : ''}`);
}
