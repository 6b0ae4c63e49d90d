// One LISTEN that stays: a client of its own (not a pool's connection, which
// a busy pool could not spare), reconnected with backoff when it drops (a
// restart, a failover, a terminated backend). Notifications sent while it was
// away are lost, so `onListening` runs on every (re)connect with `again`
// true after the first: the owner catches up there (re-reads its cache, tells
// its clients to look again).
import pg from 'pg';
import type { Logger } from 'pino';

/** `ready`: the first connect has been tried (it never rejects: a failure retries). */
export type Listener = { ready: Promise<void>; stop: () => Promise<void> };

export function listenChannel(opts: {
  url: string;
  channel: string;
  /** Shown as the connection's application_name (pgbase:<name>) and in the log. */
  name: string;
  log: Logger;
  onNotify: (payload: string) => void;
  onListening?: (again: boolean) => void | Promise<void>;
  /** The first reconnect's wait (doubling up to 10 s); 500 ms unless given. */
  firstDelayMs?: number;
}): Listener {
  const firstDelay = opts.firstDelayMs ?? 500;
  let stopped = false;
  let current: pg.Client | undefined;
  let delay = firstDelay;
  let connects = 0;
  const connect = async (): Promise<void> => {
    if (stopped) return;
    const client = new pg.Client({ connectionString: opts.url, application_name: `pgbase:${opts.name}` });
    let retried = false;
    // Whichever comes first (the connection ends, or connecting fails) schedules the one retry.
    const retry = () => {
      if (retried || stopped) return;
      retried = true;
      if (current === client) current = undefined;
      opts.log.warn({ listener: opts.name, retryInMs: delay }, 'listener lost its connection; reconnecting');
      setTimeout(() => void connect(), delay).unref();
      delay = Math.min(delay * 2, 10_000);
    };
    client.on('error', () => undefined);
    client.on('end', retry);
    client.on('notification', (m) => {
      if (m.channel === opts.channel) opts.onNotify(m.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`listen ${pg.escapeIdentifier(opts.channel)}`);
    } catch {
      retry();
      await client.end().catch(() => undefined);
      return;
    }
    current = client;
    delay = firstDelay;
    await Promise.resolve(opts.onListening?.(connects++ > 0)).catch((err: Error) => opts.log.warn({ listener: opts.name, error: err.message }, 'listener catch-up failed'));
  };
  return {
    ready: connect(),
    stop: async () => {
      stopped = true;
      await current?.end().catch(() => undefined);
    },
  };
}
