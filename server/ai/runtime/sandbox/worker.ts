// A sandbox worker thread: runs one job at a time in a fresh QuickJS
// (WebAssembly) instance whose memory is a WebAssembly.Memory with a hard
// maximum, so neither strings, objects nor ArrayBuffers can grow it past the
// limit; a deadline checked by QuickJS's interrupt handler ends loops. The
// instance is dropped after each job. Nothing of Node is reachable from the
// code: no process, require, import or I/O; its only outputs are its return
// value (as JSON) and console lines.
import { parentPort } from 'node:worker_threads';
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten';

export type Job = { id: number; code: string; scope: Record<string, unknown>; timeoutMs: number; memoryMb: number; expression: boolean };
export type Answer = { id: number; ok: true; value: unknown; logs: string[] } | { id: number; ok: false; error: string; logs: string[] };

const PAGE = 64 * 1024;
const MB = 1024 * 1024;

async function run(job: Job): Promise<Answer> {
  const logs: string[] = [];
  const maximum = Math.max(32, job.memoryMb) * MB / PAGE;
  const module = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: new WebAssembly.Memory({ initial: Math.min(256, maximum), maximum }) }));
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(Math.max(16, job.memoryMb - 8) * MB);
  runtime.setMaxStackSize(512 * 1024);
  // The time limit is the user's code's: it starts once the context is set up (a loaded machine may take a while to).
  let deadline = Infinity;
  runtime.setInterruptHandler(() => Date.now() > deadline);
  const ctx = runtime.newContext();
  const dispose: QuickJSHandle[] = [];
  try {
    const log = ctx.newFunction('log', (...args) => {
      if (logs.length < 1000) logs.push(args.map((a) => show(ctx, a)).join(' ').slice(0, 10_000));
    });
    const consoleObject = ctx.newObject();
    for (const name of ['log', 'info', 'warn', 'error', 'debug']) ctx.setProp(consoleObject, name, log);
    ctx.setProp(ctx.global, 'console', consoleObject);
    dispose.push(log, consoleObject);
    for (const [name, value] of Object.entries(job.scope)) {
      const handle = ctx.unwrapResult(ctx.evalCode(`(${JSON.stringify(value ?? null)})`));
      ctx.setProp(ctx.global, name, handle);
      dispose.push(handle);
    }
    const source = job.expression ? `(${job.code}\n)` : `(function () { "use strict";\n${job.code}\n}).call(undefined)`;
    deadline = Date.now() + job.timeoutMs;
    const result = ctx.evalCode(source, 'block.js');
    if (result.error) return { id: job.id, ok: false, error: failure(ctx, result.error, job), logs };
    let value = result.value;
    if (ctx.typeof(value) === 'object' && isThenable(ctx, value)) {
      const settled = ctx.resolvePromise(value);
      value.dispose();
      for (let i = 0; i < 10_000 && runtime.hasPendingJob(); i++) {
        const step = runtime.executePendingJobs();
        if (step.error) return { id: job.id, ok: false, error: failure(ctx, step.error, job), logs };
      }
      const outcome = await Promise.race([settled, new Promise<null>((r) => setTimeout(() => r(null), 0))]);
      if (!outcome) return { id: job.id, ok: false, error: 'The code awaited something that never finishes (only code and promises resolve in the sandbox)', logs };
      if (outcome.error) return { id: job.id, ok: false, error: failure(ctx, outcome.error, job), logs };
      value = outcome.value;
    }
    const dumped = ctx.dump(value);
    value.dispose();
    return { id: job.id, ok: true, value: jsonOf(dumped), logs };
  } catch (err) {
    const message = (err as Error).message;
    return { id: job.id, ok: false, error: /interrupted/.test(message) ? `The code ran longer than ${job.timeoutMs} ms` : message, logs };
  } finally {
    for (const h of dispose) if (h.alive) h.dispose();
    ctx.dispose();
    runtime.dispose();
  }
}

function isThenable(ctx: QuickJSContext, handle: QuickJSHandle): boolean {
  const then = ctx.getProp(handle, 'then');
  const yes = ctx.typeof(then) === 'function';
  then.dispose();
  return yes;
}

function show(ctx: QuickJSContext, handle: QuickJSHandle): string {
  const v = ctx.dump(handle);
  return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
}

function failure(ctx: QuickJSContext, handle: QuickJSHandle, job: Job): string {
  const e = ctx.dump(handle) as { name?: string; message?: string } | string | null;
  handle.dispose();
  // An error that cannot even be read back is the heap running out.
  if (e === null || e === undefined) return `The code used more than its memory (${job.memoryMb} MB)`;
  const message = typeof e === 'string' ? e : `${e.name ?? 'Error'}: ${e.message ?? String(e)}`;
  if (/interrupted/.test(message)) return `The code ran longer than ${job.timeoutMs} ms`;
  if (/out of memory|string too long|stack overflow/i.test(message)) return `The code used more than its memory (${job.memoryMb} MB): ${message}`;
  return message;
}

/** The value as JSON would carry it (functions and undefined dropped). */
function jsonOf(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

parentPort!.on('message', (job: Job) => {
  void run(job).then((answer) => parentPort!.postMessage(answer));
});
