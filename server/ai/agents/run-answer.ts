// An agent run's answer read back (POST …/run), once a worker carried the
// run to its end: it parked on an approval (approvals.ts, sql/0068), or a
// worker carried it from its start (AI_RUN_PLACEMENT=worker, sql/0079). The
// request followed the run's stored events meanwhile (runs/json-run.ts); it
// answers what a run carried in the request would have: the run's record and
// its tool calls.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { finishedToolCalls } from '../sessions/member-steps.ts';
import type { RunResult } from './run.ts';
import type { StoredStep } from '../steps/step.ts';

/** An agent run's answer, read back once a worker carried it to its end. */
export const agentAnswer = (calls: AiCalls, caller: RequestContext) => (runId: string) => result(calls, caller, runId);

async function result(calls: AiCalls, caller: RequestContext, runId: string): Promise<RunResult> {
  const [row] = await calls.as<{ session_id: string; output: string; stop_reason: RunResult['stop_reason']; steps: number; tokens_in: number; tokens_out: number; cost_usd: number; messages: StoredStep[] }>(caller,
    `select r.session_id, r.output, r.stop_reason, r.steps, r.tokens_in, r.tokens_out, r.cost_usd::float8 as cost_usd,
            coalesce((select json_agg(json_build_object('role', m.role, 'tool_calls', m.tool_calls, 'tool_call_id', m.tool_call_id,
                       'content', m.content, 'is_error', m.is_error, 'latency_ms', m.latency_ms) order by m.id)
                        from ai.session_messages m where m.run_id = r.id and (m.role = 'tool' or m.tool_calls is not null)), '[]') as messages
       from ai.agent_runs r where r.id = $1`, [runId]);
  const r = row!;
  return {
    session_id: r.session_id, run_id: runId, status: 'completed', output: r.output, stop_reason: r.stop_reason, steps: r.steps,
    tool_calls: finishedToolCalls(r.messages), usage: { tokens_in: r.tokens_in, tokens_out: r.tokens_out, cost_usd: r.cost_usd },
  };
}
