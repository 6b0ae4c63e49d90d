// The events of an agent or orchestration run, as /run/stream sends them
// (server-sent events, `data: <json>`), one union beside the workflow run's
// events (workflows/engine/types.ts RunEvent). A member's events inside a
// delegation carry its `delegation_id`; its text streams as delegation_delta.
type Usage = { tokens_in: number; tokens_out: number; cost_usd: number };
type StopReason = 'answered' | 'max_steps';

export type AgentRunEvent = (
  | { type: 'start'; session_id: string; run_id: string }
  // The run's process died and another took it up from its last stored step (runs/resume.ts).
  | { type: 'resumed'; run_id: string; step: number; resumes: number }
  | { type: 'compaction'; model: string; summarized_messages: number; kept_messages: number; estimated_tokens_before: number; estimated_tokens_after: number }
  | { type: 'compaction_error'; model: string; error: string }
  | { type: 'content_delta'; delta: string; step?: number }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown; step: number }
  | { type: 'tool_result'; id: string; name: string; ok: boolean; result?: string; error?: string; latency_ms: number }
  | { type: 'retrieval'; knowledge_base_id: string; kb_name: string; query: string; queries: unknown; results: number; included: number; token_count: number }
  | { type: 'mcp_error'; server: string; server_id: string; error: string }
  | { type: 'hook'; hook_id: string; event: string; decision: string; reason?: string }
  | { type: 'hook_error'; hook_id: string; event: string; error: string }
  | { type: 'approval_requested'; approval_id: string; hook_id: string; event: string; run_id: string; session_id: string; tool_call?: { id: string | null; name: string; arguments: unknown }; message: string | null; expires_at: unknown }
  | { type: 'approval_resolved'; approval_id: string; status: string }
  | { type: 'entity_skipped'; entity_id: string; entity_type: string; reason: string }
  | ({ type: 'delegation_started'; delegation_id: string; agent_id: string; agent_name: string; task: string; entity_id?: string })
  | ({ type: 'delegation_completed'; delegation_id: string; agent_id: string; agent_name: string; ok: boolean } & Record<string, unknown>)
  | { type: 'delegation_delta'; delegation_id: string; delta: string }
  | ({ type: 'usage' } & Usage)
  | { type: 'complete'; session_id: string; run_id: string; output: string; stop_reason: StopReason; steps: number }
  // The model called the client's own tools (/api/v1): the run waits for their results (sql/0107).
  | { type: 'client_tool_calls'; session_id: string; run_id: string; calls: Array<{ id: string; name: string; arguments: string }>; usage: Usage }
) & { delegation_id?: string };

/**
 * Where a run's events go. `endWith`, when the events are kept (runs/events.ts
 * recorder): the run's end and its last events stored in one statement
 * (runs/session-run.ts, sql/0081).
 */
export type Emit = ((event: AgentRunEvent) => void) & { endWith?: EndWith | undefined };
/** A run's events kept (`kept`, its one-statement end with them) and told to `also` as well (a stream, a parent run). */
export function alsoTo(kept: Emit, also: Emit | undefined): Emit {
  if (!also) return kept;
  return Object.assign((e: AgentRunEvent) => {
    kept(e);
    also(e);
  }, kept.endWith ? { endWith: kept.endWith } : {});
}
/**
 * How a run that keeps its events ends in one statement with its last ones:
 * `end` stores the pending events (null: this process's are refused) and
 * those it adds after them, and answers the number of the first (null:
 * refused), the ones it added, and its own value.
 */
export type EndWith = <T>(end: (pending: object[] | null) => Promise<{ first: number | null; events: object[]; value: T }>) => Promise<T>;
