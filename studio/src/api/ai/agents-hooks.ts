// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/agents/{id}/hooks": {
    /** List the Agent's hooks */
    get: operations["listAgentHooks"];
    /** Add a hook to the Agent */
    post: operations["createAgentHook"];
  };
  "/api/agents/{id}/hooks/{hookId}": {
    /** Hooks are immutable */
    put: operations["putAgentHook"];
    /** Delete a hook of the Agent */
    delete: operations["deleteAgentHook"];
    /** Hooks are immutable */
    patch: operations["patchAgentHook"];
  };
}

export interface operations {
  /** List the Agent's hooks */
  listAgentHooks: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Hooks by position */
      200: {
        content: {
          "application/json": components["schemas"]["ListAgentHooks200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Add a hook to the Agent */
  createAgentHook: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateAgentHookBody"];
      };
    };
    responses: {
      /** @description The hook */
      201: {
        content: {
          "application/json": components["schemas"]["Hook"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Hooks are immutable */
  putAgentHook: {
    parameters: {
      path: {
        id: string;
        hookId: string;
      };
    };
    responses: {
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      405: components["responses"]["Error405"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete a hook of the Agent */
  deleteAgentHook: {
    parameters: {
      path: {
        id: string;
        hookId: string;
      };
    };
    responses: {
      /** @description Deleted */
      200: {
        content: {
          "application/json": components["schemas"]["Deleted"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Hooks are immutable */
  patchAgentHook: {
    parameters: {
      path: {
        id: string;
        hookId: string;
      };
    };
    responses: {
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      405: components["responses"]["Error405"];
      500: components["responses"]["Error500"];
    };
  };
}
