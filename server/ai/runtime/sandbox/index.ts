// The code sandbox the code and condition blocks use: a few worker threads,
// each running one job at a time in a fresh QuickJS instance with a hard
// memory ceiling (worker.ts). The event loop of the server never runs user
// code; a worker that does not answer within the time limit (plus a grace)
// is terminated and replaced, so even code stuck in native work cannot hold
// the server.
import { Failure } from '../../failures.ts';
import { threadSlots } from '../threads.ts';
import type { Answer, Job } from './worker.ts';

export type SandboxRun = { code: string; scope: Record<string, unknown>; timeoutMs: number; memoryMb: number; expression?: boolean };
export type Sandbox = { run: (r: SandboxRun) => Promise<{ value: unknown; logs: string[] }>; close: () => Promise<void> };

const GRACE_MS = 1000;

export function sandboxPool(size: number): Sandbox {
  const slots = threadSlots({ module: new URL('./worker.ts', import.meta.url), size, resourceLimits: { maxOldGenerationSizeMb: 256 }, closed: () => new Failure('The sandbox is shutting down') });
  let nextId = 1;

  return {
    run: async (r) => {
      const slot = await slots.acquire();
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
            slots.drop(slot);
            reject(new Failure(`The code ran longer than ${r.timeoutMs} ms`, { limit: 'time' }));
          }, r.timeoutMs + GRACE_MS);
          const onMessage = (a: Answer) => {
            if (a.id !== job.id) return;
            done();
            resolve(a);
          };
          const onExit = () => {
            done();
            slots.drop(slot);
            reject(new Failure('The sandbox stopped while running the code (it used too much memory)', { limit: 'memory' }));
          };
          slot.worker.on('message', onMessage);
          slot.worker.once('exit', onExit);
          slot.worker.postMessage(job);
        });
        if (!answer.ok) throw new Failure(answer.error, { logs: answer.logs });
        return { value: answer.value, logs: answer.logs };
      } finally {
        slots.release(slot);
      }
    },
    close: slots.close,
  };
}
