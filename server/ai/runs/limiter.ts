// The one limiter every way a run starts draws from, keyed by the actor the
// run acts as (a user's id; the project, as the service key and project
// workflows act, is the spec's shared `anonymous` bucket): a sliding minute
// per actor and budget, in this replica's memory (spec 8).
//
//   manual     a workflow run someone asked for: execute, execute/stream,
//              async, an MCP workflow tool (each call of a JSON-RPC batch)
//              WORKFLOW_EXECUTIONS_PER_MINUTE (20)
//   triggered  a workflow run an outside system started: a webhook (and
//              the schedules and row triggers to come), drawn from the
//              owner's window only after the secret matched
//              WORKFLOW_TRIGGERED_RUNS_PER_MINUTE (120)
//   agent      an agent or orchestration run from any route: /api/agents,
//              /api/orchestrations, /api/v1, MCP agent tools, a workflow's
//              agent block; AGENT_RUNS_PER_MINUTE, 0 (the default) for none,
//              as spec 8 has no request limit on them
//
// Triggered runs have a window of their own: a burst of events must not lock
// the owner out of running workflows by hand, nor a hand-run flood drop
// incoming events. Refused starts are not counted; resumed runs never draw.
import { aiErrors } from '../errors.ts';
import type { Actor } from '../actor.ts';

export type RunBudget = 'manual' | 'triggered' | 'agent';

const WINDOW_MS = 60_000;
const WHAT: Record<RunBudget, string> = { manual: 'executions', triggered: 'triggered executions', agent: 'agent and orchestration runs' };

export type RunLimiter = { take: (budget: RunBudget, actor: Actor) => void; close: () => void };

export function runLimiter(perMinute: Record<RunBudget, number>): RunLimiter {
  const windows = new Map<string, number[]>();
  const sweep = setInterval(() => {
    const cutoff = Date.now() - WINDOW_MS;
    for (const [key, times] of windows) if (times.at(-1)! <= cutoff) windows.delete(key);
  }, WINDOW_MS);
  sweep.unref();
  return {
    /** Counts one run start of `actor` against `budget`, or throws 429 (RATE_LIMITED with Retry-After). */
    take: (budget, actor) => {
      const limit = perMinute[budget];
      if (limit <= 0) return;
      const key = `${budget}:${actor.kind === 'user' ? actor.userId : 'anonymous'}`;
      const now = Date.now();
      const recent = (windows.get(key) ?? []).filter((t) => t > now - WINDOW_MS);
      windows.set(key, recent);
      if (recent.length >= limit) throw aiErrors.rateLimited(limit, WHAT[budget], (recent[0]! + WINDOW_MS - now) / 1000);
      recent.push(now);
    },
    close: () => clearInterval(sweep),
  };
}
