// HTTP from SQL (sql/0123): the senders. Every process running a worker
// listens on pgbase_net (notified when a transaction that queued requests
// commits), takes a batch off net.http_request_queue (SKIP LOCKED: processes
// share them, each request taken once), sends each through the outbound
// guard (private addresses refused unless allowed) and records the answers
// in one statement. It also polls, so a lost notification delays a request
// by a second at most. As pg_net, a request is sent at most once: one taken
// by a process that dies is not sent again.
import pg from 'pg';
import type { Logger } from 'pino';
import { guardedFetch, privateNetworkRule } from '../server/ai/runtime/net/ssrf.ts';

const BATCH = 200;
const POLL_MS = 1000;
const TIDY_EVERY_MS = 60_000;

type Request = { id: string; method: string; url: string; headers: Record<string, string>; body: string | null; timeout_milliseconds: number };
type Response = { id: string; status_code?: number; content_type?: string | null; headers?: Record<string, string>; content?: string; timed_out?: boolean; error_msg?: string };

export type NetSenders = { stop: () => Promise<void> };

export function startNetSenders(opts: { pool: pg.Pool; log: Logger; allowPrivateNetworks: string; parallel: number }): NetSenders {
  const log = opts.log.child({ component: 'net' });
  const send = guardedFetch(privateNetworkRule(opts.allowPrivateNetworks));
  let stopped = false;
  let draining: Promise<void> | null = null;
  let again = false;
  let listener: pg.Client | null = null;
  let lastTidy = Date.now();

  const sendOne = async (r: Request): Promise<Response> => {
    const headers = Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k, String(v)]));
    try {
      const res = await send(r.url, { method: r.method, headers, ...(r.body !== null ? { body: r.body } : {}), timeoutMs: r.timeout_milliseconds, signal: AbortSignal.timeout(r.timeout_milliseconds + 1000) });
      return { id: r.id, status_code: res.status, content_type: res.headers['content-type'] ?? null, headers: res.headers, content: res.body };
    } catch (err) {
      const message = (err as Error).message;
      const timedOut = /took longer than|aborted|timeout/i.test(message);
      return { id: r.id, timed_out: timedOut, error_msg: timedOut ? `Timeout of ${r.timeout_milliseconds} ms reached` : message };
    }
  };

  /** Takes and sends batches until the queue is empty. */
  const drain = async (): Promise<void> => {
    for (;;) {
      const { rows } = await opts.pool.query<Request>('select * from net.take_requests($1)', [BATCH]);
      if (rows.length === 0) return;
      const answers: Response[] = [];
      for (let i = 0; i < rows.length; i += opts.parallel) {
        answers.push(...await Promise.all(rows.slice(i, i + opts.parallel).map(sendOne)));
      }
      await opts.pool.query('select net.record_responses($1)', [JSON.stringify(answers)]);
    }
  };

  const wake = (): void => {
    if (stopped) return;
    if (draining) {
      again = true;
      return;
    }
    draining = (async () => {
      do {
        again = false;
        try {
          await drain();
          if (Date.now() - lastTidy > TIDY_EVERY_MS) {
            lastTidy = Date.now();
            await opts.pool.query('select net.tidy_responses()');
          }
        } catch (err) {
          log.warn({ error: (err as Error).message }, 'sending queued HTTP requests failed; trying again');
        }
      } while (again && !stopped);
      draining = null;
    })();
  };

  const listen = async (): Promise<void> => {
    if (stopped) return;
    const client = new pg.Client(opts.pool.options);
    client.on('error', () => undefined);
    client.on('end', () => {
      if (listener === client) listener = null;
      if (!stopped) setTimeout(() => void listen().catch(() => undefined), POLL_MS).unref();
    });
    client.on('notification', wake);
    await client.connect();
    await client.query('listen pgbase_net');
    listener = client;
    if (stopped) await client.end();
  };

  void listen().catch((err: Error) => log.warn({ error: err.message }, 'listening for queued HTTP requests failed; polling'));
  const poll = setInterval(wake, POLL_MS);
  poll.unref();
  wake();

  return {
    stop: async () => {
      stopped = true;
      clearInterval(poll);
      await listener?.end().catch(() => undefined);
      await draining;
    },
  };
}
