// Untrusted parsers run here, never on the server's event loop or heap: a
// few worker threads, each with a heap limit (resourceLimits) and watched by
// the clock. A thread that runs out of memory, stops answering for longer
// than the quiet limit (no progress between two pages), passes the whole
// run's limit, or works longer than the run's busy budget (its own time,
// not time spent waiting for the parent or another thread: a file cannot
// buy more of it by reporting progress often) is terminated and replaced;
// its run fails with a message that names the limit, and the server keeps
// serving. A run whose signal aborts (its source was cancelled) is asked to
// stop and, if its thread does not yield within STOP_GRACE_MS, the thread is
// terminated and replaced: the run ends Stopped at once either way. The
// parsers' modules load in the threads only (the thread module imports
// them), so the API process neither pays their memory nor runs their code.
//
// Protocol (structured clone over postMessage):
//   parent -> thread  {type: 'run', id, input}
//   thread -> parent  {type: 'call', id, seq, name, args}  the parent answers
//   parent -> thread  {type: 'reply', seq, value} | {type: 'reply', seq, error}
//   parent -> thread  {type: 'stop', id}  the run's next call fails Stopped
//   thread -> parent  {type: 'done', id, value} | {type: 'failed', id, error: {name, message}}
// A thread's Failure and Stopped arrive as the same classes here (failures.ts).
import { Failure, Stopped } from '../../failures.ts';
import { threadSlots } from '../threads.ts';

export type IsolationLimits = {
  /** The thread's V8 heap, in MB (EXTRACTION_MAX_HEAP_MB). */
  heapMb: number;
  /** The whole run (EXTRACTION_TIMEOUT_MS). */
  runMs: number;
  /** Between two messages from the thread: a page that takes longer (EXTRACTION_PAGE_TIMEOUT_MS). */
  quietMs: number;
  /** Threads at once (EXTRACTION_WORKERS). */
  threads: number;
  /** An idle thread is ended after this long, so an idle server holds no parser in memory. */
  idleMs: number;
};

/** The thread's error as the parent's class: Failure and Stopped keep their meaning across the boundary; anything else stays an Error by name (a bug: retried). */
const fromThread = (e: { name: string; message: string }): Error =>
  e.name === 'Failure' ? new Failure(e.message) : e.name === 'Stopped' ? new Stopped(e.message) : Object.assign(new Error(e.message), { name: e.name });

type FromThread =
  | { type: 'call'; id: number; seq: number; name: string; args: unknown[] }
  | { type: 'done'; id: number; value: unknown }
  | { type: 'failed'; id: number; error: { name: string; message: string } };

/** One run's own bounds: its busy budget (ms of the thread's working time), and what stops it. */
export type RunOptions = { busyMs?: number; signal?: AbortSignal };

export type IsolatedPool = {
  run: <T>(input: unknown, calls: Record<string, (...args: never[]) => Promise<unknown>>, transfer?: ArrayBuffer[], opts?: RunOptions) => Promise<T>;
  close: () => Promise<void>;
};

/** How long a thread asked to stop may take to yield before it is terminated. */
export const STOP_GRACE_MS = 250;
/** How often a run's busy time is read. */
const BUSY_CHECK_MS = 250;

export function isolatedPool(threadModule: URL, limits: IsolationLimits): IsolatedPool {
  const slots = threadSlots({
    module: threadModule, size: limits.threads, idleMs: limits.idleMs, closed: () => new Failure('The server is shutting down', { limit: 'crash' }),
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(16, Math.round(limits.heapMb / 16))) },
  });
  let nextId = 1;

  return {
    run: async <T>(input: unknown, calls: Record<string, (...args: never[]) => Promise<unknown>>, transfer: ArrayBuffer[] = [], opts: RunOptions = {}) => {
      if (opts.signal?.aborted) throw new Stopped();
      const slot = await slots.acquire();
      const id = nextId++;
      try {
        return await new Promise<T>((resolve, reject) => {
          let settled = false;
          const timers: NodeJS.Timeout[] = [];
          const end = (fn: () => void) => {
            if (settled) return;
            settled = true;
            for (const t of timers) clearTimeout(t);
            clearTimeout(quiet);
            clearInterval(busy);
            opts.signal?.removeEventListener('abort', onAbort);
            slot.worker.off('message', onMessage);
            slot.worker.off('exit', onExit);
            slot.worker.off('error', onError);
            fn();
          };
          const kill = (err: Error) => end(() => {
            slots.drop(slot);
            reject(err);
          });
          timers.push(setTimeout(() => kill(new Failure(`The file took longer than ${Math.round(limits.runMs / 1000)} s to read (EXTRACTION_TIMEOUT_MS)`, { limit: 'time' })), limits.runMs));
          let quiet: NodeJS.Timeout | undefined;
          const listen = () => {
            clearTimeout(quiet);
            quiet = setTimeout(() => kill(new Failure(`One page took longer than ${Math.round(limits.quietMs / 1000)} s to read (EXTRACTION_PAGE_TIMEOUT_MS)`, { limit: 'quiet' })), limits.quietMs);
          };
          listen();
          // The thread's own working time (event-loop utilisation, read from here even while it is stuck in one task).
          const started = slot.worker.performance.eventLoopUtilization();
          const busy = setInterval(() => {
            if (opts.busyMs !== undefined && slot.worker.performance.eventLoopUtilization(started).active > opts.busyMs) {
              kill(new Failure(`Reading the file took more than ${Math.round(opts.busyMs / 1000)} s of the parser's time (EXTRACTION_BUSY_SECONDS_PER_MB)`, { limit: 'busy' }));
            }
          }, BUSY_CHECK_MS);
          const onAbort = () => {
            slot.worker.postMessage({ type: 'stop', id });
            timers.push(setTimeout(() => kill(new Stopped()), STOP_GRACE_MS));
          };
          opts.signal?.addEventListener('abort', onAbort, { once: true });
          let lastError: Error | undefined;
          const onError = (err: Error) => {
            lastError = err;
          };
          const onExit = () => {
            const oom = (lastError as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
            kill(oom
              ? new Failure(`Reading the file needed more than ${limits.heapMb} MB of memory (EXTRACTION_MAX_HEAP_MB)`, { limit: 'memory' })
              : new Failure(`The parser stopped while reading the file${lastError ? ` (${lastError.message})` : ''}`, { limit: 'crash' }));
          };
          const onMessage = (m: FromThread) => {
            if (m.id !== id) return;
            listen();
            if (m.type === 'done') return end(() => resolve(m.value as T));
            if (m.type === 'failed') return end(() => reject(fromThread(m.error)));
            const handler = calls[m.name];
            const answer = handler ? (handler as (...args: unknown[]) => Promise<unknown>)(...m.args) : Promise.reject(new Error(`no handler for ${m.name}`));
            answer.then(
              (value) => !settled && slot.worker.postMessage({ type: 'reply', seq: m.seq, value }),
              (err: Error) => !settled && slot.worker.postMessage({ type: 'reply', seq: m.seq, error: { name: err.name, message: err.message } }),
            );
          };
          slot.worker.on('message', onMessage);
          slot.worker.on('error', onError);
          slot.worker.once('exit', onExit);
          slot.worker.postMessage({ type: 'run', id, input }, transfer);
        });
      } finally {
        slots.release(slot);
      }
    },
    close: slots.close,
  };
}
