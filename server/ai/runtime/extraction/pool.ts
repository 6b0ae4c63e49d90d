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
import { Worker } from 'node:worker_threads';

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

/** A run the isolation ended: the parser died or passed a limit. `limit` names it. */
export class IsolatedRunFailed extends Error {
  readonly limit: 'memory' | 'time' | 'quiet' | 'crash';
  constructor(limit: 'memory' | 'time' | 'quiet' | 'crash', message: string) {
    super(message);
    this.name = 'IsolatedRunFailed';
    this.limit = limit;
  }
}

/** An error the thread threw, by name and message (the caller maps names to its own classes). */
export class ThreadError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

type Slot = { worker: Worker; busy: boolean; idle?: NodeJS.Timeout };
type FromThread =
  | { type: 'call'; id: number; seq: number; name: string; args: unknown[] }
  | { type: 'done'; id: number; value: unknown }
  | { type: 'failed'; id: number; error: { name: string; message: string } };

export type IsolatedPool = {
  run: <T>(input: unknown, calls: Record<string, (...args: never[]) => Promise<unknown>>, transfer?: ArrayBuffer[]) => Promise<T>;
  close: () => Promise<void>;
};

export function isolatedPool(threadModule: URL, limits: IsolationLimits): IsolatedPool {
  const slots: Slot[] = [];
  const waiting: Array<() => void> = [];
  let nextId = 1;
  let closed = false;

  const spawn = (): Slot => {
    const worker = new Worker(threadModule, { resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(16, Math.round(limits.heapMb / 16))) } });
    worker.unref();
    worker.on('error', () => undefined);
    return { worker, busy: false };
  };
  const drop = (slot: Slot) => {
    clearTimeout(slot.idle);
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    void slot.worker.terminate();
  };
  const acquire = async (): Promise<Slot> => {
    for (;;) {
      if (closed) throw new IsolatedRunFailed('crash', 'The server is shutting down');
      let slot = slots.find((s) => !s.busy);
      if (!slot && slots.length < limits.threads) slots.push((slot = spawn()));
      if (slot) {
        clearTimeout(slot.idle);
        slot.busy = true;
        return slot;
      }
      await new Promise<void>((r) => waiting.push(r));
    }
  };
  const release = (slot: Slot) => {
    slot.busy = false;
    slot.idle = setTimeout(() => drop(slot), limits.idleMs);
    slot.idle.unref();
    waiting.shift()?.();
  };

  return {
    run: async <T>(input: unknown, calls: Record<string, (...args: never[]) => Promise<unknown>>, transfer: ArrayBuffer[] = []) => {
      const slot = await acquire();
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
          const kill = (err: IsolatedRunFailed) => end(() => {
            drop(slot);
            reject(err);
          });
          const whole = setTimeout(() => kill(new IsolatedRunFailed('time', `The file took longer than ${Math.round(limits.runMs / 1000)} s to read (EXTRACTION_TIMEOUT_MS)`)), limits.runMs);
          let quiet: NodeJS.Timeout | undefined;
          const listen = () => {
            clearTimeout(quiet);
            quiet = setTimeout(() => kill(new IsolatedRunFailed('quiet', `One page took longer than ${Math.round(limits.quietMs / 1000)} s to read (EXTRACTION_PAGE_TIMEOUT_MS)`)), limits.quietMs);
          };
          listen();
          let lastError: Error | undefined;
          const onError = (err: Error) => {
            lastError = err;
          };
          const onExit = () => {
            const oom = (lastError as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
            kill(oom
              ? new IsolatedRunFailed('memory', `Reading the file needed more than ${limits.heapMb} MB of memory (EXTRACTION_MAX_HEAP_MB)`)
              : new IsolatedRunFailed('crash', `The parser stopped while reading the file${lastError ? ` (${lastError.message})` : ''}`));
          };
          const onMessage = (m: FromThread) => {
            if (m.id !== id) return;
            listen();
            if (m.type === 'done') return end(() => resolve(m.value as T));
            if (m.type === 'failed') return end(() => reject(new ThreadError(m.error.name, m.error.message)));
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
        if (slots.includes(slot)) release(slot);
        else waiting.shift()?.();
      }
    },
    close: async () => {
      closed = true;
      for (const w of waiting.splice(0)) w();
      await Promise.all(slots.splice(0).map((s) => {
        clearTimeout(s.idle);
        return s.worker.terminate();
      }));
    },
  };
}
