// The thread's half of pool.ts's protocol: runs one input at a time through
// `handler`, which may call back to the parent (progress, a model call) and
// await the answer. Errors go back by name and message.
import { parentPort } from 'node:worker_threads';

type ToThread = { type: 'run'; id: number; input: unknown } | { type: 'reply'; seq: number; value?: unknown; error?: { name: string; message: string } };
export type CallParent = (name: string, ...args: unknown[]) => Promise<unknown>;

export function serveIsolated(handler: (input: unknown, call: CallParent) => Promise<{ value: unknown; transfer?: ArrayBuffer[] }>): void {
  const port = parentPort;
  if (!port) throw new Error('serveIsolated runs in a worker thread');
  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  port.on('message', (m: ToThread) => {
    if (m.type === 'reply') {
      const p = pending.get(m.seq);
      pending.delete(m.seq);
      if (!p) return;
      if (m.error) p.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
      else p.resolve(m.value);
      return;
    }
    const id = m.id;
    const call: CallParent = (name, ...args) => new Promise((resolve, reject) => {
      const n = ++seq;
      pending.set(n, { resolve, reject });
      port.postMessage({ type: 'call', id, seq: n, name, args });
    });
    handler(m.input, call).then(
      ({ value, transfer }) => port.postMessage({ type: 'done', id, value }, transfer ?? []),
      (err: Error) => port.postMessage({ type: 'failed', id, error: { name: err?.name ?? 'Error', message: err?.message ?? String(err) } }),
    );
  });
}
