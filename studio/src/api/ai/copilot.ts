// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/copilot/sessions": {
    /** Your copilot session of a workflow */
    get: operations["getCopilotSession"];
    /** Open (or reopen) your copilot session of a workflow */
    post: operations["openCopilotSession"];
  };
  "/api/copilot/sessions/{id}": {
    /** Delete a copilot session */
    delete: operations["deleteCopilotSession"];
  };
  "/api/copilot/sessions/{id}/messages": {
    /** The session's history */
    get: operations["listCopilotMessages"];
  };
  "/api/copilot/sessions/{id}/messages/{mid}/snapshot": {
    /** Save the editor state before applying a suggestion */
    post: operations["saveCopilotSnapshot"];
  };
  "/api/copilot/sessions/{id}/chat": {
    /** Chat with the copilot about the workflow */
    post: operations["copilotChat"];
  };
  "/api/copilot/settings/model": {
    /** The copilot's model and the choices */
    get: operations["getCopilotModel"];
    /**
     * Choose the copilot's model
     * @description Changes need the service-role key (403 otherwise).
     */
    put: operations["putCopilotModel"];
  };
}

export interface operations {
  /** Your copilot session of a workflow */
  getCopilotSession: {
    parameters: {
      query: {
        workflow_id: string;
      };
    };
    responses: {
      /** @description The session */
      200: {
        content: {
          "application/json": components["schemas"]["CopilotSession"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Open (or reopen) your copilot session of a workflow */
  openCopilotSession: {
    requestBody?: {
      content: {
        "application/json": components["schemas"]["OpenCopilotSessionBody"];
      };
    };
    responses: {
      /** @description Already open */
      200: {
        content: {
          "application/json": components["schemas"]["CopilotSession"];
        };
      };
      /** @description Opened */
      201: {
        content: {
          "application/json": components["schemas"]["CopilotSession"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete a copilot session */
  deleteCopilotSession: {
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
  /** The session's history */
  listCopilotMessages: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Messages */
      200: {
        content: {
          "application/json": components["schemas"]["ListCopilotMessages200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Save the editor state before applying a suggestion */
  saveCopilotSnapshot: {
    parameters: {
      path: {
        id: string;
        mid: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["SaveCopilotSnapshotBody"];
      };
    };
    responses: {
      /** @description The snapshot */
      200: {
        content: {
          "application/json": components["schemas"]["SaveCopilotSnapshot200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Chat with the copilot about the workflow */
  copilotChat: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["CopilotChatBody"];
      };
    };
    responses: {
      /** @description Server-sent events of spec 6.2 */
      200: {
        content: {
          "text/event-stream": components["schemas"]["CopilotEvent"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** The copilot's model and the choices */
  getCopilotModel: {
    responses: {
      /** @description The model */
      200: {
        content: {
          "application/json": components["schemas"]["GetCopilotModel200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Choose the copilot's model
   * @description Changes need the service-role key (403 otherwise).
   */
  putCopilotModel: {
    requestBody?: {
      content: {
        "application/json": components["schemas"]["PutCopilotModelBody"];
      };
    };
    responses: {
      /** @description The model */
      200: {
        content: {
          "application/json": components["schemas"]["PutCopilotModel200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
}
