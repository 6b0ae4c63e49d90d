// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
export interface Schemas {
  ExecutionResult: {
    /** Format: uuid */
    execution_id: string;
    status: string;
    output: unknown;
    [key: string]: unknown;
  };
  SendExecutionEvent202: {
    execution_id: string;
    event: string;
    delivered: number;
  };
  SendExecutionEventBody: {
    event: string;
    data?: unknown;
  };
  TriggerWebhookBody: {
    [key: string]: unknown;
  };
}
