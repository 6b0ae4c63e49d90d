// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  RunEvent: {
    /** @constant */
    type: "start";
    /** Format: uuid */
    session_id: string;
    /** Format: uuid */
    run_id: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "resumed";
    /** Format: uuid */
    run_id: string;
    step: number;
    resumes: number;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "compaction";
    model: string;
    summarized_messages: number;
    kept_messages: number;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "compaction_error";
    model: string;
    error: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "content_delta";
    delta: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "tool_call";
    id: string;
    name: string;
    arguments: unknown;
    step: number;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "tool_result";
    id: string;
    name: string;
    ok: boolean;
    result?: string;
    error?: string;
    latency_ms: number;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "retrieval";
    /** Format: uuid */
    knowledge_base_id: string;
    kb_name: string;
    query: string;
    results: number;
    included: number;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "mcp_error";
    server: string;
    /** Format: uuid */
    server_id: string;
    error: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "hook";
    /** Format: uuid */
    hook_id: string;
    event: string;
    decision: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "hook_error";
    /** Format: uuid */
    hook_id: string;
    event: string;
    error: string;
    [key: string]: unknown;
  } | ({
    /** @constant */
    type: "approval_requested";
    /** Format: uuid */
    approval_id: string;
    /** Format: uuid */
    hook_id: string;
    event: string;
    /** Format: uuid */
    run_id: string;
    /** Format: uuid */
    session_id: string;
    message: string | null;
    [key: string]: unknown;
  }) | {
    /** @constant */
    type: "approval_resolved";
    /** Format: uuid */
    approval_id: string;
    status: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "entity_skipped";
    /** Format: uuid */
    entity_id: string;
    entity_type: string;
    reason: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "delegation_started";
    /** Format: uuid */
    delegation_id: string;
    /** Format: uuid */
    agent_id: string;
    agent_name: string;
    task: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "delegation_completed";
    /** Format: uuid */
    delegation_id: string;
    /** Format: uuid */
    agent_id: string;
    agent_name: string;
    ok: boolean;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "delegation_delta";
    /** Format: uuid */
    delegation_id: string;
    delta: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "usage";
    tokens_in: number;
    tokens_out: number;
    cost_usd: number;
    [key: string]: unknown;
  } | ({
    /** @constant */
    type: "complete";
    /** Format: uuid */
    session_id: string;
    /** Format: uuid */
    run_id: string;
    output: string;
    /** @enum {string} */
    stop_reason: "answered" | "max_steps";
    steps: number;
    [key: string]: unknown;
  }) | {
    /** @constant */
    type: "error";
    error: string;
    error_code?: string;
    [key: string]: unknown;
  };
  ListAgents200: components["schemas"]["Agent"][];
  ListAgentTools200: components["schemas"]["ToolAssignment"][];
  ListAgentRuns200: components["schemas"]["RunRecord"][];
  CancelAgentRun200: {
    cancelled: boolean;
    run_id: string;
  };
  ListAgentMcpServers200: components["schemas"]["McpServer"][];
  ListAgentMcpServerTools200: ({
      name: string;
      offered_as: string;
      description: string | null;
      input_schema: {
        [key: string]: unknown;
      };
    })[];
  ListAgentKnowledgeBases200: components["schemas"]["KnowledgeBaseAssignment"][];
  ListAgentHooks200: components["schemas"]["Hook"][];
  CreateAgentBody: {
    name: string;
    model?: string | null;
    system_prompt?: string | null;
    settings?: {
      [key: string]: unknown;
    };
  };
  UpdateAgentBody: {
    name?: string;
    model?: string | null;
    system_prompt?: string | null;
    settings?: {
      [key: string]: unknown;
    };
  };
  AssignAgentToolBody: {
    tool_name: string;
  } | {
    agent_id: string;
  };
  UpdateAgentToolBody: {
    config_override: {
      [key: string]: unknown;
    };
  };
  RunAgentBody: {
    message: string;
    session_id?: string;
  };
  DecideApprovalBody: {
    /** @enum {string} */
    decision: "approve" | "deny";
    arguments?: {
      [key: string]: unknown;
    };
  };
  CreateAgentMcpServerBody: {
    name: string;
    url: string;
    /**
     * @default streamable_http
     * @enum {string}
     */
    transport?: "streamable_http" | "sse";
    headers?: {
      [key: string]: string;
    };
    enabled?: boolean;
  };
  UpdateAgentMcpServerBody: {
    name?: string;
    url?: string;
    /** @enum {string} */
    transport?: "streamable_http" | "sse";
    headers?: {
      [key: string]: string;
    };
    enabled?: boolean;
  };
  AssignAgentKnowledgeBaseBody: {
    knowledge_base_id: string;
  };
  CreateAgentHookBody: {
    event: string;
    type: string;
    /** @default {} */
    config?: {
      [key: string]: unknown;
    };
    matcher?: string | null;
    /** @default true */
    enabled?: boolean;
    /** @default 0 */
    position?: number;
  };
}
