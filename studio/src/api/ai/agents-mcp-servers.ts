// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/agents/{id}/mcp-servers": {
    /** List the agent's MCP servers */
    get: operations["listAgentMcpServers"];
    /** Add an MCP server to the agent */
    post: operations["createAgentMcpServer"];
  };
  "/api/agents/{id}/mcp-servers/{serverId}": {
    /** Change an MCP server */
    put: operations["updateAgentMcpServer"];
    /** Remove an MCP server */
    delete: operations["deleteAgentMcpServer"];
  };
  "/api/agents/{id}/mcp-servers/{serverId}/tools": {
    /**
     * Ask an MCP server for its tools
     * @description Connects to the server now (enabled or not, with its stored headers, through the outbound address check), lists its tools and hangs up. offered_as is the name the agent's model sees. 502 MCP_SERVER_UNREACHABLE when it cannot be reached or listed in MCP_TOOL_TIMEOUT.
     */
    get: operations["listAgentMcpServerTools"];
  };
  "/api/agents/{id}/knowledge-bases": {
    /** List the agent's knowledge bases */
    get: operations["listAgentKnowledgeBases"];
    /** Give the agent a knowledge base (a search tool) */
    post: operations["assignAgentKnowledgeBase"];
  };
  "/api/agents/{id}/knowledge-bases/{assignmentId}": {
    /** Take a knowledge base from the agent */
    delete: operations["unassignAgentKnowledgeBase"];
  };
}

export interface operations {
  /** List the agent's MCP servers */
  listAgentMcpServers: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Servers */
      200: {
        content: {
          "application/json": components["schemas"]["ListAgentMcpServers200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Add an MCP server to the agent */
  createAgentMcpServer: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateAgentMcpServerBody"];
      };
    };
    responses: {
      /** @description The server */
      201: {
        content: {
          "application/json": components["schemas"]["McpServer"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Change an MCP server */
  updateAgentMcpServer: {
    parameters: {
      path: {
        id: string;
        serverId: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["UpdateAgentMcpServerBody"];
      };
    };
    responses: {
      /** @description The server */
      200: {
        content: {
          "application/json": components["schemas"]["McpServer"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Remove an MCP server */
  deleteAgentMcpServer: {
    parameters: {
      path: {
        id: string;
        serverId: string;
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
   * Ask an MCP server for its tools
   * @description Connects to the server now (enabled or not, with its stored headers, through the outbound address check), lists its tools and hangs up. offered_as is the name the agent's model sees. 502 MCP_SERVER_UNREACHABLE when it cannot be reached or listed in MCP_TOOL_TIMEOUT.
   */
  listAgentMcpServerTools: {
    parameters: {
      path: {
        id: string;
        serverId: string;
      };
    };
    responses: {
      /** @description The server's tools */
      200: {
        content: {
          "application/json": components["schemas"]["ListAgentMcpServerTools200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
      502: components["responses"]["Error502"];
    };
  };
  /** List the agent's knowledge bases */
  listAgentKnowledgeBases: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Assignments */
      200: {
        content: {
          "application/json": components["schemas"]["ListAgentKnowledgeBases200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Give the agent a knowledge base (a search tool) */
  assignAgentKnowledgeBase: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["AssignAgentKnowledgeBaseBody"];
      };
    };
    responses: {
      /** @description The assignment */
      201: {
        content: {
          "application/json": components["schemas"]["KnowledgeBaseAssignment"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Take a knowledge base from the agent */
  unassignAgentKnowledgeBase: {
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
}
