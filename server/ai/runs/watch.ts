// What a process hears about runs from every replica, on one LISTEN (NOTIFY
// ai_runs, sql/0065): a run's new events (for clients following it here) and
// its cancellation (for the run, if it runs here). Notices sent while the
// connection was away are lost, so a reconnect tells every follower to read
// again and checks the runs held here for a cancel they missed.
import type { Logger } from 'pino';
import { listenChannel } from '../../../db/listener.ts';
import type { AiCalls } from '../calls.ts';

export type RunWatch = ReturnType<typeof runWatch>;

// How long, and how many, cancels of runs not carried here are remembered.
const HEARD_MS = 60_000;
const HEARD_MAX = 1000;
const cancelled = () => new Error('The run was cancelled');

export function runWatch(opts: { calls: AiCalls; adminUrl: string; log: Logger }) {
  const followers = new Map<string, Set<() => void>>();
  const running = new Map<string, AbortController>();
  // Cancels heard for runs not carried here (yet): a worker registers a run it has just claimed
  // (ai.claim_run) a few round trips later, and a cancel in between must still stop it.
  const heard = new Map<string, number>();
  const tell = (runId: string) => followers.get(runId)?.forEach((f) => f());
  const cancel = (runId: string) => {
    const controller = running.get(runId);
    if (controller) return controller.abort(cancelled());
    heard.set(runId, Date.now());
    // Oldest first; the ones a claim could still be about are kept.
    for (const [id, at] of heard) {
      if (heard.size <= HEARD_MAX && Date.now() - at < HEARD_MS) break;
      heard.delete(id);
    }
  };
  const missedCancels = async () => {
    if (running.size === 0) return;
    const rows = await opts.calls.asService<{ id: string }>(`select id from ai.agent_runs where id = any($1) and status = 'cancelled'
      union all select id from ai.orchestration_runs where id = any($1) and status = 'cancelled'
      union all select id from ai.workflow_executions where id = any($1) and status = 'cancelled'`, [[...running.keys()]]);
    for (const { id } of rows) cancel(id);
  };
  const listener = listenChannel({
    url: opts.adminUrl, channel: 'ai_runs', name: 'ai-runs', log: opts.log,
    onNotify: (payload) => {
      const [what, runId] = payload.split(':');
      if (!runId) return;
      if (what === 'event') tell(runId);
      else if (what === 'cancel') cancel(runId);
    },
    onListening: async (again) => {
      if (!again) return;
      for (const runId of followers.keys()) tell(runId);
      await missedCancels();
    },
  });
  return {
    ready: listener.ready,
    /** Calls `onEvent` whenever the run stores an event (on any replica); answers the unsubscribe. */
    follow: (runId: string, onEvent: () => void): (() => void) => {
      const set = followers.get(runId) ?? new Set();
      followers.set(runId, set.add(onEvent));
      return () => {
        set.delete(onEvent);
        if (set.size === 0) followers.delete(runId);
      };
    },
    /**
     * A signal that aborts when the run is cancelled (on any replica; aborted
     * already if its cancel was heard before); `found`: the run's own step
     * statement found it cancelled (sql/0090, 0091: its notice was lost), which
     * aborts it as the notice would have. Release it when the run ends.
     */
    cancellable: (runId: string): { signal: AbortSignal; found: () => void; release: () => void } => {
      const controller = new AbortController();
      running.set(runId, controller);
      const at = heard.get(runId);
      if (at !== undefined) {
        heard.delete(runId);
        if (Date.now() - at < HEARD_MS) controller.abort(cancelled());
      }
      return {
        signal: controller.signal,
        found: () => controller.abort(cancelled()),
        release: () => void (running.get(runId) === controller && running.delete(runId)),
      };
    },
    stop: () => listener.stop(),
  };
}
