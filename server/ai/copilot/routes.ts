// /api/copilot (spec 4.16, 6.2): sessions (one per user and workflow),
// their history, snapshots of proposals, the chat stream, and the copilot's
// model (a function-calling model from ai.copilot_models).
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { streamEvents } from '../runs/lifetime.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse } from '../parse.ts';
import type { Settings } from '../settings/accessor.ts';
import type { CopilotChat } from './chat.ts';
import { copilotStore } from './store.ts';

export const CopilotSessionBody = z.object({ workflow_id: z.string({ error: 'workflow_id is required' }).min(1, 'workflow_id is required') });
export const CopilotChatBody = z.object({
  message: z.string({ error: 'message is required' }).trim().min(1, 'message is required').max(100_000, 'message is longer than 100,000 characters'),
  workflow_state: z.record(z.string(), z.unknown(), { error: 'workflow_state must be an object of nodes and edges' }).optional(),
  confirm_action_id: z.string().optional(),
});
// The editor's graph before a suggestion is applied: any JSON but null.
export const CopilotSnapshotBody = z.object({ pre_snapshot: z.custom<unknown>((v) => v !== undefined && v !== null, { message: 'pre_snapshot is required' }) });
export const CopilotSessionQuery = z.object({ workflow_id: z.string({ error: 'workflow_id is required' }).min(1, 'workflow_id is required') });
export const CopilotModelBody = z.object({ model: z.string({ error: 'model is required' }).trim().min(1, 'model is required') });

export function copilotRoutes(calls: AiCalls, chat: CopilotChat, settings: Settings, stop: AbortSignal): Router {
  const r = express.Router();
  const copilot = copilotStore(calls);
  const session = (req: express.Request) => copilot.session(req, idOf(req.params.id, 'Session'));

  // The caller's session for a workflow: made if none exists (201), else the existing one (200).
  r.post('/sessions', route(async (req, res) => {
    const opened = await copilot.open(req, await copilot.workflow(req, parse(CopilotSessionBody, req.body ?? {}).workflow_id));
    res.status(opened.made ? 201 : 200).json(opened.session);
  }));
  // The caller's session for a workflow, or 404 (nothing is made).
  r.get('/sessions', route(async (req, res) => {
    const { workflow_id: raw } = parse(CopilotSessionQuery, req.query);
    const row = await copilot.mine(req, await copilot.workflow(req, raw));
    if (!row) throw aiErrors.notFound('Session');
    res.json(row);
  }));
  r.delete('/sessions/:id', route(async (req, res) => {
    const s = await session(req);
    await copilot.remove(req, s.id);
    res.json({ message: 'Session deleted', id: s.id });
  }));
  r.get('/sessions/:id/messages', route(async (req, res) => {
    res.json(await copilot.messages(req, (await session(req)).id));
  }));
  // Saves the editor's graph before applying a message's proposal (and the proposal), for undo.
  r.post('/sessions/:id/messages/:mid/snapshot', route(async (req, res) => {
    const s = await session(req);
    const mid = idOf(req.params.mid, 'Message');
    const body = parse(CopilotSnapshotBody, req.body ?? {});
    const row = await copilot.saveSnapshot(req, s.id, mid, body.pre_snapshot);
    res.json({ message_id: row.id, pre_snapshot: row.pre_snapshot, post_snapshot: row.post_snapshot, saved_at: row.snapshot_at });
  }));

  // The chat: server-sent events of spec 6.2. Bad input and unknown sessions are plain HTTP errors.
  r.post('/sessions/:id/chat', route(async (req, res) => {
    const body = parse(CopilotChatBody, req.body ?? {});
    const s = await session(req);
    await streamEvents(res, stop, (life, send) => chat.chat(contextOf(req), s, body, life.signal, send));
  }));

  r.get('/settings/model', route(async (req, res) => {
    res.json({ model: await settings.string('copilot_model'), default: await copilot.defaultModel(), options: await copilot.models(req) });
  }));
  r.put('/settings/model', route(async (req, res) => {
    const { model } = parse(CopilotModelBody, req.body ?? {});
    await copilot.setModel(req, model);
    res.json({ model });
  }));

  return r;
}
