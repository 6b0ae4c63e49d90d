// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/orchestrations/{id}/run": {
    /**
     * Run the orchestration on a message
     * @description 503 when the server stopped before the run ended: the run goes on elsewhere; follow its events (run_id in the body).
     */
    post: operations["runOrchestration"];
  };
  "/api/orchestrations/{id}/run/stream": {
    /** Run the orchestration, streaming its events and its delegations' */
    post: operations["streamOrchestrationRun"];
  };
  "/api/orchestrations/runs/{runId}/events": {
    /**
     * Follow a run: its stored events, then new ones until it ends
     * @description With no cursor, from the first event; with `Last-Event-ID: K` (or `?after=K`), exactly the events after K; then new events, from whichever replica runs it, until the run ends.
     */
    get: operations["followOrchestrationRun"];
  };
  "/api/orchestrations/runs/{runId}/cancel": {
    /** Cancel a run, from any replica */
    post: operations["cancelOrchestrationRun"];
  };
  "/api/orchestrations/runs/{runId}": {
    /** Read an orchestration run with its delegations */
    get: operations["getOrchestrationRun"];
  };
  "/api/orchestrations/{id}/hooks": {
    /** List the Orchestration's hooks */
    get: operations["listOrchestrationHooks"];
    /** Add a hook to the Orchestration */
    post: operations["createOrchestrationHook"];
  };
  "/api/orchestrations/{id}/hooks/{hookId}": {
    /** Hooks are immutable */
    put: operations["putOrchestrationHook"];
    /** Delete a hook of the Orchestration */
    delete: operations["deleteOrchestrationHook"];
    /** Hooks are immutable */
    patch: operations["patchOrchestrationHook"];
  };
}

export interface operations {
  /**
   * Run the orchestration on a message
   * @description 503 when the server stopped before the run ended: the run goes on elsewhere; follow its events (run_id in the body).
   */
  runOrchestration: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["RunOrchestrationBody"];
      };
    };
    responses: {
      /** @description The run's result */
      200: {
        content: {
          "application/json": components["schemas"]["OrchestrationRunResult"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      402: components["responses"]["Error402"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
      502: components["responses"]["Error502"];
      503: components["responses"]["Error503"];
      504: components["responses"]["Error504"];
    };
  };
  /** Run the orchestration, streaming its events and its delegations' */
  streamOrchestrationRun: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["RunOrchestrationBody"];
      };
    };
    responses: {
      /** @description Server-sent events, one JSON object per `data:` line with its number as `id:`, `start` first and `complete` (or `error`) last; failures before the stream starts are plain HTTP errors. Leaving does not stop the run: GET …/runs/{run_id}/events picks it up again */
      200: {
        content: {
          "text/event-stream": components["schemas"]["RunEvent"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      402: components["responses"]["Error402"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Follow a run: its stored events, then new ones until it ends
   * @description With no cursor, from the first event; with `Last-Event-ID: K` (or `?after=K`), exactly the events after K; then new events, from whichever replica runs it, until the run ends.
   */
  followOrchestrationRun: {
    parameters: {
      query?: {
        /** @description An integer, 0 to 2147483647 */
        after?: string;
      };
      path: {
        runId: string;
      };
    };
    responses: {
      /** @description Server-sent events as the run's stream sent them, each with its `id:` number, until the run's last event */
      200: {
        content: {
          "text/event-stream": components["schemas"]["RunEvent"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Cancel a run, from any replica */
  cancelOrchestrationRun: {
    parameters: {
      path: {
        runId: string;
      };
    };
    responses: {
      /** @description Whether it was still going */
      200: {
        content: {
          "application/json": components["schemas"]["CancelAgentRun200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read an orchestration run with its delegations */
  getOrchestrationRun: {
    parameters: {
      path: {
        runId: string;
      };
    };
    responses: {
      /** @description The run */
      200: {
        content: {
          "application/json": components["schemas"]["OrchestrationRunRecord"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** List the Orchestration's hooks */
  listOrchestrationHooks: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Hooks by position */
      200: {
        content: {
          "application/json": components["schemas"]["ListOrchestrationHooks200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Add a hook to the Orchestration */
  createOrchestrationHook: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateOrchestrationHookBody"];
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
  putOrchestrationHook: {
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
  /** Delete a hook of the Orchestration */
  deleteOrchestrationHook: {
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
  patchOrchestrationHook: {
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
