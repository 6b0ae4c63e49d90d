// A workflow run survives the death of the process running it (issue 29):
// a platform process runs a streamed workflow whose second general_api block
// is slow; while that block's call is at its receiver the process is killed
// (SIGKILL). Another server on the same database resumes the run from the
// blocks it had settled: the first block is not called again, the slow one
// is called again with the same Idempotency-Key, its branch is restored, and
// the events read back from the first equal an uninterrupted run's.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp } from '../helpers/ai-api.ts';
import { resumeDiagnostics, startPlatformProcess, type PlatformProcess } from '../helpers/platform-process.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { numberedEvents, sseStream, untilEvent } from '../helpers/sse.ts';

const FAST = { REALTIME_NODE_HEARTBEAT_MS: '300', REALTIME_NODE_REAP_MS: '1500', AI_RUN_SWEEP_INTERVAL_MS: '500', LOG_LEVEL: 'warn', HTTP_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };
type Event = { type: string; [key: string]: any };
/** What a run's events say, without what differs between two runs. */
const gist = (events: Event[]) => events.filter((e) => e.type !== 'resumed' && e.type !== 'run_started')
  .map(({ execution_id: _e, duration_ms: _d, ...e }) => (e.output?.headers ? { ...e, output: { ...e.output, headers: undefined } } : e));

describe('a workflow run whose process is killed', () => {
  let api: TestPlatform;
  let dying: PlatformProcess | undefined;
  let ann: string;
  let receiver: http.Server;
  const calls: Array<{ path: string; key: string }> = [];
  let hang = false;
  let arrived: () => void = () => undefined;
  /** The slow call's answer, held while it hangs. */
  let held: http.ServerResponse | undefined;
  const { json, post, put, api: call, headers } = aiApi(() => api);

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url!.split('?')[0]!;
        calls.push({ path, key: req.headers['idempotency-key'] as string });
        if (path === '/slow' && hang) {
          hang = false;
          held = res;
          arrived();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ from: path, ok: true }));
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    api = await startTestPlatform(FAST);
    ann = (await signUp(api, 'ann-wf-resume@example.com')).access_token;
  });
  after(async () => {
    await dying?.kill();
    await stopTestPlatform(api);
    receiver.closeAllConnections();
    receiver.close();
  });

  /** Waits (up to a minute) for a resumed run to end, saying what it waits on if it does not. */
  const ended = (executionId: string) => eventually('the execution to end', async () =>
    (await api.adminPool.query<{ status: string }>('select status from ai.workflow_executions where id = $1', [executionId])).rows[0]!.status,
  (s) => s !== 'running', { tries: 1200, explain: () => resumeDiagnostics(api, { table: 'workflow_executions', id: executionId }) });

  /** Streams the workflow on a platform process of its own until its slow block's call is at the receiver. */
  const runUntilSlow = async (workflowId: string) => {
    dying = await startPlatformProcess(api, FAST);
    hang = true;
    const atSlow = new Promise<void>((r) => (arrived = r));
    const stream = sseStream<Event>(await fetch(`${dying.url}/api/workflows/${workflowId}/execute/stream`, { method: 'POST', headers: headers(ann), body: JSON.stringify({ variables: {} }) }));
    const started = await untilEvent(stream, 'run_started');
    await atSlow;
    return { stream, started };
  };

  /** start -> fast -> check -> slow (taken) | never (skipped) -> answer. */
  const slowChain = async (name: string) => {
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const w = await json<{ id: string }>(await post(ann, '/workflows', { name }), 201);
    await json(await put(ann, `/workflows/${w.id}/graph`, {
      blocks: [
        { id: 'start', type: 'starter' },
        { id: 'fast', type: 'general_api', config: { url: `${base}/fast` } },
        { id: 'check', type: 'condition', config: { conditions: [{ expression: 'outputs.fast.body.ok === true', target: 'slow' }], else: 'never' } },
        { id: 'slow', type: 'general_api', config: { url: `${base}/slow` } },
        { id: 'never', type: 'general_api', config: { url: `${base}/never` } },
        { id: 'answer', type: 'response', config: { output: { fast: '<fast.body.from>', slow: '<slow.body.from>' } } },
      ],
      edges: [
        { source: 'start', target: 'fast' }, { source: 'fast', target: 'check' },
        { source: 'check', target: 'slow' }, { source: 'check', target: 'never' },
        { source: 'slow', target: 'answer' },
      ],
    }), 200);
    return w;
  };

  it('resumes on another server from the blocks it had settled: only the block in flight runs again, with its key', async () => {
    const w = await slowChain('slow chain');
    const whole = numberedEvents<Event>(await (await post(ann, `/workflows/${w.id}/execute/stream`, { variables: {} })).text()).map((e) => e.event);
    assert.equal(whole.at(-1)!.type, 'run_completed', JSON.stringify(whole.at(-1)));
    calls.length = 0;

    const { stream, started } = await runUntilSlow(w.id);
    await dying!.kill();
    await stream.return(undefined).catch(() => undefined);
    const executionId = started.execution_id as string;
    await ended(executionId);

    const replay = numberedEvents<Event>(await (await call(ann, `/workflows/${w.id}/executions/${executionId}/events`)).text());
    const events = replay.map((e) => e.event);
    assert.equal(events.at(-1)!.type, 'run_completed', `${JSON.stringify(events.at(-1))}\n${dying!.output().slice(-2000)}`);
    assert.deepEqual(replay.map((e) => e.id), replay.map((_, i) => i + 1), 'numbered on without a gap');
    assert.deepEqual(events.find((e) => e.type === 'resumed'), { type: 'resumed', execution_id: executionId, settled_blocks: 4, resumes: 1 }, 'start, fast, check, never (skipped) had settled');
    assert.deepEqual(gist(events), gist(whole), 'the replay equals an uninterrupted run');
    assert.deepEqual(events.at(-1)!.output, { fast: '/fast', slow: '/slow' });

    assert.deepEqual(calls.map((c) => c.path), ['/fast', '/slow', '/slow'], 'the settled block is not called again; the one in flight is');
    assert.equal(calls[1]!.key, calls[2]!.key, 'with the same idempotency key');
    const logs = (await api.adminPool.query<{ block_id: string; status: string }>('select block_id, status from ai.workflow_block_logs where execution_id = $1 order by id', [executionId])).rows;
    assert.deepEqual(logs.map((l) => `${l.block_id}:${l.status}`), ['start:succeeded', 'fast:succeeded', 'check:succeeded', 'never:skipped', 'slow:succeeded', 'answer:succeeded']);
    const execution = await json<{ status: string }>(await call(ann, `/workflows/${w.id}/executions/${executionId}`), 200);
    assert.equal(execution.status, 'succeeded');
  });

  it('tells nothing more once another process has taken its run (it was taken for dead): a block that settles late is neither logged nor told', async () => {
    const w = await slowChain('taken chain');
    hang = true;
    const atSlow = new Promise<void>((r) => (arrived = r));
    const answer = post(ann, `/workflows/${w.id}/execute/stream`, { variables: {} });
    await atSlow;
    const { rows: [execution] } = await api.adminPool.query<{ id: string }>(`select id from ai.workflow_executions where workflow_id = $1 and status = 'running'`, [w.id]);
    const told = () => api.adminPool.query<{ type: string; block_id: string | null }>(`select event ->> 'type' as type, event ->> 'block_id' as block_id from ai.run_events where execution_id = $1 order by seq`, [execution!.id])
      .then((r) => r.rows.map((e) => `${e.type}${e.block_id ? `:${e.block_id}` : ''}`));
    await eventually('the slow block\'s start to be told', told, (t) => t.includes('block_started:slow'));
    // Another live process has the run now (a node with a fresh heartbeat: the sweep leaves it alone).
    const other = '77777777-7777-4777-8777-7777777777f1';
    await api.adminPool.query('insert into realtime.nodes (id) values ($1) on conflict (id) do update set seen_at = now()', [other]);
    await api.adminPool.query('update ai.workflow_executions set runner = $2 where id = $1', [execution!.id, other]);
    held!.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ from: '/slow', ok: true }));
    const events = numberedEvents<Event>(await (await answer).text()).map((e) => e.event);
    assert.ok(!events.some((e) => e.type === 'run_completed' || e.type === 'error'), `no end told from here: ${JSON.stringify(events.at(-1))}`);
    const logs = (await api.adminPool.query<{ block_id: string }>('select block_id from ai.workflow_block_logs where execution_id = $1 order by id', [execution!.id])).rows.map((l) => l.block_id);
    assert.ok(!logs.includes('slow'), `the late block is not logged: ${logs.join(',')}`);
    const stored = await told();
    assert.equal(stored.at(-1), 'block_started:slow', `nothing told after the takeover: ${stored.join(',')}`);
    await api.adminPool.query(`update ai.workflow_executions set status = 'cancelled' where id = $1`, [execution!.id]);
  });

  it('is handed over when its server stops for a deploy (SIGTERM): the block in flight is not logged as failed, another server finishes the run', async () => {
    const w = await slowChain('deployed chain');
    calls.length = 0;
    const { stream, started } = await runUntilSlow(w.id);
    const stopped = dying!.stop();
    const seen: Event[] = [];
    for (let r = await stream.next(); !r.done; r = await stream.next()) seen.push(r.value);
    await stopped;
    assert.ok(!seen.some((e) => e.type === 'error' || e.type === 'block_failed'), JSON.stringify(seen));
    const executionId = started.execution_id as string;
    await ended(executionId);
    const events = numberedEvents<Event>(await (await call(ann, `/workflows/${w.id}/executions/${executionId}/events`)).text()).map((e) => e.event);
    assert.equal(events.at(-1)!.type, 'run_completed', `${JSON.stringify(events.at(-1))}\n${dying!.output().slice(-2000)}`);
    assert.deepEqual(calls.map((c) => c.path), ['/fast', '/slow', '/slow']);
    const record = (await api.adminPool.query<{ status: string; resumes: number }>('select status, resumes from ai.workflow_executions where id = $1', [executionId])).rows[0]!;
    assert.deepEqual(record, { status: 'succeeded', resumes: 1 });
  });
});
