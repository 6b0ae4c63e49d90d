// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/context-handlers": {
    /** List your stored retrievals */
    get: operations["listContextHandlers"];
    /** Retrieve across knowledge bases and store the answer */
    post: operations["createContextHandler"];
  };
  "/api/context-handlers/{id}": {
    /** Read a stored retrieval */
    get: operations["getContextHandler"];
  };
}

export interface operations {
  /** List your stored retrievals */
  listContextHandlers: {
    parameters: {
      query?: {
        /** @description An integer, 1 to 200 */
        limit?: string;
        /** @description An integer, 0 or more */
        offset?: string;
      };
    };
    responses: {
      /** @description A page, newest first */
      200: {
        content: {
          "application/json": components["schemas"]["ListContextHandlers200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Retrieve across knowledge bases and store the answer */
  createContextHandler: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateContextHandlerBody"];
      };
    };
    responses: {
      /** @description Chunks ranked by relevance, with per-knowledge-base errors */
      201: {
        content: {
          "application/json": components["schemas"]["CreateContextHandler201"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read a stored retrieval */
  getContextHandler: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The stored answer */
      200: {
        content: {
          "application/json": components["schemas"]["CreateContextHandler201"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
}
