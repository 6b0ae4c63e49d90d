// /api/agents and /api/orchestrations (spec 4.9, 4.10).
import { z } from 'zod';
import { AgentBody, AgentPatch, AgentRunBody, AgentRunsQuery, ApprovalBody, OverrideBody, SubAgentAssignBody, ToolAssignBody } from '../../ai/agents/routes.ts';
import { KnowledgeBaseAssignBody } from '../../ai/agents/knowledge-bases.ts';
import { McpServerBody, McpServerChange } from '../../ai/agents/mcp-servers.ts';
import { hookBody } from '../../ai/agents/hooks.ts';
import { EntityBody, EntityChange, OrchestrationBody, OrchestrationChange, OrchestrationRunBody } from '../../ai/orchestrations/routes.ts';
import { events, family, json, type Operation } from '../operation.ts';
import { EventsQuery } from '../../ai/runs/follow.ts';
import { Agent, AgentRunRecord, AgentRunResult, Approval, Deleted, Entity, Hook, KnowledgeBaseAssignment, McpServer, Orchestration, OrchestrationRunRecord, OrchestrationRunResult, RunEvent, RunRecord, ToolAssignment } from '../schemas.ts';

const agents = family({ tag: 'Agents', errorBody: 'ai', access: 'project' });
const orchestrations = family({ tag: 'Orchestrations', errorBody: 'ai', access: 'project' });
const streamed = 'Server-sent events, one JSON object per `data:` line with its number as `id:`, `start` first and `complete` (or `error`) last; failures before the stream starts are plain HTTP errors. Leaving does not stop the run: GET …/runs/{run_id}/events picks it up again';
const numbered = 'Server-sent events as the run\'s stream sent them, each with its `id:` number, until the run\'s last event';
const following = 'With no cursor, from the first event; with `Last-Event-ID: K` (or `?after=K`), exactly the events after K; then new events, from whichever replica runs it, until the run ends.';
const Cancelled = z.object({ cancelled: z.boolean(), run_id: z.string() });

// The route parses one or the other: agent_id without tool_name assigns a sub-agent.
const AssignBody = z.union([ToolAssignBody, SubAgentAssignBody]);

function hookOperations(f: ReturnType<typeof family>, base: string, what: string, strict: boolean): Operation[] {
  return [
    f.get(`${base}/{id}/hooks`, `List the ${what}'s hooks`, { operationId: `list${what}Hooks`, answers: [json(200, 'Hooks by position', z.array(Hook))], errors: [404] }),
    f.post(`${base}/{id}/hooks`, `Add a hook to the ${what}`, { operationId: `create${what}Hook`, body: hookBody(strict), answers: [json(201, 'The hook', Hook)], errors: [400, 404] }),
    f.put(`${base}/{id}/hooks/{hookId}`, 'Hooks are immutable', { operationId: `put${what}Hook`, answers: [], errors: [405] }),
    f.patch(`${base}/{id}/hooks/{hookId}`, 'Hooks are immutable', { operationId: `patch${what}Hook`, answers: [], errors: [405] }),
    f.delete(`${base}/{id}/hooks/{hookId}`, `Delete a hook of the ${what}`, { operationId: `delete${what}Hook`, answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  ];
}

export const agentOperations: Operation[] = [
  agents.get('/api/agents', 'List the agents you can see', { operationId: 'listAgents', answers: [json(200, 'Your agents and the project\'s', z.array(Agent))] }),
  agents.post('/api/agents', 'Create an agent', { operationId: 'createAgent', body: AgentBody, answers: [json(201, 'The agent', Agent)], errors: [400] }),
  agents.get('/api/agents/{id}', 'Read an agent', { operationId: 'getAgent', answers: [json(200, 'The agent', Agent)], errors: [404] }),
  agents.patch('/api/agents/{id}', 'Change an agent', { operationId: 'updateAgent', body: AgentPatch, answers: [json(200, 'The agent', Agent)], errors: [400, 404] }),
  agents.delete('/api/agents/{id}', 'Delete an agent', { operationId: 'deleteAgent', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  agents.get('/api/agents/{id}/tools', 'List the agent\'s tool assignments', { operationId: 'listAgentTools', answers: [json(200, 'Assignments', z.array(ToolAssignment))], errors: [404] }),
  agents.post('/api/agents/{id}/tools', 'Assign a builtin or custom tool (tool_name) or a sub-agent (agent_id)', { operationId: 'assignAgentTool', body: AssignBody, answers: [json(201, 'The assignment', ToolAssignment)], errors: [400, 404] }),
  agents.patch('/api/agents/{id}/tools/{assignmentId}', 'Set a builtin tool\'s config_override', { operationId: 'updateAgentTool', body: OverrideBody, answers: [json(200, 'The assignment', ToolAssignment)], errors: [400, 404] }),
  agents.delete('/api/agents/{id}/tools/{assignmentId}', 'Remove a tool assignment', { operationId: 'unassignAgentTool', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  agents.post('/api/agents/{id}/run', 'Run the agent on a message', {
    operationId: 'runAgent', description: 'Without session_id a session is created for the caller. The answer comes when the run ends (an approval may hold it, parked: 409 if it is cancelled meanwhile). 503 when the server stopped before the run ended: the run goes on elsewhere; follow its events (run_id in the body).',
    body: AgentRunBody, answers: [json(200, 'The run\'s result', AgentRunResult)], errors: [400, 402, 404, 409, 502, 503, 504],
  }),
  agents.post('/api/agents/{id}/run/stream', 'Run the agent, streaming its events', { operationId: 'streamAgentRun', body: AgentRunBody, answers: [events(streamed, RunEvent)], errors: [400, 402, 404] }),
  agents.get('/api/agents/{id}/runs', 'The agent\'s runs, newest first', { operationId: 'listAgentRuns', query: AgentRunsQuery, answers: [json(200, 'Runs you can see', z.array(RunRecord))], errors: [400, 404] }),
  agents.get('/api/agents/{id}/runs/{runId}', 'Read a run: status, output, usage, messages and approvals', { operationId: 'getAgentRun', answers: [json(200, 'The run', AgentRunRecord)], errors: [404] }),
  agents.get('/api/agents/{id}/runs/{runId}/events', 'Follow a run: its stored events, then new ones until it ends', { operationId: 'followAgentRun', description: following, query: EventsQuery, answers: [events(numbered, RunEvent)], errors: [400, 404] }),
  agents.post('/api/agents/{id}/runs/{runId}/cancel', 'Cancel a run, from any replica', { operationId: 'cancelAgentRun', answers: [json(200, 'Whether it was still going', Cancelled)], errors: [404] }),
  agents.post('/api/agents/{id}/runs/{runId}/approvals/{approvalId}', 'Answer an approval_requested event', { operationId: 'decideApproval', body: ApprovalBody, bodyOptional: true, answers: [json(200, 'The approval', Approval)], errors: [400, 404, 409] }),
  agents.get('/api/agents/{id}/mcp-servers', 'List the agent\'s MCP servers', { operationId: 'listAgentMcpServers', answers: [json(200, 'Servers', z.array(McpServer))], errors: [404] }),
  agents.post('/api/agents/{id}/mcp-servers', 'Add an MCP server to the agent', { operationId: 'createAgentMcpServer', body: McpServerBody, answers: [json(201, 'The server', McpServer)], errors: [400, 404] }),
  agents.put('/api/agents/{id}/mcp-servers/{serverId}', 'Change an MCP server', { operationId: 'updateAgentMcpServer', body: McpServerChange, answers: [json(200, 'The server', McpServer)], errors: [400, 404] }),
  agents.get('/api/agents/{id}/mcp-servers/{serverId}/tools', 'Ask an MCP server for its tools', {
    operationId: 'listAgentMcpServerTools',
    description: 'Connects to the server now (enabled or not, with its stored headers, through the outbound address check), lists its tools and hangs up. offered_as is the name the agent\'s model sees. 502 MCP_SERVER_UNREACHABLE when it cannot be reached or listed in MCP_TOOL_TIMEOUT.',
    answers: [json(200, 'The server\'s tools', z.array(z.object({ name: z.string(), offered_as: z.string(), description: z.string().nullable(), input_schema: z.record(z.string(), z.unknown()) })))],
    errors: [404, 502],
  }),
  agents.delete('/api/agents/{id}/mcp-servers/{serverId}', 'Remove an MCP server', { operationId: 'deleteAgentMcpServer', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  agents.get('/api/agents/{id}/knowledge-bases', 'List the agent\'s knowledge bases', { operationId: 'listAgentKnowledgeBases', answers: [json(200, 'Assignments', z.array(KnowledgeBaseAssignment))], errors: [404] }),
  agents.post('/api/agents/{id}/knowledge-bases', 'Give the agent a knowledge base (a search tool)', { operationId: 'assignAgentKnowledgeBase', body: KnowledgeBaseAssignBody, answers: [json(201, 'The assignment', KnowledgeBaseAssignment)], errors: [400, 404] }),
  agents.delete('/api/agents/{id}/knowledge-bases/{assignmentId}', 'Take a knowledge base from the agent', { operationId: 'unassignAgentKnowledgeBase', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  ...hookOperations(agents, '/api/agents', 'Agent', false),
];

export const orchestrationOperations: Operation[] = [
  orchestrations.get('/api/orchestrations', 'List the orchestrations you can see', { operationId: 'listOrchestrations', answers: [json(200, 'Orchestrations', z.array(Orchestration))] }),
  orchestrations.post('/api/orchestrations', 'Create an orchestration', { operationId: 'createOrchestration', body: OrchestrationBody, answers: [json(201, 'The orchestration', Orchestration)], errors: [400] }),
  orchestrations.get('/api/orchestrations/{id}', 'Read an orchestration with its entities', { operationId: 'getOrchestration', answers: [json(200, 'The orchestration', Orchestration.extend({ entities: z.array(Entity) }))], errors: [404] }),
  orchestrations.put('/api/orchestrations/{id}', 'Change an orchestration', { operationId: 'updateOrchestration', body: OrchestrationChange, answers: [json(200, 'The orchestration', Orchestration)], errors: [400, 404] }),
  orchestrations.delete('/api/orchestrations/{id}', 'Delete an orchestration', { operationId: 'deleteOrchestration', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  orchestrations.get('/api/orchestrations/{id}/entities', 'List the members by position', { operationId: 'listEntities', answers: [json(200, 'Entities', z.array(Entity))], errors: [404] }),
  orchestrations.post('/api/orchestrations/{id}/entities', 'Add a member (`role` is accepted for role_description)', { operationId: 'createEntity', body: EntityBody, answers: [json(201, 'The entity', Entity)], errors: [400, 404] }),
  orchestrations.put('/api/orchestrations/{id}/entities/{entityId}', 'Change a member\'s role_description, config or position', { operationId: 'updateEntity', body: EntityChange, bodyOptional: true, answers: [json(200, 'The entity', Entity)], errors: [400, 404] }),
  orchestrations.delete('/api/orchestrations/{id}/entities/{entityId}', 'Remove a member', { operationId: 'deleteEntity', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  orchestrations.post('/api/orchestrations/{id}/run', 'Run the orchestration on a message', { operationId: 'runOrchestration', description: '503 when the server stopped before the run ended: the run goes on elsewhere; follow its events (run_id in the body).', body: OrchestrationRunBody, answers: [json(200, 'The run\'s result', OrchestrationRunResult)], errors: [400, 402, 404, 502, 503, 504] }),
  orchestrations.post('/api/orchestrations/{id}/run/stream', 'Run the orchestration, streaming its events and its delegations\'', { operationId: 'streamOrchestrationRun', body: OrchestrationRunBody, answers: [events(streamed, RunEvent)], errors: [400, 402, 404] }),
  orchestrations.get('/api/orchestrations/runs/{runId}/events', 'Follow a run: its stored events, then new ones until it ends', { operationId: 'followOrchestrationRun', description: following, query: EventsQuery, answers: [events(numbered, RunEvent)], errors: [400, 404] }),
  orchestrations.post('/api/orchestrations/runs/{runId}/cancel', 'Cancel a run, from any replica', { operationId: 'cancelOrchestrationRun', answers: [json(200, 'Whether it was still going', Cancelled)], errors: [404] }),
  orchestrations.get('/api/orchestrations/runs/{runId}', 'Read an orchestration run with its delegations', { operationId: 'getOrchestrationRun', answers: [json(200, 'The run', OrchestrationRunRecord)], errors: [404] }),
  ...hookOperations(orchestrations, '/api/orchestrations', 'Orchestration', true),
];
