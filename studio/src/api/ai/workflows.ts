// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/workflows": {
    /** List workflows */
    get: operations["listWorkflows"];
    /** Create a workflow */
    post: operations["createWorkflow"];
  };
  "/api/workflows/{id}": {
    /** Read a workflow with its blocks and edges */
    get: operations["getWorkflow"];
    /** Delete a workflow */
    delete: operations["deleteWorkflow"];
    /** Change a workflow's name or description */
    patch: operations["updateWorkflow"];
  };
  "/api/workflows/block-types": {
    /**
     * List the block types a graph may use
     * @description Each type with its config's JSON Schema, examples, aliases and whether a run may start there, in palette order.
     */
    get: operations["listBlockTypes"];
  };
  "/api/workflows/{id}/graph": {
    /**
     * Replace the graph (blocks and edges)
     * @description Each block needs id and type (a registered type); each edge source and target, blocks of this graph; no cycles.
     */
    put: operations["putWorkflowGraph"];
  };
  "/api/workflows/{id}/deploy": {
    /** Deploy the current graph as a new version */
    post: operations["deployWorkflow"];
  };
  "/api/workflows/{id}/undeploy": {
    /** Stop webhook triggering */
    post: operations["undeployWorkflow"];
  };
}

export interface operations {
  /** List workflows */
  listWorkflows: {
    parameters: {
      query?: {
        limit?: number;
        offset?: number;
      };
    };
    responses: {
      /** @description A page of workflows */
      200: {
        content: {
          "application/json": components["schemas"]["ListWorkflows200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Create a workflow */
  createWorkflow: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateWorkflowBody"];
      };
    };
    responses: {
      /** @description The workflow, with an empty graph */
      201: {
        content: {
          "application/json": components["schemas"]["WorkflowWithGraph"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read a workflow with its blocks and edges */
  getWorkflow: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The workflow */
      200: {
        content: {
          "application/json": components["schemas"]["WorkflowWithGraph"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["CodedError404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete a workflow */
  deleteWorkflow: {
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
  /** Change a workflow's name or description */
  updateWorkflow: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["UpdateWorkflowBody"];
      };
    };
    responses: {
      /** @description The workflow */
      200: {
        content: {
          "application/json": components["schemas"]["Workflow"];
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
   * List the block types a graph may use
   * @description Each type with its config's JSON Schema, examples, aliases and whether a run may start there, in palette order.
   */
  listBlockTypes: {
    responses: {
      /** @description Block types */
      200: {
        content: {
          "application/json": components["schemas"]["ListBlockTypes200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Replace the graph (blocks and edges)
   * @description Each block needs id and type (a registered type); each edge source and target, blocks of this graph; no cycles.
   */
  putWorkflowGraph: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["PutWorkflowGraphBody"];
      };
    };
    responses: {
      /** @description The saved graph */
      200: {
        content: {
          "application/json": components["schemas"]["Graph"];
        };
      };
      400: components["responses"]["CodedError400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["CodedError404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Deploy the current graph as a new version */
  deployWorkflow: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Deployed */
      200: {
        content: {
          "application/json": components["schemas"]["DeployWorkflow200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Stop webhook triggering */
  undeployWorkflow: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Undeployed */
      200: {
        content: {
          "application/json": components["schemas"]["UndeployWorkflow200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
}
