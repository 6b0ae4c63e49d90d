// Parked workflow runs taken up on time (sql/0103). A run that waits is a
// row and a resume job due when its wait ends; the job's poll can be a
// couple of seconds late, so a wait due soon is also timed in this process:
// the one that parked it, and every server's sweep for the waits due before
// its next sweep (a restart loses no second). Whoever comes first takes the
// run (ai.claim_execution); the others find it taken.
import type { Logger } from 'pino';
import type { AiCalls } from '../calls.ts';

/** How far ahead a process times a wake itself (beyond it, the resume job's poll does). */
const WAKE_WITHIN_MS = 10 * 60_000;

export function workflowWakes(opts: { calls: AiCalls; stop: AbortSignal; log: Logger; resume: (executionId: string) => Promise<void> }) {
  const timers = new Map<string, NodeJS.Timeout>();
  /** Takes the run up in `inMs` (once per run, only within WAKE_WITHIN_MS). */
  const wake = (executionId: string, inMs: number) => {
    if (timers.has(executionId) || inMs > WAKE_WITHIN_MS || opts.stop.aborted) return;
    const timer = setTimeout(() => {
      timers.delete(executionId);
      void opts.resume(executionId).catch((err: Error) => opts.log.warn({ execution: executionId, error: err.message }, 'a waiting run was not taken up; its job will'));
    }, Math.max(0, inMs));
    timer.unref();
    timers.set(executionId, timer);
  };
  return {
    wake,
    /** Times the waits due within `withinMs` (the sweep's). */
    timeDue: async (withinMs: number) => {
      const due = await opts.calls.asService<{ execution_id: string; in_ms: number }>(
        `select execution_id, (extract(epoch from min(due_at) - now()) * 1000)::float8 as in_ms from ai.workflow_waits
          where status = 'waiting' and due_at < now() + make_interval(secs => $1::float8 / 1000) group by execution_id`, [withinMs]);
      for (const d of due) wake(d.execution_id, d.in_ms);
    },
    stop: () => {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
