// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  OrchestrationRunResult: {
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
    delegations: ({
        /** Format: uuid */
        agent_id: string;
        agent_name: string;
        task: string;
        output: string | null;
        [key: string]: unknown;
      })[];
    usage: components["schemas"]["RunUsage"];
    [key: string]: unknown;
  };
  OrchestrationRunRecord: {
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
    /** Format: date-time */
    started_at: string;
    finished_at: string | null;
    usage: components["schemas"]["RunUsage"];
    delegations: components["schemas"]["GetUsage200"][];
    model_calls: components["schemas"]["ModelCall"][];
    /** @description The number of its last stored event (0: none) */
    last_event_id: number;
    /** @description The run's span tree, from what it stored: where the time and the money went */
    timeline: components["schemas"]["TimelineNode"];
    /** @description The trace the run began in, to find it in a tracing backend (null while tracing was off) */
    trace_id: string | null;
    [key: string]: unknown;
  };
  Orchestration: {
    /** Format: uuid */
    id: string;
    owner_id: string | null;
    name: string;
    strategy: string;
    model: string | null;
    system_prompt: string | null;
    settings: components["schemas"]["GetUsage200"];
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    [key: string]: unknown;
  };
  Entity: {
    /** Format: uuid */
    id: string;
    /** Format: uuid */
    orchestration_id: string;
    entity_type: string;
    entity_ref_id: string;
    role_description: string | null;
    config: components["schemas"]["GetUsage200"];
    position: number;
    [key: string]: unknown;
  };
  ListOrchestrations200: components["schemas"]["Orchestration"][];
  GetOrchestration200: {
    /** Format: uuid */
    id: string;
    owner_id: string | null;
    name: string;
    strategy: string;
    model: string | null;
    system_prompt: string | null;
    settings: components["schemas"]["GetUsage200"];
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    entities: components["schemas"]["Entity"][];
    [key: string]: unknown;
  };
  ListEntities200: components["schemas"]["Entity"][];
  ListOrchestrationHooks200: components["schemas"]["Hook"][];
  CreateOrchestrationBody: {
    name: string;
    strategy?: string;
    model?: string | null;
    system_prompt?: string | null;
    settings?: {
      [key: string]: unknown;
    };
  };
  UpdateOrchestrationBody: {
    name?: string;
    strategy?: string;
    model?: string | null;
    system_prompt?: string | null;
    settings?: {
      [key: string]: unknown;
    };
  };
  CreateEntityBody: {
    entity_type: string;
    entity_ref_id: string;
    role_description?: string | null;
    config?: {
      [key: string]: unknown;
    };
    position?: number;
  };
  UpdateEntityBody: {
    role_description?: string | null;
    config?: {
      [key: string]: unknown;
    };
    position?: number;
  };
  RunOrchestrationBody: {
    message: string;
    session_id?: string;
  };
  CreateOrchestrationHookBody: {
    event: string;
    /** @enum {string} */
    type: "http" | "rule" | "approval";
    config: {
      [key: string]: unknown;
    };
    matcher?: string | null;
    /** @default true */
    enabled?: boolean;
    /** @default 0 */
    position?: number;
  };
}
