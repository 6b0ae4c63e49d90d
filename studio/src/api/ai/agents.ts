// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/agents": {
    /** List the agents you can see */
    get: operations["listAgents"];
    /** Create an agent */
    post: operations["createAgent"];
  };
  "/api/agents/{id}": {
    /** Read an agent */
    get: operations["getAgent"];
    /** Delete an agent */
    delete: operations["deleteAgent"];
    /** Change an agent */
    patch: operations["updateAgent"];
  };
  "/api/agents/{id}/tools": {
    /** List the agent's tool assignments */
    get: operations["listAgentTools"];
    /** Assign a builtin or custom tool (tool_name) or a sub-agent (agent_id) */
    post: operations["assignAgentTool"];
  };
  "/api/agents/{id}/tools/{assignmentId}": {
    /** Remove a tool assignment */
    delete: operations["unassignAgentTool"];
    /** Set a builtin tool's config_override */
    patch: operations["updateAgentTool"];
  };
}

export interface operations {
  /** List the agents you can see */
  listAgents: {
    responses: {
      /** @description Your agents and the project's */
      200: {
        content: {
          "application/json": components["schemas"]["ListAgents200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Create an agent */
  createAgent: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateAgentBody"];
      };
    };
    responses: {
      /** @description The agent */
      201: {
        content: {
          "application/json": components["schemas"]["Agent"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read an agent */
  getAgent: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The agent */
      200: {
        content: {
          "application/json": components["schemas"]["Agent"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete an agent */
  deleteAgent: {
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
  /** Change an agent */
  updateAgent: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["UpdateAgentBody"];
      };
    };
    responses: {
      /** @description The agent */
      200: {
        content: {
          "application/json": components["schemas"]["Agent"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** List the agent's tool assignments */
  listAgentTools: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Assignments */
      200: {
        content: {
          "application/json": components["schemas"]["ListAgentTools200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Assign a builtin or custom tool (tool_name) or a sub-agent (agent_id) */
  assignAgentTool: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["AssignAgentToolBody"];
      };
    };
    responses: {
      /** @description The assignment */
      201: {
        content: {
          "application/json": components["schemas"]["ToolAssignment"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Remove a tool assignment */
  unassignAgentTool: {
    parameters: {
      path: {
        id: string;
        assignmentId: string;
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
  /** Set a builtin tool's config_override */
  updateAgentTool: {
    parameters: {
      path: {
        id: string;
        assignmentId: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["UpdateAgentToolBody"];
      };
    };
    responses: {
      /** @description The assignment */
      200: {
        content: {
          "application/json": components["schemas"]["ToolAssignment"];
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
