// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/usage": {
    /** Model calls with tokens and cost, with totals */
    get: operations["getUsage"];
  };
}

export interface operations {
  /** Model calls with tokens and cost, with totals */
  getUsage: {
    parameters: {
      query?: {
        from?: string;
        to?: string;
        feature?: string;
        model?: string;
        user?: string;
        limit?: number;
      };
    };
    responses: {
      /** @description The report */
      200: {
        content: {
          "application/json": components["schemas"]["GetUsage200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
}
