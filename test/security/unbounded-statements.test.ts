// No statement runs unbounded (containment item 3): a graph is checked in
// time linear in its size (a 40-layer ladder used to take longer than the
// universe; a 10,000-block chain saves, a cycle in it is named), graphs have
// size limits answered 400, every API role's statement has a timeout (the
// role's own setting, reloaded with NOTIFY pgrst), jobs get the longer one,
// and a client that leaves cancels its statement.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiApi, signUp } from '../helpers/ai-api.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { asJob, configureStatementLimits, statementTimeoutFor } from '../../db/statement-limits.ts';

describe('statements are bounded', () => {
  let p: TestPlatform;
  let user: string;
  const { post, put, json } = aiApi(() => p);
  const service = () => ({ apikey: p.keys.serviceRoleKey, authorization: `Bearer ${p.keys.serviceRoleKey}`, 'content-type': 'application/json' });
  const sleeping = async () => (await p.adminPool.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where state = 'active' and query like '%nap_for%' and pid <> pg_backend_pid()`)).rows[0]!.n;

  before(async () => {
    p = await startTestPlatform({ WORKER: 'off' });
    user = (await signUp(p, 'bounded@example.com')).access_token;
    await p.adminPool.query(`create function public.nap_for(seconds float8) returns text language sql as $$ select pg_sleep(seconds)::text || 'awake' $$;
      grant execute on function public.nap_for(float8) to authenticated, service_role;
      notify pgrst, 'reload schema';`);
    for (let i = 0; i < 100 && (await fetch(`${p.url}/rest/v1/rpc/nap_for`, { method: 'POST', headers: service(), body: '{"seconds": 0}' })).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
  });
  after(() => stopTestPlatform(p));

  const ladder = (layers: number) => ({
    blocks: Array.from({ length: layers }, (_, i) => [{ id: `a${i}`, type: 'code' }, { id: `b${i}`, type: 'code' }]).flat(),
    edges: Array.from({ length: layers - 1 }, (_, i) => ['a', 'b'].flatMap((s) => ['a', 'b'].map((t) => ({ source: `${s}${i}`, target: `${t}${i + 1}` })))).flat(),
  });
  const chain = (n: number, closed = false) => ({
    blocks: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, type: 'code' })),
    edges: Array.from({ length: closed ? n : n - 1 }, (_, i) => ({ source: `n${i}`, target: `n${(i + 1) % n}` })),
  });

  it('saves a 40-layer ladder (every path doubles per layer) at once', async () => {
    const w = await json<{ id: string }>(await post(user, '/workflows', { name: 'ladder' }), 201);
    // Walking every path would never end: the request is given 20 s, the check takes milliseconds.
    const res = await fetch(`${p.url}/api/workflows/${w.id}/graph`, { method: 'PUT', headers: aiApi(() => p).headers(user), body: JSON.stringify(ladder(40)), signal: AbortSignal.timeout(20_000) });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(((await res.json()) as { blocks: unknown[] }).blocks.length, 80);
  });

  it('saves a 10,000-block chain, names a block on a cycle through it, and refuses graphs over the limits', async () => {
    const w = await json<{ id: string }>(await post(user, '/workflows', { name: 'chain' }), 201);
    const saved = await put(user, `/workflows/${w.id}/graph`, chain(10_000));
    assert.equal(saved.status, 200, (await saved.clone().text()).slice(0, 300));
    const cycle = await json<{ error: string; error_code: string }>(await put(user, `/workflows/${w.id}/graph`, chain(10_000, true)), 400);
    assert.deepEqual([cycle.error_code, /^Block "n\d+" is on a cycle; only a split may lead back$/.test(cycle.error)], ['VALIDATION_ERROR', true], cycle.error);
    const big = await json<{ error: string; error_code: string }>(await put(user, `/workflows/${w.id}/graph`, chain(10_001)), 400);
    assert.deepEqual(big, { error: 'A graph has at most 10000 blocks (this one has 10001)', error_code: 'VALIDATION_ERROR' });
    const edges = { blocks: [{ id: 'a', type: 'code' }], edges: Array.from({ length: 50_001 }, () => ({ source: 'a', target: 'a' })) };
    const many = await json<{ error: string }>(await put(user, `/workflows/${w.id}/graph`, edges), 400);
    assert.equal(many.error, 'A graph has at most 50000 edges (this one has 50001)');
    const { rows } = await p.adminPool.query('select count(*)::int as n from ai.workflow_blocks where workflow_id = $1', [w.id]);
    assert.equal(rows[0].n, 10_000, 'refused graphs changed nothing');
  });

  it('stops a user\'s statement at the role\'s own statement_timeout, reloaded with NOTIFY pgrst', async () => {
    const db = (await p.adminPool.query<{ d: string }>('select current_database() as d')).rows[0]!.d;
    await p.adminPool.query(`alter role authenticated in database "${db}" set statement_timeout = '700ms'`);
    try {
      await p.adminPool.query(`notify pgrst, 'reload schema'`);
      let res: Response | undefined;
      for (let i = 0; i < 100; i++) {
        res = await fetch(`${p.url}/rest/v1/rpc/nap_for`, { method: 'POST', headers: { apikey: p.keys.anonKey, authorization: `Bearer ${user}`, 'content-type': 'application/json' }, body: '{"seconds": 5}', signal: AbortSignal.timeout(20_000) });
        if (res.status !== 200) break;
      }
      assert.equal(res!.status, 500);
      const body = (await res!.json()) as { code: string; message: string };
      assert.deepEqual([body.code, body.message], ['57014', 'canceling statement due to statement timeout']);
      const asService = await fetch(`${p.url}/rest/v1/rpc/nap_for`, { method: 'POST', headers: service(), body: '{"seconds": 1}' });
      assert.equal(asService.status, 200, 'the service role has its own (longer) limit');
    } finally {
      await p.adminPool.query(`alter role authenticated in database "${db}" reset statement_timeout; notify pgrst, 'reload schema'`);
    }
  });

  it('cancels the statement of a client that left', async () => {
    const gone = new AbortController();
    const call = fetch(`${p.url}/rest/v1/rpc/nap_for`, { method: 'POST', headers: service(), body: '{"seconds": 30}', signal: gone.signal }).catch(() => 'aborted');
    for (let i = 0; i < 100 && (await sleeping()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await sleeping(), 1, 'the statement is running');
    gone.abort();
    assert.equal(await call, 'aborted');
    for (let i = 0; i < 100 && (await sleeping()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await sleeping(), 0, 'and is cancelled when its client leaves, long before its 30 s');
    const after = await fetch(`${p.url}/rest/v1/rpc/nap_for`, { method: 'POST', headers: service(), body: '{"seconds": 0}' });
    assert.equal(after.status, 200, 'the pool still serves');
  });

  it('gives statements inside jobs the jobs\' limit, whatever role they act as', () => {
    configureStatementLimits({ fallback: '2min', job: '15min' });
    assert.equal(statementTimeoutFor('service_role'), '2min');
    assert.equal(asJob(() => statementTimeoutFor('service_role')), '15min');
    assert.equal(asJob(() => statementTimeoutFor('authenticated')), '15min');
  });
});
