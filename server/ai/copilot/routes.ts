// /api/copilot (spec 4.16, 6.2): sessions (one per user and workflow),
// their history, snapshots of proposals, the chat stream, and the copilot's
// model (a function-calling model from ai.copilot_models).
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { streamEvents } from '../lifetime.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse, UUID } from '../parse.ts';
import type { Settings } from '../settings/accessor.ts';
import type { CopilotChat, CopilotSession } from './chat.ts';

const SESSION = 'id, owner_id, workflow_id, created_at, updated_at';
const MESSAGE = 'id, role, content, tool_calls, tool_call_id, name, is_error, workflow_diff, proposed_state, pending_action, pre_snapshot, post_snapshot, snapshot_at, created_at';

const WorkflowRef = z.object({ workflow_id: z.string({ error: 'workflow_id is required' }).min(1, 'workflow_id is required') });
const ChatBody = z.object({
  message: z.string({ error: 'message is required' }).trim().min(1, 'message is required').max(100_000, 'message is longer than 100,000 characters'),
  workflow_state: z.record(z.string(), z.unknown(), { error: 'workflow_state must be an object of nodes and edges' }).optional(),
  confirm_action_id: z.string().optional(),
});
const ModelBody = z.object({ model: z.string({ error: 'model is required' }).trim().min(1, 'model is required') });

export function copilotRoutes(calls: AiCalls, chat: CopilotChat, settings: Settings, stop: AbortSignal): Router {
  const r = express.Router();

  /** The workflow the caller can see (404 naming it otherwise). */
  const workflow = async (req: express.Request, raw: string) => {
    if (!UUID.test(raw)) throw aiErrors.notFound('Workflow');
    const [row] = await calls.call<{ id: string }>(req, 'select id from ai.workflows where id = $1', [raw.toLowerCase()]);
    if (!row) throw aiErrors.notFound('Workflow');
    return row.id;
  };
  const session = async (req: express.Request) => {
    const [row] = await calls.call<CopilotSession>(req, `select ${SESSION} from ai.copilot_sessions where id = $1`, [idOf(req.params.id, 'Session')]);
    if (!row) throw aiErrors.notFound('Session');
    return row;
  };

  // The caller's session for a workflow: made if none exists (201), else the existing one (200).
  r.post('/sessions', route(async (req, res) => {
    const id = await workflow(req, parse(WorkflowRef, req.body ?? {}).workflow_id);
    const [made] = await calls.call(req, `insert into ai.copilot_sessions (workflow_id) values ($1) on conflict do nothing returning ${SESSION}`, [id]);
    if (made) return void res.status(201).json(made);
    res.json((await calls.call(req, `select ${SESSION} from ai.copilot_sessions where workflow_id = $1 and owner_id is not distinct from auth.uid()`, [id]))[0]);
  }));
  // The caller's session for a workflow, or 404 (nothing is made).
  r.get('/sessions', route(async (req, res) => {
    const raw = typeof req.query.workflow_id === 'string' ? req.query.workflow_id : '';
    if (!raw) throw aiErrors.validation('workflow_id is required');
    const id = await workflow(req, raw);
    const [row] = await calls.call(req, `select ${SESSION} from ai.copilot_sessions where workflow_id = $1 and owner_id is not distinct from auth.uid()`, [id]);
    if (!row) throw aiErrors.notFound('Session');
    res.json(row);
  }));
  r.delete('/sessions/:id', route(async (req, res) => {
    const s = await session(req);
    await calls.call(req, 'delete from ai.copilot_sessions where id = $1', [s.id]);
    res.json({ message: 'Session deleted', id: s.id });
  }));
  r.get('/sessions/:id/messages', route(async (req, res) => {
    const s = await session(req);
    res.json(await calls.call(req, `select ${MESSAGE} from ai.copilot_messages where session_id = $1 order by seq`, [s.id]));
  }));
  // Saves the editor's graph before applying a message's proposal (and the proposal), for undo.
  r.post('/sessions/:id/messages/:mid/snapshot', route(async (req, res) => {
    const s = await session(req);
    const mid = idOf(req.params.mid, 'Message');
    const body = (req.body ?? {}) as { pre_snapshot?: unknown };
    if (body.pre_snapshot === undefined || body.pre_snapshot === null) throw aiErrors.validation('pre_snapshot is required');
    const [row] = await calls.call<Record<string, unknown>>(req, 'select id, pre_snapshot, post_snapshot, snapshot_at from ai.save_copilot_snapshot($1, $2, $3)', [s.id, mid, JSON.stringify(body.pre_snapshot)]);
    res.json({ message_id: row!.id, pre_snapshot: row!.pre_snapshot, post_snapshot: row!.post_snapshot, saved_at: row!.snapshot_at });
  }));

  // The chat: server-sent events of spec 6.2. Bad input and unknown sessions are plain HTTP errors.
  r.post('/sessions/:id/chat', route(async (req, res) => {
    const body = parse(ChatBody, req.body ?? {});
    const s = await session(req);
    await streamEvents(res, stop, (life, send) => chat.chat(contextOf(req), s, body, life.signal, send));
  }));

  r.get('/settings/model', route(async (req, res) => {
    const options = await calls.call<{ model: string; provider: string; label: string }>(req, 'select model, provider, label from ai.copilot_models order by position', []);
    const [def] = await calls.asService<{ default_value: string }>(`select default_value from ai.settings_registry where key = 'copilot_model'`, []);
    res.json({ model: await settings.string('copilot_model'), default: def!.default_value, options });
  }));
  r.put('/settings/model', route(async (req, res) => {
    const { model } = parse(ModelBody, req.body ?? {});
    await calls.call(req, 'select ai.set_copilot_model($1)', [model]);
    res.json({ model });
  }));

  return r;
}
