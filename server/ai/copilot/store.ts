// The copilot's sessions, messages, snapshots and model in SQL
// (sql/0036_ai_copilot.sql), as the caller: a session is its owner's, one per
// user and workflow.
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { UUID } from '../parse.ts';
import type { CopilotSession } from './chat.ts';

const SESSION = 'id, owner_id, workflow_id, created_at, updated_at';
const MESSAGE = 'id, role, content, tool_calls, tool_call_id, name, is_error, workflow_diff, proposed_state, pending_action, pre_snapshot, post_snapshot, snapshot_at, created_at';

export function copilotStore(calls: AiCalls) {
  const mine = async (req: Request, workflowId: string) =>
    (await calls.call<CopilotSession>(req, `select ${SESSION} from ai.copilot_sessions where workflow_id = $1 and owner_id is not distinct from auth.uid()`, [workflowId]))[0];
  return {
    /** The workflow the caller can see (404 naming it otherwise). */
    workflow: async (req: Request, raw: string) => {
      if (!UUID.test(raw)) throw aiErrors.notFound('Workflow');
      const [row] = await calls.call<{ id: string }>(req, 'select id from ai.workflows where id = $1', [raw.toLowerCase()]);
      if (!row) throw aiErrors.notFound('Workflow');
      return row.id;
    },
    session: async (req: Request, id: string) => {
      const [row] = await calls.call<CopilotSession>(req, `select ${SESSION} from ai.copilot_sessions where id = $1`, [id]);
      if (!row) throw aiErrors.notFound('Session');
      return row;
    },
    /** The caller's session for the workflow, made now if none exists (`made` says which). */
    open: async (req: Request, workflowId: string): Promise<{ made: boolean; session: CopilotSession }> => {
      const [made] = await calls.call<CopilotSession>(req, `insert into ai.copilot_sessions (workflow_id) values ($1) on conflict do nothing returning ${SESSION}`, [workflowId]);
      return made ? { made: true, session: made } : { made: false, session: (await mine(req, workflowId))! };
    },
    mine,
    remove: (req: Request, id: string) => calls.call(req, 'delete from ai.copilot_sessions where id = $1', [id]),
    messages: (req: Request, id: string) => calls.call(req, `select ${MESSAGE} from ai.copilot_messages where session_id = $1 order by seq`, [id]),
    /** ai.save_copilot_snapshot: the editor's graph before a proposal is applied, and the proposal, for undo. */
    saveSnapshot: async (req: Request, sessionId: string, messageId: string, pre: unknown) =>
      (await calls.call<{ id: string; pre_snapshot: unknown; post_snapshot: unknown; snapshot_at: string }>(req, 'select id, pre_snapshot, post_snapshot, snapshot_at from ai.save_copilot_snapshot($1, $2, $3)', [sessionId, messageId, JSON.stringify(pre)]))[0]!,
    models: (req: Request) => calls.call<{ model: string; provider: string; label: string }>(req, 'select model, provider, label from ai.copilot_models order by position', []),
    defaultModel: async () => (await calls.asService<{ default_value: string }>(`select default_value from ai.settings_registry where key = 'copilot_model'`, []))[0]!.default_value,
    setModel: (req: Request, model: string) => calls.call(req, 'select ai.set_copilot_model($1)', [model]),
  };
}
