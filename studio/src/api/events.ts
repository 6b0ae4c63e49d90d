// Server-sent events as the runs' streams send them: an `id:` line (the
// event's number) and a `data:` line of JSON per event, blank-line separated,
// `:` comments for keep-alive. follow() keeps a run's events coming across
// dropped connections and server restarts: it asks again with the number of
// the last event it saw (Last-Event-ID), so nothing is missed or repeated.

export type RunEvent = { id: number | null; data: { type: string; [key: string]: unknown } };

/** The events of one stream as they arrive. */
export async function* readEvents(stream: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<RunEvent> {
  const reader = stream.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', stop, { once: true });
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        if (data === undefined) continue;
        const id = /^id: ?(\d+)$/m.exec(block)?.[1];
        let parsed: RunEvent['data'];
        try {
          parsed = JSON.parse(data) as RunEvent['data'];
        } catch {
          continue; // not an event of ours: skipped rather than ending the stream
        }
        yield { id: id === undefined ? null : Number(id), data: parsed };
      }
    }
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

// As the server's runs/events.ts: a run's last event is one of these (a cancelled run ends with an error).
const ENDS = new Set(['complete', 'run_completed', 'error', 'client_tool_calls']);
/** Whether an event is a run's last. */
export const isLast = (e: RunEvent['data']) => ENDS.has(e.type);

/**
 * A run's events from after `after`, through every reconnection, until its
 * last event or `signal` aborts. `open(after)` asks the server (typed client,
 * Last-Event-ID: after); `onState` says whether the stream is live or
 * reconnecting, for the page to show.
 */
export async function follow(opts: {
  open: (after: number) => Promise<ReadableStream<Uint8Array>>;
  after?: number; signal: AbortSignal; onEvent: (e: RunEvent) => void; onState?: (state: 'live' | 'reconnecting' | 'ended') => void;
}): Promise<void> {
  let after = opts.after ?? 0;
  let wait = 250;
  while (!opts.signal.aborted) {
    try {
      const stream = await opts.open(after);
      opts.onState?.('live');
      wait = 250;
      for await (const e of readEvents(stream, opts.signal)) {
        if (e.id !== null) {
          if (e.id <= after) continue;
          after = e.id;
        }
        opts.onEvent(e);
        if (isLast(e.data)) {
          opts.onState?.('ended');
          return;
        }
      }
    } catch {
      // a refused connection (the server is restarting) is tried again below
    }
    if (opts.signal.aborted) return;
    opts.onState?.('reconnecting');
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, 4000);
  }
}
