// What /api answers, as zod schemas named in the document's components. Rows
// list the fields clients rely on; every object stays open (`loose`), since a
// row may gain a column without a new API version (spec part 9).
import { z } from 'zod';

/** The schemas the document lists by name under components.schemas. */
export const NAMED: Array<[id: string, schema: z.ZodType]> = [];
const name = <T extends z.ZodType>(id: string, schema: T): T => {
  NAMED.push([id, schema]);
  return schema;
};

export const Id = z.string().meta({ format: 'uuid' });
export const Timestamp = z.string().meta({ format: 'date-time' });
const Json = z.record(z.string(), z.unknown());
const row = <T extends z.ZodRawShape>(shape: T) => z.looseObject({ id: Id, ...shape });
const usage = { tokens_in: z.number(), tokens_out: z.number(), cost_usd: z.number() };

// Error bodies (spec part 7), one per shape a surface declares.
export const AiError = name('Error', z.looseObject({ error: z.string(), details: z.unknown().optional() }));
export const AiCodedError = name('CodedError', z.looseObject({ error: z.string(), error_code: z.string() }));
export const OpenAiError = name('OpenAiError', z.object({ error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }) }));
export const WebhookUnauthorized = name('WebhookUnauthorized', z.object({ error: z.literal('Unauthorized') }));

export const Deleted = name('Deleted', z.looseObject({ message: z.string(), id: z.string().optional() }));

export const Agent = name('Agent', row({ owner_id: Id.nullable(), name: z.string(), model: z.string().nullable(), system_prompt: z.string().nullable(), settings: Json, created_at: Timestamp, updated_at: Timestamp }));
export const ToolAssignment = name('ToolAssignment', row({ agent_id: Id, tool_name: z.string(), tool_type: z.enum(['builtin', 'custom', 'agent']), tool_id: Id.nullable(), sub_agent_id: Id.nullable(), config_override: Json, created_at: Timestamp }));
export const KnowledgeBaseAssignment = name('KnowledgeBaseAssignment', row({ agent_id: Id, knowledge_base_id: Id, name: z.string(), description: z.string().nullable(), indexing_strategy: z.string(), tool_name: z.string(), created_at: Timestamp }));
export const McpServer = name('McpServer', row({ agent_id: Id, name: z.string(), url: z.string(), transport: z.enum(['streamable_http', 'sse']), headers: z.record(z.string(), z.string()).meta({ description: 'Values masked but to the service role' }), enabled: z.boolean(), created_at: Timestamp, updated_at: Timestamp }));
export const Hook = name('Hook', row({ event: z.string(), type: z.string(), config: Json, matcher: z.string().nullable(), enabled: z.boolean(), position: z.number().int(), created_at: Timestamp }));
export const Approval = name('Approval', row({ run_id: Id, status: z.string() }));
export const RunUsage = name('RunUsage', z.looseObject(usage));
export const AgentRunResult = name('AgentRunResult', z.looseObject({
  session_id: Id, run_id: Id, status: z.literal('completed'), output: z.string(), stop_reason: z.enum(['answered', 'max_steps']), steps: z.number().int(),
  tool_calls: z.array(z.looseObject({ name: z.string() })), usage: RunUsage,
}));
export const OrchestrationRunResult = name('OrchestrationRunResult', z.looseObject({
  session_id: Id, run_id: Id, status: z.literal('completed'), output: z.string(), stop_reason: z.enum(['answered', 'max_steps']), steps: z.number().int(),
  delegations: z.array(z.looseObject({ agent_id: Id, agent_name: z.string(), task: z.string(), output: z.string().nullable() })), usage: RunUsage,
}));
export const RunRecord = name('RunRecord', row({
  session_id: Id, status: z.enum(['running', 'waiting_approval', 'waiting_client', 'completed', 'failed', 'cancelled']), output: z.string().nullable(), error: z.string().nullable(), stop_reason: z.string().nullable(),
  steps: z.number().int(), ...usage, started_at: Timestamp, finished_at: Timestamp.nullable(),
}));

/** A model call of a run, from the usage ledger. */
export const ModelCall = name('ModelCall', z.looseObject({
  step: z.string().nullable(), model: z.string(), provider: z.string(), kind: z.string(), tokens_in: z.number().int(), tokens_out: z.number().int(),
  cost_usd: z.number(), latency_ms: z.number().int(), ok: z.boolean(), at: Timestamp,
}));
/** A node of a run's timeline (sql/0072): the run, a step, a model or tool call, an approval, a delegation, a block. */
export const TimelineNode = name('TimelineNode', z.looseObject({
  name: z.string(), kind: z.enum(['run', 'step', 'model_call', 'tool_call', 'approval', 'delegation', 'block']),
  start: Timestamp.nullable(), duration_ms: z.number().int().nullable().describe('null while a run has not started'),
  tokens_in: z.number().int().optional(), tokens_out: z.number().int().optional(), cost_usd: z.number().optional(),
  model: z.string().optional(), ok: z.boolean().optional(), status: z.string().optional(), error: z.string().nullable().optional(),
  get children(): z.ZodArray<typeof TimelineNode> { return z.array(TimelineNode); },
}));
const Traced = {
  timeline: TimelineNode.describe('The run\'s span tree, from what it stored: where the time and the money went'),
  trace_id: z.string().nullable().describe('The trace the run began in, to find it in a tracing backend (null while tracing was off)'),
};
const Inspect = { model_calls: z.array(ModelCall), last_event_id: z.number().int().meta({ description: 'The number of its last stored event (0: none)' }), ...Traced };
export const AgentRunRecord = name('AgentRunRecord', RunRecord.extend({ messages: z.array(Json), approvals: z.array(Json), resumes: z.number().int().describe('how often the run was taken up again after its process died'), ...Inspect }));
// An orchestration run answers its usage as one object, and its delegations with theirs.
export const OrchestrationRunRecord = name('OrchestrationRunRecord', RunRecord.omit({ tokens_in: true, tokens_out: true, cost_usd: true }).extend({ usage: RunUsage, delegations: z.array(Json), ...Inspect }));

export const Orchestration = name('Orchestration', row({ owner_id: Id.nullable(), name: z.string(), strategy: z.string(), model: z.string().nullable(), system_prompt: z.string().nullable(), settings: Json, created_at: Timestamp, updated_at: Timestamp }));
export const Entity = name('Entity', row({ orchestration_id: Id, entity_type: z.string(), entity_ref_id: z.string(), role_description: z.string().nullable(), config: Json, position: z.number().int() }));

export const Workflow = name('Workflow', row({
  name: z.string(), description: z.string().nullable(), owner_id: Id.nullable(), deployed: z.boolean(), active_version: z.number().int().nullable(),
  armed_until: Timestamp.nullable(), created_at: Timestamp, updated_at: Timestamp,
}));
const Block = z.looseObject({ id: z.string(), type: z.string(), config: Json.optional(), position: z.object({ x: z.number(), y: z.number() }).optional() });
const Edge = z.looseObject({ source: z.string(), target: z.string() });
export const WorkflowWithGraph = name('WorkflowWithGraph', Workflow.extend({ blocks: z.array(Block), edges: z.array(Edge) }));
export const BlockType = name('BlockType', z.object({
  type: z.string(), label: z.string(), description: z.string(), config_schema: z.record(z.string(), z.unknown()),
  examples: z.array(z.unknown()), is_trigger: z.boolean(), aliases: z.array(z.string()),
}));
export const Graph = name('Graph', z.looseObject({ blocks: z.array(Block), edges: z.array(Edge) }));
export const ExecutionResult = name('ExecutionResult', z.looseObject({ execution_id: Id, status: z.string(), output: z.unknown() }));
export const Execution = name('Execution', row({
  status: z.string(), trigger: z.string(), version: z.number().int().nullable(), error: z.string().nullable(), error_code: z.string().nullable(),
  created_at: Timestamp, started_at: Timestamp.nullable(), finished_at: Timestamp.nullable(),
  tokens_in: z.number().int(), tokens_out: z.number().int(), cost_usd: z.number().describe('Model calls\' tokens and cost in the usage ledger'),
}));
export const ExecutionDetail = Execution.extend({ output: z.unknown(), ...Traced });
export const BlockLog = name('BlockLog', z.looseObject({ block_id: z.string(), block_type: z.string(), status: z.string(), input: z.unknown(), output: z.unknown(), error: z.string().nullable(), attempts: z.number().int(), started_at: Timestamp.nullable(), finished_at: Timestamp.nullable() }));

export const Tool = name('Tool', z.looseObject({ id: Id.optional(), name: z.string(), description: z.string(), input_schema: z.unknown(), tool_type: z.enum(['builtin', 'custom']), type: z.string().optional(), config: z.unknown().optional() }));

export const Source = name('Source', row({
  owner_id: Id.nullable(), name: z.string(), metadata: Json, origin: z.enum(['upload', 'storage', 'url']), extension: z.string(), content_type: z.string(), size_bytes: z.number(),
  extraction_model: z.string(), extraction_status: z.enum(['pending', 'extracting', 'extracted', 'attention_required', 'failed', 'cancelled']),
  extraction_message: z.string().nullable(), progress: z.object({ pages_done: z.number().int(), pages_total: z.number().int().nullable() }), created_at: Timestamp, updated_at: Timestamp,
}));

export const KnowledgeBase = name('KnowledgeBase', row({
  owner_id: Id.nullable(), name: z.string(), description: z.string().nullable(), strategy: z.string(), indexing_config: Json, retrieval_config: Json, needs_reindex: z.boolean(),
  bm25_status: z.string(), created_at: Timestamp, updated_at: Timestamp,
  status: z.looseObject({ sources: z.number().int(), pending: z.number().int(), indexing: z.number().int(), indexed: z.number().int(), failed: z.number().int(), cancelled: z.number().int(), items: z.number().int(), needs_reindex: z.boolean() }),
}));
export const IndexedSource = name('IndexedSource', row({
  source_id: Id, index_status: z.enum(['pending', 'indexing', 'indexed', 'failed', 'cancelled']), indexed_at: Timestamp.nullable(), stats: Json, error_message: z.string().nullable(),
  source_name: z.string(), file_type: z.string(), source_created_at: Timestamp,
}));
export const SearchResult = name('SearchResult', z.looseObject({
  id: z.string(), text: z.string(), score: z.number(), retrieval_score: z.number().nullable().optional(), reranker_score: z.number().nullable().optional(),
  source_id: Id, source_name: z.string(), knowledge_base_id: Id, kb_name: z.string(), indexing_strategy: z.string(), meta: Json,
}));
export const Diagnostics = name('RetrievalDiagnostics', z.looseObject({ _type: z.literal('retrieval_diagnostics') }));
export const Search = name('SearchAnswer', z.looseObject({
  query: z.string(), knowledge_base_id: Id, results: z.array(z.union([Diagnostics, SearchResult])).meta({ description: 'The diagnostics entry first, then the results best first' }),
  metadata: z.looseObject({ query_enrichment: z.looseObject({ enabled: z.boolean(), queries: z.array(z.string()) }) }),
}));
export const Page = <T extends z.ZodType>(item: T) => z.looseObject({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const Session = name('Session', row({ owner_id: Id.nullable(), agent_id: Id.nullable(), orchestration_id: Id.nullable(), title: z.string().nullable(), summary: z.string().nullable(), created_at: Timestamp, updated_at: Timestamp }));
export const Message = name('Message', z.looseObject({
  id: z.string().meta({ description: 'Messages are numbered in order' }), run_id: Id.nullable(), role: z.enum(['user', 'assistant', 'tool', 'system']), content: z.string().nullable(), created_at: Timestamp,
  attachments: z.array(z.looseObject({ type: z.enum(['image', 'file']), mime: z.string(), bytes: z.number().int(), filename: z.string().optional() })).optional()
    .meta({ description: 'A user message\'s images and files (sent to /api/v1), their bytes kept in storage' }),
}));

export const ProviderKey = name('ProviderKey', row({ provider: z.string(), masked_key: z.string(), is_valid: z.boolean(), last_validated_at: Timestamp.nullable(), created_at: Timestamp, updated_at: Timestamp }));
export const Setting = name('Setting', z.looseObject({
  key: z.string(), category: z.string(), type: z.string(), default: z.string().meta({ description: 'Empty for secrets' }), override: z.string().nullable(), value: z.string(),
  description: z.string(), min: z.number().optional(), max: z.number().optional(), options: z.array(z.unknown()).optional(), is_overridden: z.boolean(), updated_at: Timestamp.nullable(),
}));

export const CopilotSession = name('CopilotSession', row({ workflow_id: Id, created_at: Timestamp }));

/** A workflow run's stream events (workflows/engine/types.ts RunEvent), and the error that ends a failed one. */
export const WorkflowEvent = name('WorkflowEvent', z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('run_started'), execution_id: Id, version: z.number().int().nullable() }),
  z.looseObject({ type: z.literal('block_started'), block_id: z.string(), block_type: z.string() }),
  z.looseObject({ type: z.literal('block_completed'), block_id: z.string(), block_type: z.string(), output: z.unknown(), duration_ms: z.number() }),
  z.looseObject({ type: z.literal('block_skipped'), block_id: z.string(), block_type: z.string() }),
  z.looseObject({ type: z.literal('block_failed'), block_id: z.string(), block_type: z.string(), error: z.string(), continued: z.boolean() }),
  z.looseObject({ type: z.literal('content_delta'), block_id: z.string(), delta: z.string() }),
  z.looseObject({ type: z.literal('block_waiting'), block_id: z.string(), block_type: z.string(), until: z.string().nullable().optional(), event: z.string().optional(), approval_id: z.string().optional() }),
  z.looseObject({ type: z.literal('resumed'), execution_id: Id, settled_blocks: z.number().int(), resumes: z.number().int() }),
  z.looseObject({ type: z.literal('run_completed'), execution_id: Id, output: z.unknown() }),
  z.looseObject({ type: z.literal('error'), error: z.string(), error_code: z.string().optional() }),
]));

/** An agent or orchestration run's stream events (ai/steps/events.ts AgentRunEvent); a member's carry `delegation_id`. */
export const RunEvent = name('RunEvent', z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('start'), session_id: Id, run_id: Id }),
  z.looseObject({ type: z.literal('resumed'), run_id: Id, step: z.number(), resumes: z.number() }),
  z.looseObject({ type: z.literal('compaction'), model: z.string(), summarized_messages: z.number(), kept_messages: z.number() }),
  z.looseObject({ type: z.literal('compaction_error'), model: z.string(), error: z.string() }),
  z.looseObject({ type: z.literal('content_delta'), delta: z.string() }),
  z.looseObject({ type: z.literal('tool_call'), id: z.string(), name: z.string(), arguments: z.unknown(), step: z.number() }),
  z.looseObject({ type: z.literal('tool_result'), id: z.string(), name: z.string(), ok: z.boolean(), result: z.string().optional(), error: z.string().optional(), latency_ms: z.number() }),
  z.looseObject({ type: z.literal('retrieval'), knowledge_base_id: Id, kb_name: z.string(), query: z.string(), results: z.number(), included: z.number() }),
  z.looseObject({ type: z.literal('mcp_error'), server: z.string(), server_id: Id, error: z.string() }),
  z.looseObject({ type: z.literal('hook'), hook_id: Id, event: z.string(), decision: z.string() }),
  z.looseObject({ type: z.literal('hook_error'), hook_id: Id, event: z.string(), error: z.string() }),
  z.looseObject({ type: z.literal('approval_requested'), approval_id: Id, hook_id: Id, event: z.string(), run_id: Id, session_id: Id, message: z.string().nullable() }),
  z.looseObject({ type: z.literal('approval_resolved'), approval_id: Id, status: z.string() }),
  z.looseObject({ type: z.literal('entity_skipped'), entity_id: Id, entity_type: z.string(), reason: z.string() }),
  z.looseObject({ type: z.literal('delegation_started'), delegation_id: Id, agent_id: Id, agent_name: z.string(), task: z.string() }),
  z.looseObject({ type: z.literal('delegation_completed'), delegation_id: Id, agent_id: Id, agent_name: z.string(), ok: z.boolean() }),
  z.looseObject({ type: z.literal('delegation_delta'), delegation_id: Id, delta: z.string() }),
  z.looseObject({ type: z.literal('usage'), ...usage }),
  z.looseObject({ type: z.literal('complete'), session_id: Id, run_id: Id, output: z.string(), stop_reason: z.enum(['answered', 'max_steps']), steps: z.number().int() }),
  z.looseObject({ type: z.literal('error'), error: z.string(), error_code: z.string().optional() }),
]));

/** The copilot's chat stream (spec 6.2). */
export const CopilotEvent = name('CopilotEvent', z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('status'), message: z.string() }),
  z.looseObject({ type: z.literal('tool_call'), name: z.string(), arguments: z.unknown() }),
  z.looseObject({ type: z.literal('tool_result'), name: z.string(), result: z.unknown() }),
  z.looseObject({ type: z.literal('content_delta'), delta: z.string() }),
  z.looseObject({ type: z.literal('complete'), message_id: Id, content: z.string(), workflow_diff: z.unknown() }),
  z.looseObject({ type: z.literal('error'), error: z.string() }),
]));

/** Anything a route answers that is a free-form JSON object. */
export const AnyObject = Json;
