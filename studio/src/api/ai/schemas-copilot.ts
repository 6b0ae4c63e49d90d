// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  CopilotSession: {
    /** Format: uuid */
    id: string;
    /** Format: uuid */
    workflow_id: string;
    /** Format: date-time */
    created_at: string;
    [key: string]: unknown;
  };
  CopilotEvent: {
    /** @constant */
    type: "status";
    message: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "tool_call";
    name: string;
    arguments: unknown;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "tool_result";
    name: string;
    result: unknown;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "content_delta";
    delta: string;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "complete";
    /** Format: uuid */
    message_id: string;
    content: string;
    workflow_diff: unknown;
    [key: string]: unknown;
  } | {
    /** @constant */
    type: "error";
    error: string;
    [key: string]: unknown;
  };
  ListCopilotMessages200: components["schemas"]["GetUsage200"][];
  SaveCopilotSnapshot200: {
    /** Format: uuid */
    message_id: string;
    pre_snapshot: unknown;
    post_snapshot: unknown;
    /** Format: date-time */
    saved_at: string;
  };
  GetCopilotModel200: {
    model: string;
    default: string;
    options: unknown[];
    [key: string]: unknown;
  };
  PutCopilotModel200: {
    model: string;
  };
  OpenCopilotSessionBody: {
    workflow_id: string;
  };
  SaveCopilotSnapshotBody: {
    pre_snapshot: unknown;
  };
  CopilotChatBody: {
    message: string;
    workflow_state?: {
      [key: string]: unknown;
    };
    confirm_action_id?: string;
  };
  PutCopilotModelBody: {
    model: string;
  };
}
