// What the OpenAI-compatible endpoint reads in SQL, as the caller: the agents
// and orchestrations the access model lets them run (their own and the
// project's), and a new session seeded with the conversation a client sent.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AgentRow } from '../agents/store.ts';
import type { AiCalls } from '../calls.ts';
import type { OrchestrationRow } from '../orchestrations/run.ts';
import { UUID } from '../parse.ts';
import { sessionTitle } from '../sessions/conversation.ts';
import type { SeededTurn } from './messages.ts';

type Totals = { tokens_in: number; tokens_out: number; cost_usd: number };

export type Runnable =
  | { kind: 'agent'; row: AgentRow; mine: boolean; created_at: Date }
  | { kind: 'orchestration'; row: OrchestrationRow; mine: boolean; created_at: Date };

export function openAiStore(calls: AiCalls) {
  return {
    /** Every agent and orchestration the caller may run: their own first, then the project's, oldest first. */
    runnable: async (caller: RequestContext): Promise<Runnable[]> => {
      const agents = await calls.as<AgentRow & { mine: boolean }>(caller,
        `select id, owner_id, name, model, system_prompt, settings, created_at, updated_at, owner_id is not null and ai.owns(owner_id) as mine
           from ai.agents order by (owner_id is not null and ai.owns(owner_id)) desc, created_at, id`, []);
      const orchestrations = await calls.as<OrchestrationRow & { mine: boolean; created_at: Date }>(caller,
        `select id, name, strategy, model, system_prompt, settings, created_at, owner_id is not null and ai.owns(owner_id) as mine
           from ai.orchestrations order by (owner_id is not null and ai.owns(owner_id)) desc, created_at, id`, []);
      return [
        ...agents.map(({ mine, ...row }) => ({ kind: 'agent' as const, row, mine, created_at: row.created_at })),
        ...orchestrations.map(({ mine, ...row }) => ({ kind: 'orchestration' as const, row, mine, created_at: row.created_at })),
      ];
    },
    /** One model id's agent or orchestration (`<kind>/<id>` or `<kind>/<name>`, the caller's own first), in one query. */
    find: async (caller: RequestContext, model: string): Promise<Runnable | undefined> => {
      const slash = model.indexOf('/');
      const kind = model.slice(0, slash);
      const ref = model.slice(slash + 1);
      if (slash < 0 || (kind !== 'agent' && kind !== 'orchestration') || !ref) return undefined;
      const id = UUID.test(ref) ? ref.toLowerCase() : null;
      const columns = kind === 'agent' ? 'id, owner_id, name, model, system_prompt, settings, created_at, updated_at' : 'id, name, strategy, model, system_prompt, settings, created_at';
      const [row] = await calls.as<Record<string, unknown> & { mine: boolean; created_at: Date }>(caller,
        `select ${columns}, owner_id is not null and ai.owns(owner_id) as mine from ai.${kind === 'agent' ? 'agents' : 'orchestrations'}
          where id = $1 or name = $2 order by (id = $1) is true desc, (owner_id is not null and ai.owns(owner_id)) desc, created_at, id limit 1`, [id, ref]);
      if (!row) return undefined;
      const { mine, ...rest } = row;
      return { kind, row: rest, mine, created_at: row.created_at } as Runnable;
    },
    /**
     * A new session holding the earlier turns a client sent (user and
     * assistant messages, in order), so the run reads them as its history.
     */
    seedSession: async (caller: RequestContext, target: Runnable, turns: SeededTurn[], title: string): Promise<string> => {
      const column = target.kind === 'agent' ? 'agent_id' : 'orchestration_id';
      const values = [target.row.id, sessionTitle(title)];
      const insert = `insert into ai.sessions (${column}, title) values ($1, $2) returning id`;
      // Alone, one statement; with earlier turns, one transaction (the messages' policy must see the new session).
      if (turns.length === 0) return (await calls.as<{ id: string }>(caller, insert, values))[0]!.id;
      return calls.transactionAs(caller, async (c) => {
        const id = (await c.query<{ id: string }>(insert, values)).rows[0]!.id;
        await c.query(`insert into ai.session_messages (session_id, role, content, tool_calls, tool_call_id)
          select $1, t.e ->> 'role', t.e ->> 'content', t.e -> 'tool_calls', t.e ->> 'tool_call_id' from jsonb_array_elements($2::jsonb) with ordinality as t(e, n) order by t.n`, [id, JSON.stringify(turns)]);
        return id;
      });
    },
    /** The caller's run of this agent that waits for the result of this call of a client tool (sql/0107), if any. */
    waitingRun: async (caller: RequestContext, agentId: string, toolCallId: string): Promise<{ run_id: string; session_id: string } | undefined> =>
      (await calls.as<{ run_id: string; session_id: string }>(caller,
        `select r.id as run_id, r.session_id from ai.agent_runs r
          where r.agent_id = $1 and r.status = 'waiting_client'
            and exists (select 1 from ai.session_messages m where m.run_id = r.id and m.role = 'assistant' and m.tool_calls @> jsonb_build_array(jsonb_build_object('id', $2::text)))
          order by r.started_at desc limit 1`, [agentId, toolCallId]))[0],
    /**
     * Stores the client's results and takes the run for this process
     * (ai.answer_client): the run's totals so far (what earlier answers
     * reported), or undefined when it no longer waits.
     */
    answerClient: async (runId: string, runner: string, results: Array<{ tool_call_id: string; content: string }>): Promise<Totals | undefined> => {
      const [taken] = await calls.asService<{ ok: boolean }>('select ai.answer_client($1, $2, $3) as ok', [runId, runner, JSON.stringify(results)]);
      if (!taken?.ok) return undefined;
      return (await calls.asService<Totals>('select tokens_in, tokens_out, cost_usd::float8 as cost_usd from ai.usage_totals($1)', [runId]))[0];
    },
    /** 404 unless the session is the caller's and belongs to this agent or orchestration. */
    sessionOf: async (caller: RequestContext, target: Runnable, sessionId: string): Promise<boolean> => {
      const column = target.kind === 'agent' ? 'agent_id' : 'orchestration_id';
      return (await calls.as(caller, `select 1 from ai.sessions where id = $1 and ${column} = $2`, [sessionId, target.row.id])).length > 0;
    },
  };
}

export type OpenAiStore = ReturnType<typeof openAiStore>;
