// The client of a run that parked on an approval (approvals.ts, sql/0068),
// or that a worker carries from its start (AI_RUN_PLACEMENT=worker, sql/0079;
// agent and orchestration runs alike):
// its request stays as it was (a stream goes on, a JSON answer still comes),
// but the run itself is carried on by whichever worker resumes it, so the
// request follows the run's stored events instead of the run. A stream
// writes them on from where it was (lifetime.ts, streamRun); a JSON request
// (jsonRun, here) waits for the run's last event and answers what an
// unparked run would have: the run's record and its tool calls, read back
// (a failure as the error it ended with).
import type { RequestContext } from '../../../db/as-role.ts';
import type { ApiError } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import type { Response } from 'express';
import { followEvents, recordedRun, type RunServices } from '../runs/events.ts';
import { ForWorker, Parked } from '../failures.ts';
import { finishedToolCalls, type MemberMessage } from '../sessions/member-steps.ts';
import type { RunResult } from './run.ts';

/** The error a run ended with, as its last event says it. */
function endedWith(event: Record<string, unknown>): ApiError {
  const { type: _t, error, error_code: code, ...details } = event;
  return aiErrors.endedWith(typeof code === 'string' ? code : undefined, typeof error === 'string' ? error : 'The run failed', details);
}

/**
 * A run answered as JSON (POST …/run), its events kept (recordedRun). When it
 * leaves this process before its end (parked on an approval, or begun here
 * for a worker to carry: ForWorker, let go of once its first events are
 * stored), the answer comes once a worker has carried it to its end: its
 * events are followed until then (or until the client leaves), and
 * `answer` reads it back.
 */
export async function jsonRun<R>(res: Response, services: RunServices & { caller: RequestContext }, kind: 'agent' | 'orchestration',
  run: (push: (event: object) => void) => Promise<R>, answer: (runId: string) => Promise<R>): Promise<R> {
  try {
    return await recordedRun(services.log, kind, run);
  } catch (err) {
    if (!(err instanceof Parked)) throw err;
    if (err instanceof ForWorker && !(await err.handOff())) throw Object.assign(aiErrors.runCancelled(), { details: { run_id: err.runId } });
    const left = new AbortController();
    res.once('close', () => left.abort());
    const last = await followEvents({ ...services, kind, runId: err.runId }, 0, () => undefined, left.signal);
    if (last?.type !== 'complete') throw last ? endedWith(last) : aiErrors.stoppedBeforeEnd(err.runId);
    return answer(err.runId);
  }
}

/** An agent run's answer, read back once a worker carried it to its end. */
export const agentAnswer = (calls: AiCalls, caller: RequestContext) => (runId: string) => result(calls, caller, runId);

async function result(calls: AiCalls, caller: RequestContext, runId: string): Promise<RunResult> {
  const [row] = await calls.as<{ session_id: string; output: string; stop_reason: RunResult['stop_reason']; steps: number; tokens_in: number; tokens_out: number; cost_usd: number; messages: MemberMessage[] }>(caller,
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
