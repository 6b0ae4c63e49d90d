// /api/orchestrations (spec 2.4b, 4.10): orchestrations (a coordinator's
// name, strategy, model, prompt and settings), their entities (members; only
// role_description, config and position change once made) and their hooks
// (stored, listed, deleted, never fired), and runs (run.ts): JSON or
// server-sent events, and their records with delegations and usage.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { runLifetime, streamRun } from '../runs/lifetime.ts';
import { followRun, type RunServices } from '../runs/follow.ts';
import { actorOf } from '../actor.ts';
import { runMessage } from '../sessions/limits.ts';
import { jsonRun } from '../runs/json-run.ts';
import { hookRoutes } from '../agents/hooks.ts';
import type { ResourceSecrets } from '../tools/secrets.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, UUID, parse } from '../parse.ts';
import type { OrchestrationRow, OrchestrationRunner } from './run.ts';
import { orchestrationStore } from './store.ts';
import { requireSession } from '../sessions/conversation.ts';


export const OrchestrationBody = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200),
  strategy: z.string({ error: 'strategy must be a string' }).trim().min(1, 'strategy must not be empty').max(50, 'strategy is at most 50 characters').optional(),
  model: z.string().max(200).nullable().optional(),
  system_prompt: z.string().max(100_000).nullable().optional(),
  settings: z.record(z.string(), z.unknown(), { error: 'settings must be an object' }).optional(),
});
export const OrchestrationChange = OrchestrationBody.partial();

const Position = z.number({ error: 'position must be an integer' }).int('position must be an integer').min(-2147483648).max(2147483647);
const Config = z.record(z.string(), z.unknown(), { error: 'config must be an object' });
const RoleDescription = z.string({ error: 'role_description must be a string' }).max(10_000).nullable();
export const EntityBody = z.object({
  entity_type: z.string({ error: 'entity_type is required' }).trim().min(1, 'entity_type is required').max(50, 'entity_type is at most 50 characters'),
  entity_ref_id: z.string({ error: 'entity_ref_id is required' }).trim().min(1, 'entity_ref_id is required').max(200),
  role_description: RoleDescription.optional(),
  config: Config.optional(),
  position: Position.optional(),
});
export const EntityChange = z.object({ role_description: RoleDescription.optional(), config: Config.optional(), position: Position.optional() });

/** Part 9's alias: an entity's `role` is its `role_description` (accepted, never emitted). */
function withRoleAlias(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const b = body as Record<string, unknown>;
  if (!('role_description' in b) && 'role' in b) {
    const { role, ...rest } = b;
    return { ...rest, role_description: role };
  }
  return b;
}

export const OrchestrationRunBody = z.object({
  message: runMessage,
  session_id: z.string({ error: 'session_id must be a session id' }).regex(UUID, 'session_id must be a session id').optional(),
});

export function orchestrationRoutes(calls: AiCalls, secrets: ResourceSecrets, runner: OrchestrationRunner, runs: RunServices): Router {
  const { stop } = runs;
  const r = express.Router();
  const store = orchestrationStore(calls);

  // A run's record: its status, output, usage and delegations (each with its member's output and usage).
  r.get('/runs/:runId', route(async (req, res) => {
    res.json(await store.run(req, idOf(req.params.runId, 'Run')));
  }));
  // Its events, numbered: from the first, or after Last-Event-ID / ?after=; then new ones until the run ends.
  r.get('/runs/:runId/events', route(async (req, res) => {
    const runId = idOf(req.params.runId, 'Run');
    await store.requireRun(req, runId);
    await followRun(req, res, { ...runs, caller: contextOf(req), kind: 'orchestration', runId });
  }));
  // Stops the run at once, from any replica; its record says cancelled.
  r.post('/runs/:runId/cancel', route(async (req, res) => {
    const runId = idOf(req.params.runId, 'Run');
    await store.requireRun(req, runId);
    res.json({ cancelled: await store.cancelRun(runId), run_id: runId });
  }));

  r.get('/', route(async (req, res) => {
    res.json(await store.list(req));
  }));
  r.post('/', route(async (req, res) => {
    res.status(201).json(await store.create(req, parse(OrchestrationBody, req.body)));
  }));
  r.get('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    const row = await store.get(req, id);
    res.json({ ...row, entities: await store.entities(req, id) });
  }));
  r.put('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    const body = parse(OrchestrationChange, req.body);
    if (Object.keys(body).length === 0) throw aiErrors.validation('No fields to update: send name, strategy, model, system_prompt or settings');
    res.json(await store.update(req, id, body));
  }));
  r.delete('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    await store.remove(req, id);
    res.json({ message: 'Orchestration deleted', id });
  }));

  r.get('/:id/entities', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    await store.get(req, id);
    res.json(await store.entities(req, id));
  }));
  r.post('/:id/entities', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    const body = parse(EntityBody, withRoleAlias(req.body));
    await store.requireOwn(req, id);
    // An agent member must be an agent the caller can see; other types are kept as given and skipped at run time.
    if (body.entity_type === 'agent' && !(UUID.test(body.entity_ref_id) && (await store.agentVisible(req, body.entity_ref_id.toLowerCase())))) {
      throw aiErrors.validation(`entity_ref_id "${body.entity_ref_id}" is not an agent you can use`);
    }
    res.status(201).json(await store.addEntity(req, id, { ...body, entity_ref_id: body.entity_type === 'agent' ? body.entity_ref_id.toLowerCase() : body.entity_ref_id }));
  }));
  r.put('/:id/entities/:entityId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    const entityId = idOf(req.params.entityId, 'Entity');
    // Only role_description, config and position are writable; other keys are ignored (spec 4.10).
    const change = parse(EntityChange, withRoleAlias(req.body ?? {}));
    const current = await store.entity(req, id, entityId);
    if (Object.keys(change).length === 0) return void res.json(current);
    await store.requireOwn(req, id);
    res.json(await store.changeEntity(req, id, entityId, change));
  }));
  r.delete('/:id/entities/:entityId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    const entityId = idOf(req.params.entityId, 'Entity');
    await store.entity(req, id, entityId);
    await store.requireOwn(req, id);
    await store.removeEntity(req, id, entityId);
    res.json({ message: 'Entity deleted', id: entityId });
  }));

  // A run: {message, session_id?}, as agent runs take.
  r.post('/:id/run', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    const body = parse(OrchestrationRunBody, req.body);
    const orchestration = await store.get(req, id) as unknown as OrchestrationRow;
    // Its events are kept as a stream's are (GET /runs/{run_id}/events), without the model's text streamed.
    const caller = contextOf(req);
    runs.limiter.take('agent', actorOf(caller));
    const life = runLifetime(res, stop, { detached: true });
    res.json(await jsonRun(res, { ...runs, caller }, 'orchestration', (push) =>
      runner.run(caller, orchestration, { message: body.message, sessionId: body.session_id?.toLowerCase() }, life, push, { streamModel: false, durable: true, inWorker: runs.inWorker }),
    (runId) => runner.answer(caller, runId)));
  }));

  // The same as server-sent events: start, entity_skipped, content_delta, tool_call, delegation_started,
  // delegation_delta and the member's tool_call / tool_result (with delegation_id), delegation_completed,
  // tool_result, usage, complete, or error.
  r.post('/:id/run/stream', route(async (req, res) => {
    const id = idOf(req.params.id, 'Orchestration');
    const body = parse(OrchestrationRunBody, req.body);
    const orchestration = await store.get(req, id) as unknown as OrchestrationRow;
    const caller = contextOf(req);
    const sessionId = body.session_id?.toLowerCase();
    if (sessionId) await requireSession(calls, caller, sessionId);
    runs.limiter.take('agent', actorOf(caller));
    await streamRun(res, stop, { log: runs.log, kind: 'orchestration', follow: { ...runs, caller } }, (life, send) =>
      runner.run(caller, orchestration, { message: body.message, sessionId }, life, send, { durable: true, inWorker: runs.inWorker }));
  }));

  hookRoutes(r, calls, secrets, { table: 'ai.orchestration_hooks', column: 'orchestration_id', label: 'Orchestration', get: store.get, requireOwn: store.requireOwn, strict: true });
  return r;
}
