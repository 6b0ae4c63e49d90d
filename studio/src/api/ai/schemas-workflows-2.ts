// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
export interface Schemas {
  ExecuteWorkflowBody: {
    variables?: {
      [key: string]: unknown;
    };
    input?: {
      [key: string]: unknown;
    };
    /** @enum {string} */
    mode?: "sync" | "async";
  };
}
