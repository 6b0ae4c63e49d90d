// The isolation untrusted parsers run in (server/ai/runtime/extraction/pool.ts):
// a thread that spins past the quiet limit or the run's limit, or runs out of
// heap, is ended and replaced, its run failing with the limit named; a Failure
// thrown in the thread comes back as a Failure; the parent answers the thread's
// calls; the event loop of this process stays free throughout.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Failure, Stopped } from '../../server/ai/failures.ts';
import { isolatedPool } from '../../server/ai/runtime/extraction/pool.ts';

const THREAD = new URL('../helpers/hostile-thread.ts', import.meta.url);

describe('parser isolation', () => {
  const pool = isolatedPool(THREAD, { heapMb: 64, runMs: 4000, quietMs: 700, threads: 1, idleMs: 1000 });
  after(() => pool.close());

  /** How late a 50 ms timer fires while `work` runs: the event loop's freedom. */
  const lagDuring = async (work: Promise<unknown>) => {
    let worst = 0;
    let running = true;
    const probe = (async () => {
      while (running) {
        const t = performance.now();
        await new Promise((r) => setTimeout(r, 50));
        worst = Math.max(worst, performance.now() - t - 50);
      }
    })();
    await work.catch(() => undefined);
    running = false;
    await probe;
    return worst;
  };

  it('answers, and answers the thread\'s calls', async () => {
    assert.deepEqual(await pool.run({ kind: 'echo', value: { a: 1 } }, {}), { a: 1 });
    assert.equal(await pool.run({ kind: 'ask', value: 21 }, { double: async (n: number) => n * 2 }), 42);
  });

  it('ends a thread that stops answering, naming the page limit, and the next run gets a fresh one', async () => {
    const spin = pool.run({ kind: 'spin' }, {});
    await assert.rejects(spin, (err: Error) => err instanceof Failure && err.detail.limit === 'quiet' && /One page took longer than 1 s to read \(EXTRACTION_PAGE_TIMEOUT_MS\)/.test(err.message));
    assert.ok(await lagDuring(pool.run({ kind: 'spin' }, {})) < 500, 'the event loop stayed free');
    assert.equal(await pool.run({ kind: 'echo', value: 'again' }, {}), 'again');
  });

  it('ends a run past the whole limit, whatever the page limit', async () => {
    const chatty = isolatedPool(THREAD, { heapMb: 64, runMs: 900, quietMs: 60_000, threads: 1, idleMs: 1000 });
    try {
      await assert.rejects(chatty.run({ kind: 'spin' }, {}), (err: Error) => err instanceof Failure && err.detail.limit === 'time' && /EXTRACTION_TIMEOUT_MS/.test(err.message));
    } finally {
      await chatty.close();
    }
  });

  it('ends a thread that runs out of heap, naming the memory limit', async () => {
    // Its own pool with a generous page limit: filling 64 MB can take a loaded machine longer than a second.
    const roomy = isolatedPool(THREAD, { heapMb: 64, runMs: 60_000, quietMs: 60_000, threads: 1, idleMs: 1000 });
    try {
      await assert.rejects(roomy.run({ kind: 'hog' }, {}), (err: Error) => err instanceof Failure && err.detail.limit === 'memory' && /more than 64 MB of memory \(EXTRACTION_MAX_HEAP_MB\)/.test(err.message));
      assert.equal(await roomy.run({ kind: 'echo', value: 'alive' }, {}), 'alive');
    } finally {
      await roomy.close();
    }
  });

  it('ends a file whose pages each stay under the page limit once its busy budget is spent', async () => {
    const paced = isolatedPool(THREAD, { heapMb: 64, runMs: 60_000, quietMs: 700, threads: 1, idleMs: 1000 });
    try {
      const started = Date.now();
      const progress = async () => undefined;
      await assert.rejects(paced.run({ kind: 'pages', value: { pages: 40, pageMs: 300 } }, { progress }, [], { busyMs: 1500 }),
        (err: Error) => err instanceof Failure && err.detail.limit === 'busy' && /more than 2 s of the parser's time/.test(err.message));
      assert.ok(Date.now() - started < 4000, `ended at its budget, not after 40 pages (${Date.now() - started} ms)`);
      // Time spent waiting for the parent is not the parser's.
      const slowParent = async () => new Promise((r) => setTimeout(r, 400));
      assert.equal(await paced.run({ kind: 'pages', value: { pages: 6, pageMs: 10 } }, { progress: slowParent }, [], { busyMs: 1000 }), 6);
    } finally {
      await paced.close();
    }
  });

  it('stops a run at once when its signal aborts: a thread that does not yield is replaced', async () => {
    const stop = new AbortController();
    const spin = pool.run({ kind: 'spin' }, {}, [], { signal: stop.signal });
    await new Promise((r) => setTimeout(r, 100));
    const asked = Date.now();
    stop.abort();
    await assert.rejects(spin, (err: Error) => err instanceof Stopped);
    assert.ok(Date.now() - asked < 1000, `stopped within a second (${Date.now() - asked} ms)`);
    assert.equal(await pool.run({ kind: 'echo', value: 'next' }, {}), 'next', 'the next run gets a working thread');
    // A run that yields (it calls its parent between pages) stops at its next call, without waiting for the grace.
    const yielding = new AbortController();
    const paged = pool.run({ kind: 'pages', value: { pages: 1000, pageMs: 20 } }, { progress: async () => undefined }, [], { signal: yielding.signal });
    await new Promise((r) => setTimeout(r, 100));
    const at = Date.now();
    yielding.abort();
    await assert.rejects(paged, (err: Error) => err instanceof Stopped);
    assert.ok(Date.now() - at < 200, `yielded at its next page (${Date.now() - at} ms)`);
    await assert.rejects(pool.run({ kind: 'echo' }, {}, [], { signal: yielding.signal }), (err: Error) => err instanceof Stopped, 'an aborted signal starts nothing');
  });

  it('brings a thrown error back by name', async () => {
    await assert.rejects(pool.run({ kind: 'throw' }, {}), (err: Error) => err instanceof Failure && err.message === 'no such thing');
  });
});
