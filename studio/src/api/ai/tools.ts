// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/tools": {
    /** The builtin tools, then the custom ones you can see */
    get: operations["listTools"];
    /** Create a custom tool */
    post: operations["createTool"];
  };
  "/api/tools/{id}": {
    /** Read a custom tool */
    get: operations["getTool"];
    /** Change a custom tool */
    put: operations["updateTool"];
    /** Delete a custom tool */
    delete: operations["deleteTool"];
  };
  "/api/tools/{id}/try": {
    /**
     * Call a custom tool outside a run
     * @description The arguments are checked against the tool's input_schema (400 naming the first problem), then the tool is called as an agent's run calls it: as you, through the outbound address check, its output cut at MAX_TOOL_OUTPUT_LENGTH. A failing call is an answer (ok false with the error the model would read), not an HTTP error.
     */
    post: operations["tryTool"];
  };
}

export interface operations {
  /** The builtin tools, then the custom ones you can see */
  listTools: {
    responses: {
      /** @description Tools */
      200: {
        content: {
          "application/json": components["schemas"]["ListTools200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Create a custom tool */
  createTool: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateToolBody"];
      };
    };
    responses: {
      /** @description The tool */
      201: {
        content: {
          "application/json": components["schemas"]["Tool"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read a custom tool */
  getTool: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The tool */
      200: {
        content: {
          "application/json": components["schemas"]["Tool"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Change a custom tool */
  updateTool: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["UpdateToolBody"];
      };
    };
    responses: {
      /** @description The tool */
      200: {
        content: {
          "application/json": components["schemas"]["Tool"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete a custom tool */
  deleteTool: {
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
  /**
   * Call a custom tool outside a run
   * @description The arguments are checked against the tool's input_schema (400 naming the first problem), then the tool is called as an agent's run calls it: as you, through the outbound address check, its output cut at MAX_TOOL_OUTPUT_LENGTH. A failing call is an answer (ok false with the error the model would read), not an HTTP error.
   */
  tryTool: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["TryToolBody"];
      };
    };
    responses: {
      /** @description What the model would read */
      200: {
        content: {
          "application/json": components["schemas"]["TryTool200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
}
