// A few worker threads of one module, each running one job at a time: the
// slot bookkeeping the code sandbox and the document parsers share. A slot
// that misbehaves is dropped (its thread terminated) and the next job gets
// a fresh thread; an idle thread may be ended after `idleMs`, so an idle
// server holds no parser in memory.
import { Worker, type ResourceLimits } from 'node:worker_threads';

export type ThreadSlot = { worker: Worker; busy: boolean; idle?: NodeJS.Timeout };

export type ThreadSlots = {
  /** A free slot (a new thread when fewer than `size` exist), waiting for one otherwise. */
  acquire: () => Promise<ThreadSlot>;
  /** Hands a slot back after a job; a dropped slot only wakes the next waiter. */
  release: (slot: ThreadSlot) => void;
  /** Takes a slot out (stuck or dead) and terminates its thread. */
  drop: (slot: ThreadSlot) => void;
  close: () => Promise<void>;
};

export function threadSlots(opts: { module: URL; size: number; resourceLimits: ResourceLimits; idleMs?: number; closed: () => Error }): ThreadSlots {
  const slots: ThreadSlot[] = [];
  const waiting: Array<() => void> = [];
  let closed = false;

  const spawn = (): ThreadSlot => {
    const worker = new Worker(opts.module, { resourceLimits: opts.resourceLimits });
    worker.unref();
    worker.on('error', () => undefined);
    return { worker, busy: false };
  };
  const drop = (slot: ThreadSlot) => {
    clearTimeout(slot.idle);
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    void slot.worker.terminate();
  };
  return {
    acquire: async () => {
      for (;;) {
        if (closed) throw opts.closed();
        let slot = slots.find((s) => !s.busy);
        if (!slot && slots.length < opts.size) slots.push((slot = spawn()));
        if (slot) {
          clearTimeout(slot.idle);
          slot.busy = true;
          return slot;
        }
        await new Promise<void>((r) => waiting.push(r));
      }
    },
    release: (slot) => {
      if (slots.includes(slot)) {
        slot.busy = false;
        if (opts.idleMs !== undefined) {
          slot.idle = setTimeout(() => drop(slot), opts.idleMs);
          slot.idle.unref();
        }
      }
      waiting.shift()?.();
    },
    drop,
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
