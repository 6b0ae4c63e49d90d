// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/workflows/{id}/executions": {
    /** List executions, newest first */
    get: operations["listExecutions"];
  };
  "/api/workflows/{id}/executions/{eid}": {
    /** Read an execution */
    get: operations["getExecution"];
  };
  "/api/workflows/{id}/executions/{eid}/events": {
    /**
     * Follow an execution: its stored events, then new ones until it ends
     * @description With no cursor, from the first event; with `Last-Event-ID: K` (or `?after=K`), exactly the events after K; then new events until the run ends.
     */
    get: operations["followExecution"];
    /**
     * Send an event to a waiting execution
     * @description Ends every wait block of the run waiting for `event`, with `data` as its output's data; a parked run is taken up at once. 409 when no step of the run waits for it.
     */
    post: operations["sendExecutionEvent"];
  };
  "/api/workflows/{id}/executions/{eid}/cancel": {
    /** Cancel a queued or running execution */
    post: operations["cancelExecution"];
  };
  "/api/workflows/{id}/executions/{eid}/logs": {
    /** Read an execution with its per-block logs */
    get: operations["getExecutionLogs"];
  };
}

export interface operations {
  /** List executions, newest first */
  listExecutions: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Executions */
      200: {
        content: {
          "application/json": components["schemas"]["ListExecutions200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read an execution */
  getExecution: {
    parameters: {
      path: {
        id: string;
        eid: string;
      };
    };
    responses: {
      /** @description The execution */
      200: {
        content: {
          "application/json": components["schemas"]["GetExecution200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Follow an execution: its stored events, then new ones until it ends
   * @description With no cursor, from the first event; with `Last-Event-ID: K` (or `?after=K`), exactly the events after K; then new events until the run ends.
   */
  followExecution: {
    parameters: {
      query?: {
        /** @description An integer, 0 to 2147483647 */
        after?: string;
      };
      path: {
        id: string;
        eid: string;
      };
    };
    responses: {
      /** @description Server-sent events, each with its `id:` number */
      200: {
        content: {
          "text/event-stream": components["schemas"]["WorkflowEvent"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Send an event to a waiting execution
   * @description Ends every wait block of the run waiting for `event`, with `data` as its output's data; a parked run is taken up at once. 409 when no step of the run waits for it.
   */
  sendExecutionEvent: {
    parameters: {
      path: {
        id: string;
        eid: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["SendExecutionEventBody"];
      };
    };
    responses: {
      /** @description How many waits it ended */
      202: {
        content: {
          "application/json": components["schemas"]["SendExecutionEvent202"];
        };
      };
      400: components["responses"]["CodedError400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["CodedError404"];
      409: components["responses"]["CodedError409"];
      500: components["responses"]["Error500"];
    };
  };
  /** Cancel a queued or running execution */
  cancelExecution: {
    parameters: {
      path: {
        id: string;
        eid: string;
      };
    };
    responses: {
      /** @description Whether it was cancelled */
      200: {
        content: {
          "application/json": components["schemas"]["CancelExecution200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read an execution with its per-block logs */
  getExecutionLogs: {
    parameters: {
      path: {
        id: string;
        eid: string;
      };
    };
    responses: {
      /** @description The execution and its blocks */
      200: {
        content: {
          "application/json": components["schemas"]["GetExecutionLogs200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
}
