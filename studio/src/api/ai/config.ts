// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/config/kb-defaults": {
    /** Strategies, retrievers and defaults for building knowledge bases */
    get: operations["getKbDefaults"];
  };
}

export interface operations {
  /** Strategies, retrievers and defaults for building knowledge bases */
  getKbDefaults: {
    responses: {
      /** @description Defaults */
      200: {
        content: {
          "application/json": components["schemas"]["GetKbDefaults200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
}
