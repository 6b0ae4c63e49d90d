// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/agents/{id}/run": {
    /**
     * Run the agent on a message
     * @description Without session_id a session is created for the caller. The answer comes when the run ends (an approval may hold it, parked: 409 if it is cancelled meanwhile). 503 when the server stopped before the run ended: the run goes on elsewhere; follow its events (run_id in the body).
     */
    post: operations["runAgent"];
  };
  "/api/agents/{id}/run/stream": {
    /** Run the agent, streaming its events */
    post: operations["streamAgentRun"];
  };
  "/api/agents/{id}/runs": {
    /** The agent's runs, newest first */
    get: operations["listAgentRuns"];
  };
  "/api/agents/{id}/runs/{runId}": {
    /** Read a run: status, output, usage, messages and approvals */
    get: operations["getAgentRun"];
  };
  "/api/agents/{id}/runs/{runId}/events": {
    /**
     * Follow a run: its stored events, then new ones until it ends
     * @description With no cursor, from the first event; with `Last-Event-ID: K` (or `?after=K`), exactly the events after K; then new events, from whichever replica runs it, until the run ends.
     */
    get: operations["followAgentRun"];
  };
  "/api/agents/{id}/runs/{runId}/cancel": {
    /** Cancel a run, from any replica */
    post: operations["cancelAgentRun"];
  };
  "/api/agents/{id}/runs/{runId}/approvals/{approvalId}": {
    /** Answer an approval_requested event */
    post: operations["decideApproval"];
  };
}

export interface operations {
  /**
   * Run the agent on a message
   * @description Without session_id a session is created for the caller. The answer comes when the run ends (an approval may hold it, parked: 409 if it is cancelled meanwhile). 503 when the server stopped before the run ended: the run goes on elsewhere; follow its events (run_id in the body).
   */
  runAgent: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["RunAgentBody"];
      };
    };
    responses: {
      /** @description The run's result */
      200: {
        content: {
          "application/json": components["schemas"]["AgentRunResult"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      402: components["responses"]["Error402"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      409: components["responses"]["Error409"];
      500: components["responses"]["Error500"];
      502: components["responses"]["Error502"];
      503: components["responses"]["Error503"];
      504: components["responses"]["Error504"];
    };
  };
  /** Run the agent, streaming its events */
  streamAgentRun: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["RunAgentBody"];
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
  /** The agent's runs, newest first */
  listAgentRuns: {
    parameters: {
      query?: {
        limit?: number;
      };
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Runs you can see */
      200: {
        content: {
          "application/json": components["schemas"]["ListAgentRuns200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read a run: status, output, usage, messages and approvals */
  getAgentRun: {
    parameters: {
      path: {
        id: string;
        runId: string;
      };
    };
    responses: {
      /** @description The run */
      200: {
        content: {
          "application/json": components["schemas"]["AgentRunRecord"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Follow a run: its stored events, then new ones until it ends
   * @description With no cursor, from the first event; with `Last-Event-ID: K` (or `?after=K`), exactly the events after K; then new events, from whichever replica runs it, until the run ends.
   */
  followAgentRun: {
    parameters: {
      query?: {
        /** @description An integer, 0 to 2147483647 */
        after?: string;
      };
      path: {
        id: string;
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
  cancelAgentRun: {
    parameters: {
      path: {
        id: string;
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
  /** Answer an approval_requested event */
  decideApproval: {
    parameters: {
      path: {
        id: string;
        runId: string;
        approvalId: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["DecideApprovalBody"];
      };
    };
    responses: {
      /** @description The approval */
      200: {
        content: {
          "application/json": components["schemas"]["Approval"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      409: components["responses"]["Error409"];
      500: components["responses"]["Error500"];
    };
  };
}
