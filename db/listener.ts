// LISTENs that stay, every channel of a process on one connection per
// database URL: a client of its own (not a pool's connection, which a busy
// pool could not spare), reconnected with backoff when it drops (a restart,
// a failover, a terminated backend). One connection, not one per channel,
// because PostgreSQL wakes every listening backend of a database for every
// NOTIFY, whatever its channel: each more listening connection costs every
// notice (a run's events, a realtime batch) one more backend woken, and each
// replica one more connection (bench/RESULTS.md, "One listening
// connection"). Notifications sent while
// the connection was away are lost, so `onListening` runs on every
// (re)connect with `again` true after the first: the owner catches up there
// (re-reads its cache, tells its clients to look again).
import pg from 'pg';
import type { Logger } from 'pino';

/** `ready`: the first connect has been tried (it never rejects: a failure retries). */
export type Listener = { ready: Promise<void>; stop: () => Promise<void> };

type ListenOptions = {
  url: string;
  channel: string;
  /** Named in the log when the connection is lost. */
  name: string;
  log: Logger;
  onNotify: (payload: string) => void;
  onListening?: (again: boolean) => void | Promise<void>;
  /** The first reconnect's wait (doubling up to 10 s); 500 ms unless given (the shortest of a connection's channels applies). */
  firstDelayMs?: number;
};

/** `on`: the connection it listens on (a connect listens on every channel it has; a channel added meanwhile needs no LISTEN of its own). */
type Subscription = ListenOptions & { listened: number; tried: () => void; on?: pg.Client };

// The connection of each database URL, while it has channels.
const hubs = new Map<string, Hub>();
type Hub = { add: (sub: Subscription) => void; remove: (sub: Subscription) => Promise<void> };

export function listenChannel(opts: ListenOptions): Listener {
  let tried!: () => void;
  const ready = new Promise<void>((resolve) => {
    tried = resolve;
  });
  const sub: Subscription = { ...opts, listened: 0, tried };
  let shared = hubs.get(opts.url);
  if (!shared) hubs.set(opts.url, (shared = hub(opts.url, opts.log)));
  shared.add(sub);
  const at = shared;
  return { ready, stop: () => at.remove(sub) };
}

function hub(url: string, log: Logger): Hub {
  const subs = new Set<Subscription>();
  let current: pg.Client | undefined;
  let delay: number | undefined;
  let waiting = false;
  // LISTEN, UNLISTEN and (re)connects one at a time, in the order asked.
  let queue: Promise<void> = Promise.resolve();
  const serial = (op: () => Promise<void>) => (queue = queue.then(op, op));
  const firstDelay = () => Math.min(...[...subs].map((s) => s.firstDelayMs ?? 500));
  const channels = () => new Set([...subs].map((s) => s.channel));

  // Its channel listens now: the owner catches up (again after a reconnect), then its first try is over.
  const listening = (sub: Subscription) => {
    void Promise.resolve(sub.onListening?.(sub.listened++ > 0))
      .catch((err: Error) => log.warn({ listener: sub.name, error: err.message }, 'listener catch-up failed'))
      .finally(sub.tried);
  };

  const retry = (client: pg.Client) => {
    if (current === client) current = undefined;
    // No channel left (the last one closed it): no reconnect.
    if (subs.size === 0 || waiting) return;
    waiting = true;
    const wait = delay ?? firstDelay();
    log.warn({ listener: [...subs].map((s) => s.name).join(','), retryInMs: wait }, 'listener lost its connection; reconnecting');
    setTimeout(() => {
      waiting = false;
      void serial(connect);
    }, wait).unref();
    delay = Math.min(wait * 2, 10_000);
  };

  const connect = async (): Promise<void> => {
    if (subs.size === 0 || current) return;
    const client = new pg.Client({ connectionString: url, application_name: 'pgbase:listen' });
    // Whichever comes first (the connection ends, or connecting fails) schedules the one retry.
    let ended = false;
    const lost = () => {
      if (ended) return;
      ended = true;
      retry(client);
    };
    client.on('error', () => undefined);
    client.on('end', lost);
    client.on('notification', (m) => {
      for (const s of subs) if (s.channel === m.channel) s.onNotify(m.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of channels()) await client.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch {
      // Tried: each owner's first try is over; the connection retries on its own.
      for (const s of subs) if (s.listened === 0) s.tried();
      lost();
      await client.end().catch(() => undefined);
      return;
    }
    if (ended) return;
    current = client;
    delay = undefined;
    for (const s of subs) {
      s.on = client;
      listening(s);
    }
  };

  const self = {
    add: (sub: Subscription) => {
      subs.add(sub);
      void serial(async () => {
        if (!subs.has(sub) || (current && sub.on === current)) return;
        if (!current) return connect();
        try {
          await current.query(`listen ${pg.escapeIdentifier(sub.channel)}`);
        } catch {
          // The connection is going: its reconnect listens on this channel too.
          sub.tried();
          return;
        }
        sub.on = current;
        listening(sub);
      });
    },
    remove: (sub: Subscription): Promise<void> =>
      serial(async () => {
        if (!subs.delete(sub)) return;
        if (subs.size > 0) {
          if (current && !channels().has(sub.channel)) await current.query(`unlisten ${pg.escapeIdentifier(sub.channel)}`).catch(() => undefined);
          return;
        }
        // Its last channel gone: the connection closes, and a later channel opens a new one.
        if (hubs.get(url) === self) hubs.delete(url);
        const client = current;
        current = undefined;
        await client?.end().catch(() => undefined);
      }),
  };
  return self;
}
