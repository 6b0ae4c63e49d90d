// What the OpenAI-compatible endpoint reads in SQL, as the caller: the agents
// and orchestrations the access model lets them run (their own and the
// project's), and a new session seeded with the conversation a client sent.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AgentRow } from '../agents/store.ts';
import type { AiCalls } from '../calls.ts';
import type { OrchestrationRow } from '../orchestrations/run.ts';

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
    /**
     * A new session holding the earlier turns a client sent (user and
     * assistant messages, in order), so the run reads them as its history.
     */
    seedSession: async (caller: RequestContext, target: Runnable, turns: Array<{ role: 'user' | 'assistant'; content: string }>, title: string): Promise<string> =>
      calls.transactionAs(caller, async (c) => {
        const column = target.kind === 'agent' ? 'agent_id' : 'orchestration_id';
        const { rows } = await c.query<{ id: string }>(`insert into ai.sessions (${column}, title) values ($1, $2) returning id`, [target.row.id, title.length > 80 ? `${title.slice(0, 77)}...` : title]);
        const id = rows[0]!.id;
        for (const t of turns) await c.query('insert into ai.session_messages (session_id, role, content) values ($1, $2, $3)', [id, t.role, t.content]);
        return id;
      }),
    /** 404 unless the session is the caller's and belongs to this agent or orchestration. */
    sessionOf: async (caller: RequestContext, target: Runnable, sessionId: string): Promise<boolean> => {
      const column = target.kind === 'agent' ? 'agent_id' : 'orchestration_id';
      return (await calls.as(caller, `select 1 from ai.sessions where id = $1 and ${column} = $2`, [sessionId, target.row.id])).length > 0;
    },
  };
}

export type OpenAiStore = ReturnType<typeof openAiStore>;
