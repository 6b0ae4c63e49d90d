// Untrusted parsers run here, never on the server's event loop or heap: a
// few worker threads, each with a heap limit (resourceLimits) and watched by
// the clock. A thread that runs out of memory, stops answering for longer
// than the quiet limit (no progress between two pages), or passes the whole
// run's limit is terminated and replaced; its run fails with a message that
// names the limit, and the server keeps serving. The parsers' modules load
// in the threads only (the thread module imports them), so the API process
// neither pays their memory nor runs their code.
//
// Protocol (structured clone over postMessage):
//   parent -> thread  {type: 'run', id, input}
//   thread -> parent  {type: 'call', id, seq, name, args}  the parent answers
//   parent -> thread  {type: 'reply', seq, value} | {type: 'reply', seq, error}
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

export type IsolatedPool = {
  run: <T>(input: unknown, calls: Record<string, (...args: never[]) => Promise<unknown>>, transfer?: ArrayBuffer[]) => Promise<T>;
  close: () => Promise<void>;
};

export function isolatedPool(threadModule: URL, limits: IsolationLimits): IsolatedPool {
  const slots = threadSlots({
    module: threadModule, size: limits.threads, idleMs: limits.idleMs, closed: () => new Failure('The server is shutting down', { limit: 'crash' }),
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(16, Math.round(limits.heapMb / 16))) },
  });
  let nextId = 1;

  return {
    run: async <T>(input: unknown, calls: Record<string, (...args: never[]) => Promise<unknown>>, transfer: ArrayBuffer[] = []) => {
      const slot = await slots.acquire();
      const id = nextId++;
      try {
        return await new Promise<T>((resolve, reject) => {
          let settled = false;
          const end = (fn: () => void) => {
            if (settled) return;
            settled = true;
            clearTimeout(whole);
            clearTimeout(quiet);
            slot.worker.off('message', onMessage);
            slot.worker.off('exit', onExit);
            slot.worker.off('error', onError);
            fn();
          };
          const kill = (err: Failure) => end(() => {
            slots.drop(slot);
            reject(err);
          });
          const whole = setTimeout(() => kill(new Failure(`The file took longer than ${Math.round(limits.runMs / 1000)} s to read (EXTRACTION_TIMEOUT_MS)`, { limit: 'time' })), limits.runMs);
          let quiet: NodeJS.Timeout | undefined;
          const listen = () => {
            clearTimeout(quiet);
            quiet = setTimeout(() => kill(new Failure(`One page took longer than ${Math.round(limits.quietMs / 1000)} s to read (EXTRACTION_PAGE_TIMEOUT_MS)`, { limit: 'quiet' })), limits.quietMs);
          };
          listen();
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
