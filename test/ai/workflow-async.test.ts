// Async workflow runs (beyond the spec): {"mode": "async"} answers 202 with an
// execution id at once, the run goes through graphile-worker, GET
// .../executions/{id} polls it, and POST .../executions/{id}/cancel stops it
// (queued or running).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { eventually } from '../helpers/eventually.ts';

type Execution = { id: string; status: string; output: unknown; error: string | null; error_code: string | null };

describe('async workflow runs', () => {
  let p: TestPlatform;
  let hang: http.Server;
  let hangUrl: string;
  let okCalls = 0;
  const headers = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' });
  const api = (path: string, init: RequestInit = {}) => fetch(`${p.url}/api/workflows${path}`, { ...init, headers: headers() });
  const workflow = async (blocks: unknown[], edges: unknown[]) => {
    const w = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'async' }) })).json()) as { id: string };
    assert.equal((await api(`/${w.id}/graph`, { method: 'PUT', body: JSON.stringify({ blocks, edges }) })).status, 200);
    return w.id;
  };
  const poll = (id: string, eid: string, until: (e: Execution) => boolean) =>
    eventually('the run getting there', async () => (await (await api(`/${id}/executions/${eid}`)).json()) as Execution, until);

  before(async () => {
    // Never answers, but on /ok, where it counts the call and answers at once.
    hang = http.createServer((req, res) => {
      if (req.url !== '/ok') return;
      okCalls++;
      res.setHeader('content-type', 'application/json');
      res.end('{"ok": true}');
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
    hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/`;
    p = await startTestPlatform({ HTTP_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  after(async () => {
    await stopTestPlatform(p);
    hang.closeAllConnections();
    await new Promise<void>((r) => hang.close(() => r()));
  });

  it('answers 202 at once and runs the draft as it was asked for, in the worker', async () => {
    const id = await workflow([{ id: 'start', type: 'starter' }, { id: 'out', type: 'code', config: { code: 'return variables.n * 3;' } }], [{ source: 'start', target: 'out' }]);
    const res = await api(`/${id}/execute`, { method: 'POST', body: JSON.stringify({ mode: 'async', variables: { n: 14 } }) });
    assert.equal(res.status, 202);
    const { execution_id: eid, status } = (await res.json()) as { execution_id: string; status: string };
    assert.equal(status, 'queued');
    // The draft changes right away: the queued run keeps the graph it was asked for.
    await api(`/${id}/graph`, { method: 'PUT', body: JSON.stringify({ blocks: [{ id: 'start', type: 'starter' }], edges: [] }) });
    const done = await poll(id, eid, (e) => e.status === 'succeeded' || e.status === 'failed');
    assert.deepEqual([done.status, done.output], ['succeeded', 42]);
    assert.equal((await api(`/${id}/executions/${eid}/cancel`, { method: 'POST' })).status, 200);
    assert.deepEqual(await (await api(`/${id}/executions/${eid}/cancel`, { method: 'POST' })).json(), { cancelled: false, execution_id: eid }, 'an ended run is not cancelled');
  });

  it('stops a running run on cancel', async () => {
    const id = await workflow([{ id: 'start', type: 'starter' }, { id: 'wait', type: 'general_api', config: { url: hangUrl, timeout_ms: 60000 } }], [{ source: 'start', target: 'wait' }]);
    const { execution_id: eid } = (await (await api(`/${id}/execute`, { method: 'POST', body: JSON.stringify({ mode: 'async' }) })).json()) as { execution_id: string };
    await poll(id, eid, (e) => e.status === 'running');
    const t0 = Date.now();
    assert.deepEqual(await (await api(`/${id}/executions/${eid}/cancel`, { method: 'POST' })).json(), { cancelled: true, execution_id: eid });
    const stopped = await poll(id, eid, (e) => e.status !== 'running');
    assert.deepEqual([stopped.status, stopped.error_code], ['cancelled', 'CANCELLED']);
    // The block itself is stopped too: its log says so within a couple of seconds.
    for (let i = 0; i < 60; i++) {
      const { logs } = (await (await api(`/${id}/executions/${eid}/logs`)).json()) as { logs: Array<{ block_id: string; status: string; error: string }> };
      const wait = logs.find((l) => l.block_id === 'wait');
      if (wait) {
        assert.equal(wait.status, 'failed');
        assert.ok(Date.now() - t0 < 5000);
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail('the running block was not stopped');
  });

  it('starts no block after a cancel its process did not hear: the next block log stops the run (sql/0092), which ends cancelled', async () => {
    // The cancel is written without its notice (as if it were lost) as the starter's log is stored: the first API block
    // then runs unaware, and its log is the step that finds the cancel.
    await p.adminPool.query(`create function public.cancel_unheard() returns trigger language plpgsql as $$
      begin
        if new.block_id = 'start' then
          update ai.workflow_executions set status = 'cancelled', error = 'Cancelled', error_code = 'CANCELLED', finished_at = now() where id = new.execution_id;
        end if;
        return new;
      end $$;
      create trigger cancel_unheard after insert on ai.workflow_block_logs for each row execute function public.cancel_unheard();`);
    try {
      const id = await workflow([
        { id: 'start', type: 'starter' },
        { id: 'first_call', type: 'general_api', config: { url: `${hangUrl}ok` } },
        { id: 'second_call', type: 'general_api', config: { url: `${hangUrl}ok` } },
      ], [{ source: 'start', target: 'first_call' }, { source: 'first_call', target: 'second_call' }]);
      okCalls = 0;
      const { execution_id: eid } = (await (await api(`/${id}/execute`, { method: 'POST', body: JSON.stringify({ mode: 'async' }) })).json()) as { execution_id: string };
      const types = await eventually('the run\'s last event', async () =>
        (await p.adminPool.query<{ type: string }>(`select event ->> 'type' as type from ai.run_events where execution_id = $1 order by seq`, [eid])).rows.map((r) => r.type),
      (t) => t.includes('error') || t.includes('run_completed'));
      assert.equal(types.at(-1), 'error', 'its events end with the cancel, not run_completed');
      assert.ok(!types.includes('run_completed'));
      assert.equal(okCalls, 1, 'the second API block was never called');
      const done = (await (await api(`/${id}/executions/${eid}`)).json()) as Execution;
      assert.deepEqual([done.status, done.error_code], ['cancelled', 'CANCELLED']);
      const { logs } = (await (await api(`/${id}/executions/${eid}/logs`)).json()) as { logs: Array<{ block_id: string; status: string }> };
      assert.deepEqual(logs.map((l) => [l.block_id, l.status]), [['start', 'succeeded'], ['first_call', 'succeeded']], 'the block that ran unaware is logged; none starts after it');
    } finally {
      await p.adminPool.query('drop trigger cancel_unheard on ai.workflow_block_logs; drop function public.cancel_unheard()');
    }
  });

  it('answers 404 for a run that is not there, and 400 for a bad mode', async () => {
    const id = await workflow([{ id: 'start', type: 'starter' }], []);
    assert.equal((await api(`/${id}/executions/00000000-0000-4000-8000-000000000000`)).status, 404);
    assert.equal((await api(`/${id}/executions/00000000-0000-4000-8000-000000000000/cancel`, { method: 'POST' })).status, 404);
    assert.equal((await api(`/${id}/execute`, { method: 'POST', body: JSON.stringify({ mode: 'later' }) })).status, 400);
  });
});
