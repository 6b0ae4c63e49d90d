// The code sandbox the code and condition blocks use: a few worker threads,
// each running one job at a time in a fresh QuickJS instance with a hard
// memory ceiling (worker.ts). The event loop of the server never runs user
// code; a worker that does not answer within the time limit (plus a grace)
// is terminated and replaced, so even code stuck in native work cannot hold
// the server.
import { Worker } from 'node:worker_threads';
import { BlockError } from '../types.ts';
import type { Answer, Job } from './worker.ts';

export type SandboxRun = { code: string; scope: Record<string, unknown>; timeoutMs: number; memoryMb: number; expression?: boolean };
export type Sandbox = { run: (r: SandboxRun) => Promise<{ value: unknown; logs: string[] }>; close: () => Promise<void> };

const GRACE_MS = 1000;
const WORKER = new URL('./worker.ts', import.meta.url);

type Slot = { worker: Worker; busy: boolean };

export function sandboxPool(size: number): Sandbox {
  const slots: Slot[] = [];
  const waiting: Array<() => void> = [];
  let nextId = 1;
  let closed = false;

  const spawn = (): Slot => {
    const slot: Slot = { worker: new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: 256 } }), busy: false };
    slot.worker.unref();
    slot.worker.on('error', () => undefined);
    return slot;
  };
  const acquire = async (): Promise<Slot> => {
    for (;;) {
      if (closed) throw new BlockError('The sandbox is shutting down');
      let slot = slots.find((s) => !s.busy);
      if (!slot && slots.length < size) slots.push((slot = spawn()));
      if (slot) {
        slot.busy = true;
        return slot;
      }
      await new Promise<void>((r) => waiting.push(r));
    }
  };
  const release = (slot: Slot) => {
    slot.busy = false;
    waiting.shift()?.();
  };
  /** Takes a worker out of the pool (stuck or dead); the next job gets a fresh one. */
  const drop = (slot: Slot) => {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    void slot.worker.terminate();
  };

  return {
    run: async (r) => {
      const slot = await acquire();
      const job: Job = { id: nextId++, code: r.code, scope: r.scope, timeoutMs: r.timeoutMs, memoryMb: r.memoryMb, expression: r.expression === true };
      try {
        const answer = await new Promise<Answer>((resolve, reject) => {
          const done = () => {
            clearTimeout(timer);
            slot.worker.off('message', onMessage);
            slot.worker.off('exit', onExit);
          };
          const timer = setTimeout(() => {
            done();
            drop(slot);
            reject(new BlockError(`The code ran longer than ${r.timeoutMs} ms`));
          }, r.timeoutMs + GRACE_MS);
          const onMessage = (a: Answer) => {
            if (a.id !== job.id) return;
            done();
            resolve(a);
          };
          const onExit = () => {
            done();
            drop(slot);
            reject(new BlockError('The sandbox stopped while running the code (it used too much memory)'));
          };
          slot.worker.on('message', onMessage);
          slot.worker.once('exit', onExit);
          slot.worker.postMessage(job);
        });
        if (!answer.ok) throw Object.assign(new BlockError(answer.error), { logs: answer.logs });
        return { value: answer.value, logs: answer.logs };
      } finally {
        if (slots.includes(slot)) release(slot);
        else waiting.shift()?.();
      }
    },
    close: async () => {
      closed = true;
      for (const w of waiting.splice(0)) w();
      await Promise.all(slots.splice(0).map((s) => s.worker.terminate()));
    },
  };
}
