// MCP sessions are bounded (containment round 2, item 1). Before, one user
// opened 3,000 sessions in 5 s with `initialize`, none refused, each holding
// 20-90 KB of heap for 30 idle minutes. Now a caller holds at most
// MCP_SESSIONS_PER_CALLER (a new one evicts their least recently used idle
// one; with none idle, 429 and a JSON-RPC error), the process holds at most
// MCP_SESSIONS_MAX (past it, the idle session least recently used among the
// callers holding the most is evicted; with none idle, 429), idle sessions
// end after MCP_SESSION_IDLE_SECONDS, /metrics counts them, and a
// notification stream ends when its token expires or its user is banned or
// deleted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { signToken } from '../../server/keys.ts';
import { signUp } from '../helpers/ai-api.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestPlatform, stopTestPlatform, type TestPlatform } from '../helpers/platform.ts';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const PROTOCOL = '2025-06-18';

describe('MCP sessions are bounded', () => {
  /** Caps on `p`; idle expiry, token expiry, bans and deletions on `q` (short idle time). */
  let p: TestPlatform;
  let q: TestPlatform;
  const streams: AbortController[] = [];
  const mcpHeaders = (token: string, session?: string) => ({
    authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL } : {}),
  });
  /** `initialize` as a client sends it: the session id, or the refusal. */
  const initialize = async (token: string, on: TestPlatform = p): Promise<{ status: number; session: string | null; body: string; retryAfter: string | null }> => {
    const res = await fetch(`${on.url}/api/mcp`, {
      method: 'POST', headers: mcpHeaders(token),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'flood', version: '1' } } }),
    });
    return { status: res.status, session: res.headers.get('mcp-session-id'), body: await res.text(), retryAfter: res.headers.get('retry-after') };
  };
  const listTools = async (token: string, session: string, on: TestPlatform = p) => {
    const res = await fetch(`${on.url}/api/mcp`, { method: 'POST', headers: mcpHeaders(token, session), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    await res.arrayBuffer();
    return res.status;
  };
  /** Opens the session's notification stream; `ended` resolves (ms it lasted) when the server ends it. */
  const openStream = async (token: string, session: string, on: TestPlatform = p): Promise<{ ended: Promise<number> }> => {
    const abort = new AbortController();
    streams.push(abort);
    const res = await fetch(`${on.url}/api/mcp`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL }, signal: abort.signal });
    assert.equal(res.status, 200);
    const opened = Date.now();
    const ended = (async () => {
      const reader = res.body!.getReader();
      try {
        while (!(await reader.read()).done);
      } catch {
        // aborted by the test itself
      }
      return Date.now() - opened;
    })();
    return { ended };
  };
  const sessionsGauge = async (on: TestPlatform = p) => {
    const text = await (await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${on.keys.serviceRoleKey}` } })).text();
    return Number(/^pgbase_mcp_sessions (\d+)/m.exec(text)?.[1] ?? NaN);
  };
  let annHeld: string[] = [];
  let ann: string;

  before(async () => {
    [p, q] = await Promise.all([
      startTestPlatform({ WORKER: 'off', MCP_SESSIONS_PER_CALLER: '8', MCP_SESSIONS_MAX: '20' }),
      startTestPlatform({ WORKER: 'off', MCP_SESSION_IDLE_SECONDS: '2' }),
    ]);
  });
  after(async () => {
    for (const s of streams) s.abort();
    await Promise.all([stopTestPlatform(p), stopTestPlatform(q)]);
  });

  it('keeps a flood of 3,000 initializes from one user to their cap, its memory bounded', async () => {
    ann = (await signUp(p, 'ann-mcp-flood@example.com')).access_token;
    const first = await initialize(ann);
    assert.equal(first.status, 200, first.body);
    const heapBefore = heapUsed();
    const started = Date.now();
    const statuses = new Map<number, number>();
    let last: string[] = [];
    for (let i = 0; i < 3000; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => initialize(ann)));
      for (const r of batch) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      last = batch.map((r) => r.session!);
    }
    const grown = heapUsed() - heapBefore;
    assert.deepEqual([...statuses.keys()], [200], 'each initialize gets a session: the oldest idle one of the caller is evicted');
    assert.equal(await sessionsGauge(), 8, 'the caller holds MCP_SESSIONS_PER_CALLER sessions');
    assert.ok(grown < 20 * 1024 * 1024, `heap grew ${Math.round(grown / 1024)} KB in ${Date.now() - started} ms (unbounded: 3,000 x 20-90 KB)`);
    assert.equal(await listTools(ann, first.session!), 404, 'the evicted first session is gone');
    for (const s of last) if ((await listTools(ann, s)) === 200) annHeld.push(s);
    assert.equal(annHeld.length, 8, 'the eight newest are held');
  });

  it('refuses a caller with 429 and a JSON-RPC error when none of their sessions is idle', async () => {
    const bob = (await signUp(p, 'bob-mcp-busy@example.com')).access_token;
    const held: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await initialize(bob);
      assert.equal(r.status, 200, r.body);
      held.push(r.session!);
      await openStream(bob, r.session!);
    }
    const refused = await initialize(bob);
    assert.equal(refused.status, 429, refused.body);
    assert.ok(Number(refused.retryAfter) >= 1, 'Retry-After says when to try again');
    const body = JSON.parse(refused.body) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    assert.deepEqual([body.jsonrpc, body.id, body.error.code], ['2.0', 1, -32000], 'a JSON-RPC error answering the initialize');
    assert.match(body.error.message, /at most 8 MCP sessions per caller/);
    for (const s of held) assert.equal(await listTools(bob, s), 200, 'the busy sessions still answer');
  });

  it('past the process-wide cap evicts the least recently used idle session, and with none idle answers 429', async () => {
    // ann: 8 idle; bob: 8 busy. carl's 4 busy sessions reach the cap of 20.
    const carl = (await signUp(p, 'carl-mcp@example.com')).access_token;
    for (let i = 0; i < 4; i++) {
      const r = await initialize(carl);
      assert.equal(r.status, 200, r.body);
      await openStream(carl, r.session!);
    }
    assert.equal(await sessionsGauge(), 20);
    const dana = (await signUp(p, 'dana-mcp@example.com')).access_token;
    const admitted = await initialize(dana);
    assert.equal(admitted.status, 200, admitted.body);
    assert.equal(await sessionsGauge(), 20, 'still at the cap');
    assert.equal(await listTools(ann, annHeld[0]!), 404, 'ann\'s least recently used idle session made room');
    // Now every session is made busy: the next caller is refused.
    for (const s of annHeld.slice(1)) await openStream(ann, s);
    await openStream(dana, admitted.session!);
    const eve = (await signUp(p, 'eve-mcp@example.com')).access_token;
    const refused = await initialize(eve);
    assert.equal(refused.status, 429, refused.body);
    assert.match((JSON.parse(refused.body) as { error: { message: string } }).error.message, /at most 20 MCP sessions on this server/);
  });

  it('ends idle sessions after MCP_SESSION_IDLE_SECONDS', async () => {
    const fay = (await signUp(q, 'fay-mcp@example.com')).access_token;
    const r = await initialize(fay, q);
    assert.equal(r.status, 200, r.body);
    assert.equal(await listTools(fay, r.session!, q), 200);
    // Both platforms run in this process, and the gauge counts the process's sessions.
    const held = await sessionsGauge(q);
    await eventually('the idle session ends', () => sessionsGauge(q), (n) => n === held - 1, { tries: 100, everyMs: 100 });
    assert.equal(await listTools(fay, r.session!, q), 404, 'idle for longer than 2 s: closed');
  });

  it('ends a notification stream when its token expires', async () => {
    const gus = await signUp(q, 'gus-mcp@example.com');
    const short = await signToken(q.keys.jwtSecret, { sub: gus.user.id, role: 'authenticated', aud: 'authenticated' }, 2);
    const r = await initialize(short, q);
    assert.equal(r.status, 200, r.body);
    const stream = await openStream(short, r.session!, q);
    const lasted = await Promise.race([stream.ended, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 6000))]);
    assert.ok(lasted > 0 && lasted < 4000, `the stream ended at the token's expiry (${lasted} ms)`);
  });

  it('ends a banned user\'s and a deleted user\'s streams and sessions at once', async () => {
    const admin = { apikey: q.keys.serviceRoleKey, authorization: `Bearer ${q.keys.serviceRoleKey}`, 'content-type': 'application/json' };
    for (const how of ['ban', 'delete'] as const) {
      const user = await signUp(q, `hal-${how}-mcp@example.com`);
      const r = await initialize(user.access_token, q);
      assert.equal(r.status, 200, r.body);
      const stream = await openStream(user.access_token, r.session!, q);
      const started = Date.now();
      const res = how === 'ban'
        ? await fetch(`${q.url}/auth/v1/admin/users/${user.user.id}`, { method: 'PUT', headers: admin, body: JSON.stringify({ ban_duration: '24h' }) })
        : await fetch(`${q.url}/auth/v1/admin/users/${user.user.id}`, { method: 'DELETE', headers: admin });
      assert.equal(res.status, 200, await res.text());
      const lasted = await Promise.race([stream.ended.then(() => Date.now() - started), new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5000))]);
      assert.ok(lasted >= 0 && lasted < 2000, `${how}: the stream ended (${lasted} ms)`);
      assert.equal(await listTools(user.access_token, r.session!, q), 404, `${how}: the session is gone`);
    }
  });
});
