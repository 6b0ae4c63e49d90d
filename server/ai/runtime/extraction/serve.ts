// The thread's half of pool.ts's protocol: runs one input at a time through
// `handler`, which may call back to the parent (progress, a model call) and
// await the answer. Errors go back by name and message.
import { parentPort } from 'node:worker_threads';

type ToThread = { type: 'run'; id: number; input: unknown } | { type: 'reply'; seq: number; value?: unknown; error?: { name: string; message: string } } | { type: 'stop'; id: number };

const stoppedError = () => Object.assign(new Error('stopped'), { name: 'Stopped' });
export type CallParent = (name: string, ...args: unknown[]) => Promise<unknown>;

export function serveIsolated(handler: (input: unknown, call: CallParent) => Promise<{ value: unknown; transfer?: ArrayBuffer[] }>): void {
  const port = parentPort;
  if (!port) throw new Error('serveIsolated runs in a worker thread');
  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  // A run asked to stop: its calls waiting for an answer, and its next ones, fail Stopped (its handler unwinds).
  const stopped = new Set<number>();
  port.on('message', (m: ToThread) => {
    if (m.type === 'stop') {
      stopped.add(m.id);
      for (const [n, p] of pending) {
        pending.delete(n);
        p.reject(stoppedError());
      }
      return;
    }
    if (m.type === 'reply') {
      const p = pending.get(m.seq);
      pending.delete(m.seq);
      if (!p) return;
      if (m.error) p.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
      else p.resolve(m.value);
      return;
    }
    const id = m.id;
    stopped.clear(); // a stop that came after its run ended
    const call: CallParent = (name, ...args) => new Promise((resolve, reject) => {
      if (stopped.has(id)) return reject(stoppedError());
      const n = ++seq;
      pending.set(n, { resolve, reject });
      port.postMessage({ type: 'call', id, seq: n, name, args });
    });
    handler(m.input, call).then(
      ({ value, transfer }) => port.postMessage({ type: 'done', id, value }, transfer ?? []),
      (err: Error) => port.postMessage({ type: 'failed', id, error: { name: err?.name ?? 'Error', message: err?.message ?? String(err) } }),
    ).finally(() => stopped.delete(id));
  });
}
