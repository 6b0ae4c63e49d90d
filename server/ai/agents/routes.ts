// /api/agents (spec 4.9): agents (name required, the model passed on
// unchanged, tuning only inside `settings`: top-level tuning fields are
// dropped) and their tool assignments with config_override's rules.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { contextOf, type AiCalls } from '../calls.ts';
import type { ApprovalDesk } from './approvals.ts';
import { runLifetime, streamRun } from '../runs/lifetime.ts';
import { followRun, type RunServices } from '../runs/follow.ts';
import { aiErrors } from '../errors.ts';
import { idOf, UUID, parse } from '../parse.ts';
import { builtinTool } from '../tools/builtin/index.ts';
import { hookRoutes } from './hooks.ts';
import { resourceSecrets } from '../tools/secrets.ts';
import type { AgentRunner } from './run.ts';
import { agentKnowledgeBaseRoutes } from './knowledge-bases.ts';
import type { McpTools } from './mcp-client.ts';
import { mcpServerRoutes } from './mcp-servers.ts';
import { agentStore } from './store.ts';
import { agentAnswer } from './run-answer.ts';
import { actorOf } from '../actor.ts';
import { runMessage } from '../sessions/limits.ts';
import { jsonRun } from '../runs/json-run.ts';
import { delegateToolName } from './loop.ts';

// Only these persist; temperature, max_tokens and friends belong in settings.
export const AgentBody = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200),
  model: z.string().max(200).nullable().optional(),
  system_prompt: z.string().max(100_000).nullable().optional(),
  settings: z.record(z.string(), z.unknown(), { error: 'settings must be an object' }).optional(),
});
export const AgentPatch = AgentBody.partial();
export const AgentRunBody = z.object({
  message: runMessage,
  session_id: z.string({ error: 'session_id must be a session id' }).regex(UUID, 'session_id must be a session id').optional(),
});
export const ApprovalBody = z.object({
  decision: z.enum(['approve', 'deny'], { error: 'decision must be "approve" or "deny"' }),
  arguments: z.record(z.string(), z.unknown(), { error: 'arguments must be an object' }).optional(),
});
export const ToolAssignBody = z.object({ tool_name: z.string({ error: 'tool_name is required' }).min(1, 'tool_name is required') });
// Our addition: a sub-agent assigned by its id, offered as delegate_to_<name>.
export const SubAgentAssignBody = z.object({ agent_id: z.string({ error: 'agent_id must be an agent id' }).regex(UUID, 'agent_id must be an agent id').transform((s) => s.toLowerCase()) });
export const AgentRunsQuery = z.object({ limit: z.coerce.number({ error: 'limit must be an integer from 1 to 500' }).int().min(1).max(500).default(100) });
export const OverrideBody = z.object({ config_override: z.record(z.string(), z.unknown(), { error: 'config_override must be an object' }) });

export function agentRoutes(calls: AiCalls, masterKey: string, runner: AgentRunner, approvals: ApprovalDesk, runs: RunServices, mcp: McpTools): Router {
  const { stop } = runs;
  const r = express.Router();
  const agents = agentStore(calls);

  r.get('/', route(async (req, res) => {
    res.json(await agents.list(req));
  }));
  r.post('/', route(async (req, res) => {
    const body = parse(AgentBody, req.body);
    res.status(201).json(await agents.create(req, body));
  }));
  r.get('/:id', route(async (req, res) => {
    res.json(await agents.get(req, idOf(req.params.id, 'Agent')));
  }));
  r.patch('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const body = parse(AgentPatch, req.body);
    // Top-level tuning fields (temperature, max_tokens, top_p, ...) are dropped silently, as on create
    // (spec 2.3b): a body of only those changes nothing and answers the agent. An empty body is a 400.
    const sent = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? Object.keys(req.body as object).length : 0;
    if (sent === 0) throw aiErrors.validation('No fields to update: send name, model, system_prompt or settings');
    res.json(await agents.update(req, id, body));
  }));
  r.delete('/:id', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    await agents.remove(req, id);
    res.json({ message: 'Agent deleted', id });
  }));

  // Tool assignments: a builtin by its name, or a custom tool the caller can see by its name.
  r.get('/:id/tools', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    await agents.get(req, id);
    res.json(await agents.assignments(req, id));
  }));
  // A builtin or custom tool by tool_name, or a sub-agent by agent_id (our
  // addition: offered as delegate_to_<name>, where OnDelegation hooks fire).
  r.post('/:id/tools', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.agent_id !== undefined && body.tool_name === undefined) {
      const subId = parse(SubAgentAssignBody, body).agent_id;
      await agents.requireOwn(req, id);
      if (subId === id) throw aiErrors.validation('An agent cannot be its own sub-agent');
      const sub = await agents.get(req, subId).catch(() => {
        throw aiErrors.validation(`agent_id "${subId}" is not an agent you can use`);
      });
      return void res.status(201).json(await agents.assign(req, id, delegateToolName(sub.name), 'agent', null, subId));
    }
    const { tool_name: name } = parse(ToolAssignBody, body);
    await agents.requireOwn(req, id);
    if (builtinTool(name)) return void res.status(201).json(await agents.assign(req, id, name, 'builtin', null));
    const custom = await agents.customTool(req, name);
    if (!custom) throw aiErrors.validation(`Unknown tool "${name}": use a builtin tool or the name of a custom tool`);
    res.status(201).json(await agents.assign(req, id, name, 'custom', custom.id));
  }));
  r.patch('/:id/tools/:assignmentId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const assignment = await agents.assignment(req, id, idOf(req.params.assignmentId, 'Tool assignment'));
    const body = (req.body ?? {}) as Record<string, unknown>;
    // Only a body with config_override changes anything (spec 4.9); custom tools and sub-agents ignore it.
    if (!('config_override' in body) || assignment.tool_type !== 'builtin') return void res.json(assignment);
    const override = parse(OverrideBody, body).config_override;
    await agents.requireOwn(req, id);
    // The tool's override kind decides (tools/types.ts): schemas checked against the catalogue, or only keys naming a parameter.
    const tool = builtinTool(assignment.tool_name)!;
    const stored = tool.override === 'schemas'
      ? await agents.checkDatabaseOverride(req, override)
      : Object.fromEntries(Object.entries(override).filter(([k]) => Object.hasOwn(tool.inputSchema.properties, k)));
    res.json(await agents.setOverride(req, id, assignment.id, stored));
  }));
  r.delete('/:id/tools/:assignmentId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    await agents.requireOwn(req, id);
    await agents.unassign(req, id, idOf(req.params.assignmentId, 'Tool assignment'));
    res.json({ message: 'Tool assignment deleted' });
  }));

  // A run: {message, session_id?}; without session_id a session is created for the caller.
  // Its events are kept as a stream's are (the model's text is not streamed):
  // a client that lost the answer follows GET …/runs/{run_id}/events.
  r.post('/:id/run', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const body = parse(AgentRunBody, req.body);
    const caller = contextOf(req);
    const { agent, setup } = await runner.forRun(caller, id);
    runs.limiter.take('agent', actorOf(caller));
    const life = runLifetime(res, stop, { detached: true });
    res.json(await jsonRun(res, { ...runs, caller }, 'agent', (push) =>
      runner.run(caller, agent, { message: body.message, sessionId: body.session_id?.toLowerCase() }, life, push, { streamModel: false, durable: true, inWorker: runs.inWorker, setup }), agentAnswer(calls, caller)));
  }));

  // The same run as server-sent events, `data: {type, ...}` as workflow streams
  // are: start, content_delta, tool_call, tool_result, hook, hook_error,
  // approval_requested, approval_resolved, mcp_error, usage, complete, or
  // error (a failure after the stream began; earlier ones are plain HTTP errors).
  r.post('/:id/run/stream', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const body = parse(AgentRunBody, req.body);
    const caller = contextOf(req);
    const { agent, setup } = await runner.forRun(caller, id);
    runs.limiter.take('agent', actorOf(caller));
    const sessionId = body.session_id?.toLowerCase();
    if (sessionId) await runner.requireSession(caller, sessionId);
    await streamRun(res, stop, { log: runs.log, kind: 'agent', follow: { ...runs, caller } }, (life, send) => runner.run(caller, agent, { message: body.message, sessionId }, life, send, { durable: true, inWorker: runs.inWorker, setup }));
  }));

  // The run's events, numbered: from the first, or after Last-Event-ID / ?after=; then new ones until the run ends.
  r.get('/:id/runs/:runId/events', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const runId = idOf(req.params.runId, 'Run');
    await agents.requireRun(req, id, runId);
    await followRun(req, res, { ...runs, caller: contextOf(req), kind: 'agent', runId, stop });
  }));

  // Stops the run at once, from any replica (the process running it hears of it); its record says cancelled.
  r.post('/:id/runs/:runId/cancel', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const runId = idOf(req.params.runId, 'Run');
    await agents.requireRun(req, id, runId);
    res.json({ cancelled: await agents.cancelRun(runId), run_id: runId });
  }));

  // The agent's run history, newest first (an agent the caller cannot see is 404).
  r.get('/:id/runs', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const { limit } = parse(AgentRunsQuery, req.query);
    await agents.get(req, id);
    res.json(await agents.runs(req, id, limit));
  }));

  // A run's record: status (running, waiting_approval, completed, failed), output, usage, its messages and approvals.
  r.get('/:id/runs/:runId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    res.json(await agents.run(req, id, idOf(req.params.runId, 'Run')));
  }));

  // The answer to an approval_requested event: {decision: "approve" | "deny", arguments?}.
  r.post('/:id/runs/:runId/approvals/:approvalId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const body = parse(ApprovalBody, req.body ?? {});
    const row = await approvals.decide(contextOf(req), id, idOf(req.params.runId, 'Run'), idOf(req.params.approvalId, 'Approval'), body.decision, body.arguments);
    res.json(row);
  }));

  mcpServerRoutes(r, calls, agents, masterKey, mcp);
  agentKnowledgeBaseRoutes(r, calls, agents);
  hookRoutes(r, calls, resourceSecrets(calls, masterKey), { table: 'ai.agent_hooks', column: 'agent_id', label: 'Agent', get: agents.get, requireOwn: agents.requireOwn, strict: false });

  return r;
}
