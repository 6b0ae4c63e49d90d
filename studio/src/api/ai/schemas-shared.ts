// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  Error: {
    error: string;
    details?: unknown;
    [key: string]: unknown;
  };
  CodedError: {
    error: string;
    error_code: string;
    [key: string]: unknown;
  };
  OpenAiError: {
    error: {
      message: string;
      type: string;
      param: string | null;
      code: string | null;
    };
  };
  WebhookUnauthorized: {
    /** @constant */
    error: "Unauthorized";
  };
  RunUsage: {
    tokens_in: number;
    tokens_out: number;
    cost_usd: number;
    [key: string]: unknown;
  };
  RunRecord: {
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
    [key: string]: unknown;
  };
  ModelCall: {
    step: string | null;
    model: string;
    provider: string;
    kind: string;
    tokens_in: number;
    tokens_out: number;
    cost_usd: number;
    latency_ms: number;
    ok: boolean;
    /** Format: date-time */
    at: string;
    [key: string]: unknown;
  };
  TimelineNode: {
    name: string;
    /** @enum {string} */
    kind: "run" | "step" | "model_call" | "tool_call" | "approval" | "delegation" | "block";
    start: string | null;
    /** @description null while a run has not started */
    duration_ms: number | null;
    tokens_in?: number;
    tokens_out?: number;
    cost_usd?: number;
    model?: string;
    ok?: boolean;
    status?: string;
    error?: string | null;
    children: components["schemas"]["TimelineNode"][];
    [key: string]: unknown;
  };
  BlockType: {
    type: string;
    label: string;
    description: string;
    config_schema: {
      [key: string]: unknown;
    };
    examples: unknown[];
    is_trigger: boolean;
    aliases: string[];
  };
  Execution: {
    /** Format: uuid */
    id: string;
    status: string;
    trigger: string;
    version: number | null;
    error: string | null;
    error_code: string | null;
    /** Format: date-time */
    created_at: string;
    started_at: string | null;
    finished_at: string | null;
    tokens_in: number;
    tokens_out: number;
    /** @description Model calls' tokens and cost in the usage ledger */
    cost_usd: number;
    [key: string]: unknown;
  };
  BlockLog: {
    block_id: string;
    block_type: string;
    status: string;
    input: unknown;
    output: unknown;
    error: string | null;
    attempts: number;
    started_at: string | null;
    finished_at: string | null;
    [key: string]: unknown;
  };
  SearchResult: {
    id: string;
    text: string;
    score: number;
    retrieval_score?: number | null;
    reranker_score?: number | null;
    /** Format: uuid */
    source_id: string;
    source_name: string;
    /** Format: uuid */
    knowledge_base_id: string;
    kb_name: string;
    indexing_strategy: string;
    meta: components["schemas"]["GetUsage200"];
    [key: string]: unknown;
  };
  RetrievalDiagnostics: {
    /** @constant */
    _type: "retrieval_diagnostics";
    [key: string]: unknown;
  };
  Message: {
    /** @description Messages are numbered in order */
    id: string;
    run_id: string | null;
    /** @enum {string} */
    role: "user" | "assistant" | "tool" | "system";
    content: string | null;
    /** Format: date-time */
    created_at: string;
    /** @description A user message's images and files (sent to /api/v1), their bytes kept in storage */
    attachments?: ({
        /** @enum {string} */
        type: "image" | "file";
        mime: string;
        bytes: number;
        filename?: string;
        [key: string]: unknown;
      })[];
    [key: string]: unknown;
  };
  Setting: {
    key: string;
    category: string;
    type: string;
    /** @description Empty for secrets */
    default: string;
    override: string | null;
    value: string;
    description: string;
    min?: number;
    max?: number;
    options?: unknown[];
    is_overridden: boolean;
    updated_at: string | null;
    [key: string]: unknown;
  };
  ListModels200: {
    /** @constant */
    object: "list";
    data: components["schemas"]["GetModel200"][];
  };
  GetModel200: {
    id: string;
    /** @constant */
    object: "model";
    created: number;
    owned_by: string;
    [key: string]: unknown;
  };
  CreateChatCompletion200: {
    id: string;
    /** @constant */
    object: "chat.completion";
    created: number;
    model: string;
    choices: ({
        index: number;
        message: {
          /** @constant */
          role: "assistant";
          content: string | null;
          tool_calls?: {
              id: string;
              /** @constant */
              type: "function";
              function: {
                name: string;
                arguments: string;
                [key: string]: unknown;
              };
              [key: string]: unknown;
            }[];
          [key: string]: unknown;
        };
        finish_reason: string;
        [key: string]: unknown;
      })[];
    usage: {
      prompt_tokens: number;
      completion_tokens: number;
      total_tokens: number;
      [key: string]: unknown;
    };
    [key: string]: unknown;
  };
  /** @description Each `data:` line holds one chunk; the stream ends with `data: [DONE]` */
  CreateChatCompletionEvent: {
    id: string;
    /** @constant */
    object: "chat.completion.chunk";
    created: number;
    model: string;
    choices: ({
        index: number;
        delta: {
          role?: string;
          content?: string;
          tool_calls?: {
              index: number;
              [key: string]: unknown;
            }[];
          [key: string]: unknown;
        };
        finish_reason: string | null;
        [key: string]: unknown;
      })[];
    [key: string]: unknown;
  };
  ListTables200: {
    tables: string[];
  };
  ListRows200: {
      [key: string]: unknown;
    }[];
  GetRow200: {
    [key: string]: unknown;
  };
}
