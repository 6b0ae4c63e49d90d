// An agent run taken up again after the process running it died (issue 29;
// sql/0067_ai_agent_run_resume.sql). The sweep hands the run to the
// ai_agent_run_resume job; whichever worker runs it takes the run
// (ai.claim_agent_run), rebuilds it from its checkpoints and carries it on:
//   - as the caller it was started by (the verified claims kept on the run)
//   - with the history its model read (kept as sent) and its own stored
//     messages, so the model reads the same conversation byte for byte
//   - from its last stored step (resume-point.ts): completed model calls are
//     not made again, finished tool calls not run again; the one in flight
//     runs again, with the same idempotency key
//   - its events numbered on from the last stored one, after a `resumed`
//     event, without repeating what followers already have of the step it
//     picks up (its tool calls and results, the text of a model call cut off)
// A run that cannot go on (its agent deleted, its caller unreadable) ends
// failed, saying why.
import type { Logger } from 'pino';
import { z } from 'zod';
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { detachedLifetime } from '../lifetime.ts';
import type { ChatMessage } from '../providers/router.ts';
import { recordedRun, type RunEventLog } from '../runs/events.ts';
import type { StoredMessage } from '../sessions/conversation.ts';
import type { Emit } from './events.ts';
import type { AgentRunner } from './run.ts';
import { resumePoint } from './resume-point.ts';
import { aiErrors } from '../errors.ts';
import { Parked } from '../failures.ts';

const Caller = z.object({ role: z.enum(['anon', 'authenticated', 'service_role']), claims: z.record(z.string(), z.unknown()) });
type Event = { type?: string; step?: number; id?: string; delta?: string; delegation_id?: string; approval_id?: string };
type RunRow = { session_id: string; agent_id: string | null; input: string; caller: unknown; context: ChatMessage[]; resumes: number; messages: StoredMessage[]; events: Event[] };

/** What the run stored: its record, its messages in order, the events a resume must not repeat. */
const STORED_RUN = `select r.session_id, r.agent_id, r.input, r.caller, r.context, r.resumes,
    (select coalesce(json_agg(json_build_object('role', m.role, 'content', m.content, 'tool_calls', m.tool_calls, 'tool_call_id', m.tool_call_id) order by m.id), '[]')
       from ai.session_messages m where m.run_id = r.id) as messages,
    (select coalesce(json_agg(e.event order by e.seq), '[]') from ai.run_events e
      where e.agent_run_id = r.id and e.event ->> 'type' in ('tool_call', 'tool_result', 'content_delta', 'delegation_started', 'approval_resolved') and e.event ->> 'delegation_id' is null) as events
  from ai.agent_runs r where r.id = $1`;

export function agentResumes(deps: { calls: AiCalls; agents: AgentRunner; events: RunEventLog; runnerId: string; stop: AbortSignal; log: Logger }) {
  const { calls } = deps;
  /** Ends a run that cannot go on, failed with the reason, and says so as its last event. */
  const cannot = async (runId: string, why: string): Promise<never> => {
    const err = aiErrors.notResumable(why);
    await calls.asService('select ai.finish_agent_run($1, \'failed\', null, $2, null, (select steps from ai.agent_runs where id = $1))', [runId, err.message]);
    throw err;
  };

  return async (runId: string): Promise<void> => {
    const [claim] = await calls.asService<{ ok: boolean }>('select ai.claim_agent_run($1, $2) as ok', [runId, deps.runnerId]);
    // Ended, cancelled, or another process has it already.
    if (!claim?.ok) return;
    const [row] = await calls.asService<RunRow>(STORED_RUN, [runId]);
    // The first stored message is the user's; the rest are the run's steps.
    const steps = row!.messages.slice(1);
    const from = resumePoint(steps);
    deps.log.info({ run: runId, step: from.steps, resumes: row!.resumes }, 'agent run resumed');
    await recordedRun(deps.events, 'agent', async (push) => {
      const caller = Caller.safeParse(row!.caller);
      if (!caller.success) return cannot(runId, 'who it acts as is not readable');
      const who: RequestContext = caller.data;
      const agent = row!.agent_id ? await deps.agents.agent(who, row!.agent_id).catch(() => undefined) : undefined;
      if (!agent) return cannot(runId, 'its agent was deleted');
      push({ type: 'resumed', run_id: runId, step: from.steps, resumes: row!.resumes });
      const emit = unrepeated(row!.events, from.steps, push as Emit);
      await deps.agents.resume(who, agent, { runId, sessionId: row!.session_id, input: row!.input, context: row!.context, messages: steps }, detachedLifetime(deps.stop), emit);
    }, undefined, { runId, lingerMs: 0 }).catch((err: Error) => {
      // Parked again on an approval: the answer or the deadline brings it back.
      if (!(err instanceof Parked)) deps.log.warn({ run: runId, error: err.message }, 'resumed agent run failed');
    });
  };
}

/**
 * The resumed run's events without what followers already have of the step
 * it picks up: the tool calls (and results) of its last stored step, a
 * delegation already announced, an approval's answer already told, and the part of the next model call's text
 * that was streamed before the crash (the same text comes again from a
 * model that answers the same; an answer that differs is sent as it is).
 */
export function unrepeated(stored: Event[], step: number, emit: Emit): Emit {
  const calls = new Set(stored.filter((e) => e.type === 'tool_call' && e.step === step).map((e) => e.id));
  const results = new Set(stored.filter((e) => e.type === 'tool_result' && calls.has(e.id)).map((e) => e.id));
  const delegations = new Set(stored.filter((e) => e.type === 'delegation_started').map((e) => e.delegation_id));
  const resolved = new Set(stored.filter((e) => e.type === 'approval_resolved').map((e) => e.approval_id));
  let streamed = stored.filter((e) => e.type === 'content_delta' && e.step === step + 1).map((e) => e.delta ?? '').join('');
  return (event) => {
    if (event.delegation_id === undefined || event.type === 'delegation_started') {
      if (event.type === 'tool_call' && event.step === step && calls.delete(event.id)) return;
      if (event.type === 'tool_result' && results.delete(event.id)) return;
      if (event.type === 'delegation_started' && delegations.delete(event.delegation_id)) return;
      if (event.type === 'approval_resolved' && resolved.delete(event.approval_id)) return;
      if (event.type === 'content_delta' && event.step === step + 1 && streamed) {
        if (streamed.startsWith(event.delta)) return void (streamed = streamed.slice(event.delta.length));
        const rest = event.delta.startsWith(streamed) ? event.delta.slice(streamed.length) : event.delta;
        streamed = '';
        if (rest) emit({ ...event, delta: rest });
        return;
      }
    }
    emit(event);
  };
}
