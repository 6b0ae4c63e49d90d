// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  Deleted: {
    message: string;
    id?: string;
    [key: string]: unknown;
  };
  Agent: {
    /** Format: uuid */
    id: string;
    owner_id: string | null;
    name: string;
    model: string | null;
    system_prompt: string | null;
    settings: components["schemas"]["GetUsage200"];
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    [key: string]: unknown;
  };
  ToolAssignment: {
    /** Format: uuid */
    id: string;
    /** Format: uuid */
    agent_id: string;
    tool_name: string;
    /** @enum {string} */
    tool_type: "builtin" | "custom" | "agent";
    tool_id: string | null;
    sub_agent_id: string | null;
    config_override: components["schemas"]["GetUsage200"];
    /** Format: date-time */
    created_at: string;
    [key: string]: unknown;
  };
  KnowledgeBaseAssignment: {
    /** Format: uuid */
    id: string;
    /** Format: uuid */
    agent_id: string;
    /** Format: uuid */
    knowledge_base_id: string;
    name: string;
    description: string | null;
    indexing_strategy: string;
    tool_name: string;
    /** Format: date-time */
    created_at: string;
    [key: string]: unknown;
  };
  McpServer: {
    /** Format: uuid */
    id: string;
    /** Format: uuid */
    agent_id: string;
    name: string;
    url: string;
    /** @enum {string} */
    transport: "streamable_http" | "sse";
    /** @description Values masked but to the service role */
    headers: {
      [key: string]: string;
    };
    enabled: boolean;
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    [key: string]: unknown;
  };
  Hook: {
    /** Format: uuid */
    id: string;
    event: string;
    type: string;
    config: components["schemas"]["GetUsage200"];
    matcher: string | null;
    enabled: boolean;
    position: number;
    /** Format: date-time */
    created_at: string;
    [key: string]: unknown;
  };
  Approval: {
    /** Format: uuid */
    id: string;
    /** Format: uuid */
    run_id: string;
    status: string;
    [key: string]: unknown;
  };
  AgentRunResult: {
    /** Format: uuid */
    session_id: string;
    /** Format: uuid */
    run_id: string;
    /** @constant */
    status: "completed";
    output: string;
    /** @enum {string} */
    stop_reason: "answered" | "max_steps";
    steps: number;
    tool_calls: {
        name: string;
        [key: string]: unknown;
      }[];
    usage: components["schemas"]["RunUsage"];
    [key: string]: unknown;
  };
  AgentRunRecord: {
    /** Format: uuid */
    id: string;
    /** Format: uuid */
    session_id: string;
    /** @enum {string} */
    status: "running" | "waiting_approval" | "waiting_client" | "completed" | "failed" | "cancelled";
    output: string | null;
    error: string | null;
    stop_reason: string | null;
    steps: number;
    tokens_in: number;
    tokens_out: number;
    cost_usd: number;
    /** Format: date-time */
    started_at: string;
    finished_at: string | null;
    messages: components["schemas"]["GetUsage200"][];
    approvals: components["schemas"]["GetUsage200"][];
    /** @description how often the run was taken up again after its process died */
    resumes: number;
    model_calls: components["schemas"]["ModelCall"][];
    /** @description The number of its last stored event (0: none) */
    last_event_id: number;
    /** @description The run's span tree, from what it stored: where the time and the money went */
    timeline: components["schemas"]["TimelineNode"];
    /** @description The trace the run began in, to find it in a tracing backend (null while tracing was off) */
    trace_id: string | null;
    [key: string]: unknown;
  };
}
