// /api/sessions (spec 4.14, 2.9): a user's conversations with their messages
// and runs. Sessions are private to their owner (another user's is 404).
// Listing every session of the caller (GET /api/sessions) is our addition.
import express, { type Router } from 'express';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf } from '../parse.ts';

const SESSION = 'id, owner_id, agent_id, orchestration_id, title, summary, summary_through, compactions, compacted_at, created_at, updated_at';
const RUN = 'id, session_id, agent_id, status, input, output, error, stop_reason, steps, tokens_in, tokens_out, cost_usd::float8 as cost_usd, started_at, finished_at';

export function sessionRoutes(calls: AiCalls): Router {
  const r = express.Router();
  const session = async (req: express.Request) => {
    const id = idOf(req.params.id, 'Session');
    const [row] = await calls.call<Record<string, unknown>>(req, `select ${SESSION} from ai.sessions where id = $1`, [id]);
    if (!row) throw aiErrors.notFound('Session');
    return { id, row };
  };

  r.get('/', route(async (req, res) => {
    res.json(await calls.call(req, `select ${SESSION} from ai.sessions order by updated_at desc, id limit 500`, []));
  }));
  r.get('/:id', route(async (req, res) => {
    res.json((await session(req)).row);
  }));
  r.get('/:id/messages', route(async (req, res) => {
    const { id } = await session(req);
    // Assembled for reading: tool calls and results as stored; assistant messages carry retrieved_context.
    const rows = await calls.call<Record<string, unknown>>(req, `select id, run_id, role, content, tool_calls, tool_call_id, name, is_error, retrieved_context, created_at
        from ai.session_messages where session_id = $1 order by id`, [id]);
    res.json(rows.map(({ retrieved_context, tool_calls, tool_call_id, name, is_error, ...m }) => ({
      ...m,
      ...(m.role === 'assistant' ? { tool_calls: tool_calls ?? [], retrieved_context } : {}),
      ...(m.role === 'tool' ? { tool_call_id, name, is_error } : {}),
    })));
  }));
  r.get('/:id/runs', route(async (req, res) => {
    const { id } = await session(req);
    res.json(await calls.call(req, `select ${RUN} from ai.agent_runs where session_id = $1 order by started_at, id`, [id]));
  }));
  r.get('/:id/runs/:runId/retrieved-context', route(async (req, res) => {
    const { id } = await session(req);
    const runId = idOf(req.params.runId, 'Run');
    const [run] = await calls.call(req, 'select id from ai.agent_runs where id = $1 and session_id = $2', [runId, id]);
    if (!run) throw aiErrors.notFound('Run');
    const [ctx] = await calls.call<{ entries: unknown[] }>(req, `select coalesce(jsonb_agg(e order by m.id, n), '[]') as entries
        from ai.session_messages m, jsonb_array_elements(m.retrieved_context) with ordinality as x(e, n)
       where m.session_id = $1 and m.run_id = $2 and m.role = 'assistant'`, [id, runId]);
    res.json({ session_id: id, run_id: runId, retrieved_context: ctx!.entries });
  }));
  r.delete('/:id', route(async (req, res) => {
    const { id } = await session(req);
    await calls.call(req, 'delete from ai.sessions where id = $1', [id]);
    res.json({ message: 'Session deleted', id });
  }));
  return r;
}
