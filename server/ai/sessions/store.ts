// Sessions in SQL (sql/0031_ai_sessions.sql and later), as the caller: the
// routes' reads and the run records agent and orchestration runs keep. A
// session is its owner's alone (another user's reads as absent). A
// session's runs and messages are its agent's or its orchestration's alike:
// `run_id` names the run either way (an orchestration's messages keep it in
// orchestration_run_id).
import type { Request } from 'express';
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { sessionTitle } from './conversation.ts';

const SESSION = 'id, owner_id, agent_id, orchestration_id, title, summary, summary_through, compactions, compacted_at, created_at, updated_at';
/** A run's columns as a session's runs (and an agent's run history) answer them. */
export const RUN = 'id, session_id, agent_id, status, input, output, error, stop_reason, steps, tokens_in, tokens_out, cost_usd::float8 as cost_usd, started_at, finished_at';
/** An orchestration run in the same columns (agent_id null). */
const ORCHESTRATION_RUN = RUN.replace('agent_id', 'null::uuid as agent_id');

/** Which run table a conversational run is kept in, and what it belongs to. */
export type RunOwner = { kind: 'agent'; agentId: string } | { kind: 'orchestration'; orchestrationId: string };
/** The workflow execution and block place a block's child run belongs to (sql/0102: its parent resumes it). */
export type RunParent = { executionId: string; block: string };
export type RunTotals = { tokens_in: number; tokens_out: number; cost_usd: number };

export function sessionStore(calls: AiCalls) {
  return {
    list: (req: Request) => calls.call<Record<string, unknown>>(req, `select ${SESSION} from ai.sessions order by updated_at desc, id limit 500`, []),
    get: async (req: Request, id: string) => {
      const [row] = await calls.call<Record<string, unknown>>(req, `select ${SESSION} from ai.sessions where id = $1`, [id]);
      if (!row) throw aiErrors.notFound('Session');
      return row;
    },
    messages: (req: Request, id: string) => calls.call<Record<string, unknown>>(req, `select id, coalesce(run_id, orchestration_run_id) as run_id, role, content, tool_calls, tool_call_id, name, is_error,
        retrieved_context, attachments, created_at from ai.session_messages where session_id = $1 order by id`, [id]),
    runs: (req: Request, id: string) => calls.call(req, `select ${RUN} from ai.agent_runs where session_id = $1
        union all select ${ORCHESTRATION_RUN} from ai.orchestration_runs where session_id = $1 order by started_at, id`, [id]),
    /** Every retrieved_context entry of a run's answers, in order (404 for a run not in this session). */
    retrievedContext: async (req: Request, id: string, runId: string): Promise<unknown[]> => {
      const [run] = await calls.call(req, 'select id from ai.agent_runs where id = $1 and session_id = $2 union all select id from ai.orchestration_runs where id = $1 and session_id = $2', [runId, id]);
      if (!run) throw aiErrors.notFound('Run');
      const [ctx] = await calls.call<{ entries: unknown[] }>(req, `select coalesce(jsonb_agg(e order by m.id, n), '[]') as entries
          from ai.session_messages m, jsonb_array_elements(m.retrieved_context) with ordinality as x(e, n)
         where m.session_id = $1 and $2 in (m.run_id, m.orchestration_run_id) and m.role = 'assistant'`, [id, runId]);
      return ctx!.entries;
    },
    remove: (req: Request, id: string) => calls.call(req, 'delete from ai.sessions where id = $1', [id]),
  };
}

/** The run records of agent and orchestration runs (ai.agent_runs, ai.orchestration_runs). */
/**
 * A run's model calls from the ledger, in order: the step (a delegation's
 * steps carry its id), model, tokens, cost, latency and whether it worked.
 */
export const MODEL_CALLS = `coalesce((select jsonb_agg(jsonb_build_object('step', u.step, 'model', u.model, 'provider', u.provider, 'kind', u.kind,
    'tokens_in', u.tokens_in, 'tokens_out', u.tokens_out, 'cost_usd', u.cost_usd::float8, 'latency_ms', u.latency_ms, 'ok', u.ok, 'at', u.created_at) order by u.id)
  from ai.usage u where u.run_id = r.id::text), '[]')`;

/** The trace a run began in (sql/0071), to find it in a tracing backend; null when tracing was off. */
export const TRACE_ID = `substr(r.traceparent, 4, 32)`;

export function runRecords(calls: AiCalls) {
  const completed = async (owner: RunOwner, runId: string, sessionId: string, output: string, stop: string, steps: number, runner: string | null, pending: object[] | null, complete: object | null): Promise<{ totals: RunTotals; first: number | null }> => {
    const [row] = await calls.asService<RunTotals & { first: number | null }>('select tokens_in, tokens_out, cost_usd, first from ai.complete_run_with_events(p_kind => $1, p_run => $2, p_session => $3, p_output => $4, p_stop => $5, p_steps => $6, p_runner => $7, p_pending => $8, p_complete => $9)',
      [owner.kind, runId, sessionId, output, stop, steps, runner, pending === null ? null : JSON.stringify(pending), complete === null ? null : JSON.stringify(complete)]);
    const { first, ...totals } = row!;
    return { totals, first };
  };
  return {
    /**
     * Begins the run as the caller, in one statement (ai.begin_run): a new
     * session titled after the message when it has none, the run record
     * (its runner is this process: the sweep resumes or fails runs of dead
     * runners) with the history its model reads, the user's message; a
     * workflow block's child names its parent (sql/0102). The session's id.
     */
    begin: async (caller: RequestContext, owner: RunOwner, runId: string, sessionId: string | undefined, message: string, runner: string, history: unknown[], parent?: RunParent): Promise<string> => {
      const [row] = await calls.as<{ session_id: string }>(caller, `select ai.begin_run(p_kind => $1, p_run => $2, p_owner => $3, p_session => $4, p_title => $5, p_input => $6,
          p_runner => $7, p_context => $8::json, p_parent_execution => $9, p_parent_block => $10) as session_id`,
        [owner.kind, runId, owner.kind === 'agent' ? owner.agentId : owner.orchestrationId, sessionId ?? null, sessionTitle(message), message, runner, JSON.stringify(history),
          parent?.executionId ?? null, parent?.block ?? null]);
      return row!.session_id;
    },
    /**
     * Ends a run that answered, in one statement (ai.complete_run_with_events,
     * sql/0081): completed (a run cancelled meanwhile stays cancelled), its
     * session touched, its totals from the ledger; its events stored by the
     * caller after (its OnRunComplete hooks' come first).
     */
    complete: async (owner: RunOwner, runId: string, sessionId: string, output: string, stop: string, steps: number): Promise<RunTotals> =>
      (await completed(owner, runId, sessionId, output, stop, steps, null, null, null)).totals,
    /**
     * The same end, with the run's last events stored in the same statement:
     * `pending` (the events not stored yet; null: refused), its `usage` event
     * and `complete`. Its totals, and the first event's number (null: refused,
     * another process holds the run).
     */
    completeWithEvents: (owner: RunOwner, runId: string, sessionId: string, output: string, stop: string, steps: number, runner: string, pending: object[] | null, complete: object) =>
      completed(owner, runId, sessionId, output, stop, steps, runner, pending, complete),
    /** Lets go of a run begun here for a worker to carry (sql/0079); false when it was cancelled meanwhile. */
    handToWorker: async (owner: RunOwner, runId: string, runner: string): Promise<boolean> =>
      (await calls.asService<{ ok: boolean }>('select ai.hand_run_to_worker($1, $2, $3) as ok', [owner.kind, runId, runner]))[0]?.ok ?? false,
    /** Ends the run (ai.finish_agent_run / ai.finish_orchestration_run: one guarded statement, totals from the ledger). */
    finish: (owner: RunOwner, runId: string, status: 'completed' | 'failed', output: string | null, error: string | null, stop: string | null, steps: number) =>
      calls.asService(`select ai.finish_${owner.kind}_run(p_run => $1, p_status => $2, p_output => $3, p_error => $4, p_stop => $5, p_steps => $6)`, [runId, status, output, error, stop, steps]),
  };
}
