// /api/sessions (spec 4.14, 2.9): a user's conversations with their messages
// and runs. Sessions are private to their owner (another user's is 404).
// Listing every session of the caller (GET /api/sessions) is our addition.
import express, { type Router } from 'express';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { idOf } from '../parse.ts';
import { sessionStore } from './store.ts';

/** `attachments`: removes a deleted session's images and files (agents/attachments.ts, handed in by index.ts). */
export function sessionRoutes(calls: AiCalls, attachments: { removeSession: (sessionId: string) => Promise<void> }): Router {
  const r = express.Router();
  const sessions = sessionStore(calls);
  /** The session of the path, 404 unless it is the caller's. */
  const session = async (req: express.Request) => {
    const id = idOf(req.params.id, 'Session');
    return { id, row: await sessions.get(req, id) };
  };

  r.get('/', route(async (req, res) => {
    res.json(await sessions.list(req));
  }));
  r.get('/:id', route(async (req, res) => {
    res.json((await session(req)).row);
  }));
  r.get('/:id/messages', route(async (req, res) => {
    const { id } = await session(req);
    // Assembled for reading: tool calls and results as stored; assistant messages carry retrieved_context.
    res.json((await sessions.messages(req, id)).map(({ retrieved_context, tool_calls, tool_call_id, name, is_error, attachments, ...m }) => ({
      ...m,
      // A user's images and files (/api/v1): what they are, not their bytes (those are in storage).
      ...(m.role === 'user' ? { attachments: (attachments as Array<Record<string, unknown>>).map(({ type, mime, bytes, filename }) => ({ type, mime, bytes, ...(filename ? { filename } : {}) })) } : {}),
      ...(m.role === 'assistant' ? { tool_calls: tool_calls ?? [], retrieved_context } : {}),
      ...(m.role === 'tool' ? { tool_call_id, name, is_error } : {}),
    })));
  }));
  r.get('/:id/runs', route(async (req, res) => {
    const { id } = await session(req);
    res.json(await sessions.runs(req, id));
  }));
  r.get('/:id/runs/:runId/retrieved-context', route(async (req, res) => {
    const { id } = await session(req);
    const runId = idOf(req.params.runId, 'Run');
    res.json({ session_id: id, run_id: runId, retrieved_context: await sessions.retrievedContext(req, id, runId) });
  }));
  r.delete('/:id', route(async (req, res) => {
    const { id } = await session(req);
    await sessions.remove(req, id);
    // Its messages' images and files go with it (their rows went with the session).
    await attachments.removeSession(id);
    res.json({ message: 'Session deleted', id });
  }));
  return r;
}
