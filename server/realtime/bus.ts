// The link between this process and every other one on the same database:
// one LISTEN connection on channel 'realtime' (see sql/0016_realtime.sql), the
// node heartbeat, and relaying this process's own sockets' broadcasts out.
// A plain pg client rather than @graphile/pg-pubsub: that package is a
// PostGraphile subscriptions plugin, and all this needs is LISTEN with
// reconnects.
import type pg from 'pg';
import { listenChannel, type Listener } from '../../db/listener.ts';
import type { Logger } from 'pino';
import type { Broadcast } from './hub.ts';

export type BusEvent = { kind: string; body: Record<string, unknown> };

export type BusOptions = {
  url: string;
  pool: pg.Pool;
  nodeId: string;
  heartbeatMs: number;
  reapMs: number;
  log: Logger;
  onEvent: (event: BusEvent) => void;
  /** The database reaped this node while it stalled: its presences and subscriptions are gone. */
  onReaped: () => void;
};

/**
 * A broadcast as it travels between processes: {topic, event, private} with
 * the JSON `payload`, or the bytes base64-encoded in `binary`. SQL's
 * realtime.relay_message sends the same shape (JSON payloads only).
 */
function toRelay(b: Broadcast, parsed: () => unknown): Record<string, unknown> {
  const head = { topic: b.subTopic, event: b.userEvent, private: b.private };
  return b.payload.encoding === 'json' ? { ...head, payload: parsed() } : { ...head, binary: b.payload.bytes.toString('base64') };
}

export function fromRelay(body: Record<string, unknown>): Broadcast | undefined {
  if (typeof body.topic !== 'string' || typeof body.event !== 'string') return undefined;
  return {
    subTopic: body.topic,
    private: body.private === true,
    userEvent: body.event,
    payload:
      typeof body.binary === 'string'
        ? { encoding: 'binary', bytes: Buffer.from(body.binary, 'base64') }
        : { encoding: 'json', json: Buffer.from(JSON.stringify(body.payload ?? {})) },
  };
}

export class RealtimeBus {
  /** How many other server processes are alive; 0 means nothing needs relaying out. */
  peers = 0;
  // Bumped when another node says it joined: a heartbeat whose count was read before it does not undo what it taught.
  private joins = 0;
  private listener: Listener | undefined;
  private stopped = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private outgoing: Array<Record<string, unknown>> = [];
  private flushing = false;
  // Events whose body waits in realtime.relay_payloads are fetched in order:
  // later events queue behind them.
  private inbox: Array<{ kind: string; body: string }> = [];
  private draining = false;
  private readonly opts: BusOptions;

  constructor(opts: BusOptions) {
    this.opts = opts;
  }

  async start(): Promise<void> {
    await this.beat(true);
    await this.listen();
    // Tell the others at once that a node joined, so they start relaying.
    await this.opts.pool.query(`select pg_notify('realtime', 'node 0 ' || $1::text)`, [JSON.stringify({ id: this.opts.nodeId })]);
    this.heartbeat = setInterval(() => void this.beat(false), this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  private async beat(first: boolean): Promise<void> {
    const joins = this.joins;
    try {
      const { rows } = await this.opts.pool.query<{ others: number; registered: boolean }>(
        'select others, registered from realtime.node_heartbeat($1, make_interval(secs => $2))',
        [this.opts.nodeId, this.opts.reapMs / 1000],
      );
      const row = rows[0]!;
      // A node that joined while this count was read may be missing from it: its broadcasts would be dropped until the next beat.
      this.peers = this.joins === joins ? row.others : Math.max(row.others, 1);
      if (row.registered && !first) {
        this.opts.log.error({ node: this.opts.nodeId }, 'realtime node was reaped while stalled: closing its sockets so clients rejoin');
        this.opts.onReaped();
      }
    } catch (err) {
      if (first) throw err;
      if (!this.stopped) this.opts.log.warn({ error: (err as Error).message }, 'realtime node heartbeat failed');
    }
  }

  /** Relayed events, in arrival order (db/listener.ts keeps the connection; events sent while it is down are missed). */
  private listen(): Promise<void> {
    this.listener = listenChannel({
      url: this.opts.url, channel: 'realtime', name: 'realtime', log: this.opts.log, firstDelayMs: 100,
      onNotify: (payload) => {
        const first = payload.indexOf(' ');
        const second = payload.indexOf(' ', first + 1);
        if (first < 0 || second < 0) return;
        this.inbox.push({ kind: payload.slice(0, first), body: payload.slice(second + 1) });
        this.drain();
      },
    });
    return this.listener.ready;
  }

  private drain(): void {
    if (this.draining) return;
    while (this.inbox.length > 0) {
      const next = this.inbox[0]!;
      if (next.body.startsWith('@')) {
        this.draining = true;
        void this.fetchStored(next.body.slice(1)).then((text) => {
          next.body = text ?? 'null';
          this.draining = false;
          this.drain();
        });
        return;
      }
      this.inbox.shift();
      this.dispatch(next.kind, next.body);
    }
  }

  private async fetchStored(id: string): Promise<string | undefined> {
    try {
      const { rows } = await this.opts.pool.query<{ body: string }>('select body from realtime.relay_payloads where id = $1', [id]);
      if (!rows[0]) this.opts.log.warn({ id }, 'relayed realtime event is gone from realtime.relay_payloads');
      return rows[0]?.body;
    } catch (err) {
      this.opts.log.error({ error: (err as Error).message, id }, 'could not read a relayed realtime event');
      return undefined;
    }
  }

  private dispatch(kind: string, text: string): void {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      this.opts.log.warn({ kind }, 'unreadable realtime event');
      return;
    }
    if (!body || typeof body !== 'object') return;
    if (kind === 'node') {
      if ((body as { id?: unknown }).id !== this.opts.nodeId) {
        this.joins++;
        this.peers = Math.max(this.peers, 1);
      }
      return;
    }
    this.opts.onEvent({ kind, body: body as Record<string, unknown> });
  }

  /** Sends a broadcast to the other processes (not back to this one). Batched per tick; nothing when alone. */
  relay(b: Broadcast, parsed: () => unknown): void {
    if (this.peers === 0) return;
    this.outgoing.push({ ...toRelay(b, parsed), node: this.opts.nodeId });
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flush());
    }
  }

  private async flush(): Promise<void> {
    while (this.outgoing.length > 0) {
      const batch = this.outgoing.splice(0, 500);
      try {
        await this.opts.pool.query(`select realtime.relay('broadcast', b) from jsonb_array_elements($1::jsonb) b`, [JSON.stringify(batch)]);
      } catch (err) {
        this.opts.log.error({ error: (err as Error).message, messages: batch.length }, 'could not relay broadcasts to other realtime processes');
      }
    }
    this.flushing = false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.listener?.stop();
    await this.opts.pool.query('select realtime.node_leave($1)', [this.opts.nodeId]).catch(() => undefined);
  }
}
