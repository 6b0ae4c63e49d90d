// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  Workflow: {
    /** Format: uuid */
    id: string;
    name: string;
    description: string | null;
    owner_id: string | null;
    deployed: boolean;
    active_version: number | null;
    armed_until: string | null;
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    [key: string]: unknown;
  };
  WorkflowWithGraph: {
    /** Format: uuid */
    id: string;
    name: string;
    description: string | null;
    owner_id: string | null;
    deployed: boolean;
    active_version: number | null;
    armed_until: string | null;
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    blocks: {
        id: string;
        type: string;
        config?: components["schemas"]["GetUsage200"];
        position?: {
          x: number;
          y: number;
        };
        [key: string]: unknown;
      }[];
    edges: {
        source: string;
        target: string;
        [key: string]: unknown;
      }[];
    [key: string]: unknown;
  };
  Graph: {
    blocks: {
        id: string;
        type: string;
        config?: components["schemas"]["GetUsage200"];
        position?: {
          x: number;
          y: number;
        };
        [key: string]: unknown;
      }[];
    edges: {
        source: string;
        target: string;
        [key: string]: unknown;
      }[];
    [key: string]: unknown;
  };
  WorkflowEvent: ({
    /** @constant */
    type: "run_started";
    /** Format: uuid */
    execution_id: string;
    version: number | null;
    [key: string]: unknown;
  }) | {
    /** @constant */
    type: "block_started";
    block_id: string;
    block_type: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "block_completed";
    block_id: string;
    block_type: string;
    output: unknown;
    duration_ms: number;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "block_skipped";
    block_id: string;
    block_type: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "block_failed";
    block_id: string;
    block_type: string;
    error: string;
    continued: boolean;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "content_delta";
    block_id: string;
    delta: string;
    [key: string]: unknown;
  } | ({
    /** @constant */
    type: "block_waiting";
    block_id: string;
    block_type: string;
    until?: string | null;
    event?: string;
    approval_id?: string;
    [key: string]: unknown;
  }) | {
    /** @constant */
    type: "resumed";
    /** Format: uuid */
    execution_id: string;
    settled_blocks: number;
    resumes: number;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "run_completed";
    /** Format: uuid */
    execution_id: string;
    output: unknown;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "error";
    error: string;
    error_code?: string;
    [key: string]: unknown;
  };
  ListWorkflows200: {
    items: components["schemas"]["Workflow"][];
    total: number;
    limit: number;
    offset: number;
    [key: string]: unknown;
  };
  ListBlockTypes200: components["schemas"]["BlockType"][];
  DeployWorkflow200: {
    /** @constant */
    deployed: true;
    version: number;
    active_version: number;
  };
  UndeployWorkflow200: {
    /** @constant */
    deployed: false;
  };
  ListWorkflowTriggers200: components["schemas"]["AddWorkflowTrigger201"][];
  AddWorkflowTrigger201: {
    id: string;
    workflow_id: string;
    /** @enum {string} */
    type: "schedule" | "row_change" | "queue";
    config: {
      [key: string]: unknown;
    };
    /** Format: date-time */
    created_at: string;
    [key: string]: unknown;
  };
  ArmWorkflow200: {
    /** @constant */
    ok: true;
    /** Format: date-time */
    armed_until: string;
  };
  ListWorkflowVersions200: ({
      version: number;
      /** Format: date-time */
      created_at: string;
      created_by: string | null;
      blocks: number;
      active: boolean;
      [key: string]: unknown;
    })[];
  GetWorkflowVersion200: {
    version: number;
    /** Format: date-time */
    created_at: string;
    created_by: string | null;
    active: boolean;
    graph: components["schemas"]["Graph"];
    [key: string]: unknown;
  };
  ActivateWorkflowVersion200: {
    active_version: number;
  };
  ExecuteWorkflow202: {
    execution_id: string;
    /** @constant */
    status: "queued";
  };
  ListExecutions200: components["schemas"]["Execution"][];
  GetExecution200: {
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
    output: unknown;
    /** @description The run's span tree, from what it stored: where the time and the money went */
    timeline: components["schemas"]["TimelineNode"];
    /** @description The trace the run began in, to find it in a tracing backend (null while tracing was off) */
    trace_id: string | null;
    [key: string]: unknown;
  };
  CancelExecution200: {
    cancelled: boolean;
    execution_id: string;
  };
  GetExecutionLogs200: {
    execution: components["schemas"]["GetExecution200"];
    logs: components["schemas"]["BlockLog"][];
    [key: string]: unknown;
  };
  CreateWorkflowBody: {
    name: string;
    description?: string | null;
  };
  UpdateWorkflowBody: {
    name?: string;
    description?: string | null;
  };
  PutWorkflowGraphBody: {
    blocks: unknown;
    edges?: unknown;
  };
  AddWorkflowTriggerBody: {
    /** @constant */
    type: "schedule";
    schedule: string;
  } | ({
    /** @constant */
    type: "row_change";
    schema?: string;
    table: string;
    events?: ("INSERT" | "UPDATE" | "DELETE")[];
    condition?: {
      [key: string]: unknown;
    } | null;
  }) | {
    /** @constant */
    type: "queue";
    queue: string;
    max_attempts?: number;
    visibility_timeout?: number;
    dead_letter_queue?: string;
  };
}
