// The tools one caller is offered over MCP, built fresh each time they are
// listed or called (so the list is always what the access model allows now):
//
//   workflow_<name>   a deployed workflow's active version, run as the caller;
//                     its input schema from the starter's `config.inputs`
//                     (a JSON Schema object, or a list of {name, type,
//                     description?, required?}); without one, any object
//   agent_<name>      {message, session_id?}: one agent run, answering its reply
//   search_<name>     {query, top_k?}: a knowledge base's search
//
// Names keep [A-Za-z0-9_-] (others become _), at most 64 characters; a name
// taken twice gets _2, _3, ... in list order (the caller's and the project's
// resources are listed oldest first).
import type { RequestContext } from '../../../db/as-role.ts';
import type { InProcessStorage } from '../../storage/in-process.ts';
import type { AgentRunner } from '../agents/run.ts';
import { Failure, Parked } from '../failures.ts';
import type { AgentRow } from '../agents/store.ts';
import type { Emit } from '../steps/events.ts';
import { agentAnswer } from '../agents/run-answer.ts';
import type { AiCalls } from '../calls.ts';
import { followEvents, type RunServices } from '../runs/follow.ts';
import { recordedRun } from '../runs/recorded.ts';
import { actorOf } from '../actor.ts';
import type { RunLimiter } from '../runs/limiter.ts';
import { checkRunMessage } from '../sessions/limits.ts';
import { detachedLifetime } from '../runs/lifetime.ts';
import type { knowledgeSearch } from '../knowledge/search.ts';
import { runFailure, type WorkflowRuns } from '../workflows/runs.ts';
import type { DeployedWorkflow, McpStore } from './store.ts';

type JsonSchema = Record<string, unknown>;
export type McpTool = { name: string; description: string; inputSchema: JsonSchema; call: (args: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>> };
/** events: where an agent tool's run keeps its events, and how a parked one is followed to its end. */
export type McpServices = { store: McpStore; agents: AgentRunner; runs: WorkflowRuns; search: ReturnType<typeof knowledgeSearch>; storage: InProcessStorage; limiter: RunLimiter; events: RunServices; calls: AiCalls };

const ANY_OBJECT: JsonSchema = { type: 'object', additionalProperties: true };
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

/** A starter's declared inputs as a JSON Schema object. */
export function inputSchemaOf(starter: Record<string, unknown> | null): JsonSchema {
  const inputs = starter?.inputs;
  if (inputs && typeof inputs === 'object' && !Array.isArray(inputs) && (inputs as JsonSchema).type === 'object') return inputs as JsonSchema;
  if (!Array.isArray(inputs) || inputs.length === 0) return ANY_OBJECT;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const input of inputs as Array<Record<string, unknown>>) {
    if (typeof input?.name !== 'string' || !input.name) continue;
    properties[input.name] = {
      type: typeof input.type === 'string' && TYPES.has(input.type) ? input.type : 'string',
      ...(typeof input.description === 'string' ? { description: input.description } : {}),
    };
    if (input.required === true) required.push(input.name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** Names MCP clients accept, unique in the list. */
function namer() {
  const taken = new Set<string>();
  return (prefix: string, name: string): string => {
    const base = `${prefix}_${name.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 60);
    let out = base;
    for (let i = 2; taken.has(out); i++) out = `${base}_${i}`;
    taken.add(out);
    return out;
  };
}

const AGENT_INPUT: JsonSchema = {
  type: 'object',
  properties: { message: { type: 'string', description: 'What to ask the agent' }, session_id: { type: 'string', description: 'Continue this session (from an earlier answer)' } },
  required: ['message'],
};
const SEARCH_INPUT: JsonSchema = {
  type: 'object',
  properties: { query: { type: 'string' }, top_k: { type: 'integer', minimum: 1, maximum: 100, description: 'How many results (the knowledge base\'s own default otherwise)' } },
  required: ['query'],
};

export async function toolsFor(caller: RequestContext, s: McpServices): Promise<McpTool[]> {
  const name = namer();
  const [workflows, agents, kbs] = await Promise.all([s.store.workflows(caller), s.store.agents(caller), s.store.knowledgeBases(caller)]);
  const workflow = (w: DeployedWorkflow): McpTool => ({
    name: name('workflow', w.name),
    description: w.description || `Run the workflow "${w.name}" (its deployed version) and answer its output`,
    inputSchema: inputSchemaOf(w.starter),
    call: async (args, signal) => {
      const done = await workflowRun(s, caller, w.id, args, signal);
      return { execution_id: done.execution_id, output: done.output };
    },
  });
  return [
    ...workflows.map(workflow),
    ...agents.map((a): McpTool => ({
      name: name('agent', a.name),
      description: a.system_prompt ? `Ask the agent "${a.name}": ${a.system_prompt.slice(0, 300)}` : `Ask the agent "${a.name}"`,
      inputSchema: AGENT_INPUT,
      call: async (args, signal) => {
        if (typeof args.message !== 'string' || !args.message.trim()) throw new Failure('message is required');
        checkRunMessage(args.message);
        const sessionId = typeof args.session_id === 'string' && args.session_id ? args.session_id.toLowerCase() : undefined;
        s.limiter.take('agent', actorOf(caller));
        const run = await agentRun(s, caller, a, { message: args.message, sessionId }, signal);
        return { output: run.output, session_id: run.session_id, run_id: run.run_id, stop_reason: run.stop_reason, usage: run.usage };
      },
    })),
    ...kbs.map((kb): McpTool => ({
      name: name('search', kb.name),
      description: kb.description ? `Search the knowledge base "${kb.name}": ${kb.description}` : `Search the knowledge base "${kb.name}"`,
      inputSchema: SEARCH_INPUT,
      call: async (args) => {
        if (typeof args.query !== 'string' || !args.query.trim()) throw new Failure('query is required');
        const answer = await s.search(caller, kb.id, { query: args.query, ...(typeof args.top_k === 'number' ? { top_k: args.top_k } : {}) });
        return { knowledge_base_id: kb.id, results: answer.results };
      },
    })),
  ];
}

/**
 * A run a tool starts, durable as a route's (its events kept): when it
 * parks (an approval, a wait block), the tool call waits, following the
 * run's events, until a worker has carried it to its end, whose last event
 * is handed to `ended`.
 */
async function untilEnded<R>(s: McpServices, caller: RequestContext, kind: 'agent' | 'workflow', signal: AbortSignal, start: (push: (event: object) => void) => Promise<R>, ended: (runId: string, last: Record<string, unknown>) => Promise<R> | R): Promise<R> {
  try {
    // A workflow's failure is told in its own events' shape.
    return await recordedRun(s.events.log, kind, start, kind === 'workflow' ? runFailure : undefined);
  } catch (err) {
    if (!(err instanceof Parked)) throw err;
    const last = await followEvents({ ...s.events, caller, kind, runId: err.runId }, 0, () => undefined, signal);
    if (!last || last.type === 'error' || (last.type !== 'complete' && last.type !== 'run_completed')) throw new Failure(typeof last?.error === 'string' ? last.error : 'The run did not finish');
    return ended(err.runId, last);
  }
}

/** An agent tool's run; its answer read back when it parked. */
const agentRun = (s: McpServices, caller: RequestContext, agent: AgentRow, input: { message: string; sessionId: string | undefined }, signal: AbortSignal) =>
  untilEnded(s, caller, 'agent', signal, (push) => s.agents.run(caller, agent, input, detachedLifetime(signal), push as Emit, { durable: true }), agentAnswer(s.calls, caller));

/** A workflow tool's run of the deployed version; its output is its last event's when it parked. */
const workflowRun = (s: McpServices, caller: RequestContext, workflowId: string, variables: Record<string, unknown>, signal: AbortSignal) =>
  untilEnded(s, caller, 'workflow', signal, (push) => s.runs.runDeployed(caller, workflowId, variables, signal, push),
    (runId, last) => ({ execution_id: runId, status: 'succeeded' as const, output: last.output }));
