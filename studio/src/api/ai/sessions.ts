// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/sessions": {
    /** List your sessions, latest first */
    get: operations["listSessions"];
  };
  "/api/sessions/{id}": {
    /** Read a session */
    get: operations["getSession"];
    /** Delete a session and its runs */
    delete: operations["deleteSession"];
  };
  "/api/sessions/{id}/messages": {
    /** Read the messages; assistant messages carry retrieved_context */
    get: operations["listSessionMessages"];
  };
  "/api/sessions/{id}/runs": {
    /** List the session's runs */
    get: operations["listSessionRuns"];
  };
  "/api/sessions/{id}/runs/{runId}/retrieved-context": {
    /** What a run retrieved */
    get: operations["getRetrievedContext"];
  };
}

export interface operations {
  /** List your sessions, latest first */
  listSessions: {
    responses: {
      /** @description Sessions */
      200: {
        content: {
          "application/json": components["schemas"]["ListSessions200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read a session */
  getSession: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The session */
      200: {
        content: {
          "application/json": components["schemas"]["Session"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete a session and its runs */
  deleteSession: {
    parameters: {
      path: {
        id: string;
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
  /** Read the messages; assistant messages carry retrieved_context */
  listSessionMessages: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Messages in order */
      200: {
        content: {
          "application/json": components["schemas"]["ListSessionMessages200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** List the session's runs */
  listSessionRuns: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Runs */
      200: {
        content: {
          "application/json": components["schemas"]["ListSessionRuns200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** What a run retrieved */
  getRetrievedContext: {
    parameters: {
      path: {
        id: string;
        runId: string;
      };
    };
    responses: {
      /** @description The run's retrieved context */
      200: {
        content: {
          "application/json": components["schemas"]["GetRetrievedContext200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
}
