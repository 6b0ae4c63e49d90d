// The run watch (server/ai/runs/watch.ts) against a real LISTEN: a cancel
// heard for a run this process does not carry yet is kept (a worker watches
// a run it claimed a few round trips after the claim) and applied once when
// it does; at most 1,000 such cancels are kept, the oldest forgotten first;
// a run's own step statement finding it cancelled aborts it as a notice would.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { aiCalls } from '../../server/ai/calls.ts';
import { runWatch, type RunWatch } from '../../server/ai/runs/watch.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

describe('run watch', () => {
  let p: TestPlatform;
  let watch: RunWatch;
  // Notices from one session arrive in the order sent: a sentinel's event after the cancels says they were all heard.
  const notify = async (payloads: string[]) => {
    const sentinel = randomUUID();
    const heard = new Promise<void>((resolve) => {
      const stop = watch.follow(sentinel, () => {
        stop();
        resolve();
      });
    });
    await p.adminPool.query(`select pg_notify('ai_runs', x) from unnest($1::text[]) with ordinality as t(x, n) order by n`, [[...payloads, `event:${sentinel}`]]);
    await heard;
  };

  before(async () => {
    p = await startTestPlatform();
    watch = runWatch({ calls: aiCalls(p.requestPool), adminUrl: p.adminUrl, log: p.log });
    await watch.ready;
  });
  after(async () => {
    await watch.stop();
    await stopTestPlatform(p);
  });

  it('aborts a run it carries when its cancel is heard', async () => {
    const run = randomUUID();
    const held = watch.cancellable(run);
    assert.equal(held.signal.aborted, false);
    await notify([`cancel:${run}`]);
    assert.equal(held.signal.aborted, true);
    held.release();
  });

  it('keeps a cancel heard before the run is carried here, and applies it once when it is', async () => {
    const run = randomUUID();
    const other = randomUUID();
    await notify([`cancel:${run}`]);
    const claimed = watch.cancellable(run);
    assert.equal(claimed.signal.aborted, true, 'the run claimed after its cancel starts cancelled');
    claimed.release();
    const again = watch.cancellable(run);
    assert.equal(again.signal.aborted, false, 'the kept cancel is used once');
    again.release();
    const untouched = watch.cancellable(other);
    assert.equal(untouched.signal.aborted, false, 'a run nobody cancelled is not');
    untouched.release();
  });

  it('keeps at most 1,000 cancels of runs not carried here, forgetting the oldest first', async () => {
    const runs = Array.from({ length: 1001 }, () => randomUUID());
    await notify(runs.map((r) => `cancel:${r}`));
    const oldest = watch.cancellable(runs[0]!);
    assert.equal(oldest.signal.aborted, false, 'the oldest is forgotten');
    oldest.release();
    const newest = watch.cancellable(runs[1000]!);
    assert.equal(newest.signal.aborted, true, 'the newest is kept');
    newest.release();
  });

  it('aborts a run whose own step found it cancelled (its notice lost), as the notice would', () => {
    const held = watch.cancellable(randomUUID());
    held.found();
    assert.equal(held.signal.aborted, true);
    assert.equal((held.signal.reason as Error).message, 'The run was cancelled');
    held.release();
  });
});
