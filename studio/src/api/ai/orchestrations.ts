// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/orchestrations": {
    /** List the orchestrations you can see */
    get: operations["listOrchestrations"];
    /** Create an orchestration */
    post: operations["createOrchestration"];
  };
  "/api/orchestrations/{id}": {
    /** Read an orchestration with its entities */
    get: operations["getOrchestration"];
    /** Change an orchestration */
    put: operations["updateOrchestration"];
    /** Delete an orchestration */
    delete: operations["deleteOrchestration"];
  };
  "/api/orchestrations/{id}/entities": {
    /** List the members by position */
    get: operations["listEntities"];
    /** Add a member (`role` is accepted for role_description) */
    post: operations["createEntity"];
  };
  "/api/orchestrations/{id}/entities/{entityId}": {
    /** Change a member's role_description, config or position */
    put: operations["updateEntity"];
    /** Remove a member */
    delete: operations["deleteEntity"];
  };
}

export interface operations {
  /** List the orchestrations you can see */
  listOrchestrations: {
    responses: {
      /** @description Orchestrations */
      200: {
        content: {
          "application/json": components["schemas"]["ListOrchestrations200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Create an orchestration */
  createOrchestration: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateOrchestrationBody"];
      };
    };
    responses: {
      /** @description The orchestration */
      201: {
        content: {
          "application/json": components["schemas"]["Orchestration"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read an orchestration with its entities */
  getOrchestration: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The orchestration */
      200: {
        content: {
          "application/json": components["schemas"]["GetOrchestration200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Change an orchestration */
  updateOrchestration: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["UpdateOrchestrationBody"];
      };
    };
    responses: {
      /** @description The orchestration */
      200: {
        content: {
          "application/json": components["schemas"]["Orchestration"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete an orchestration */
  deleteOrchestration: {
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
  /** List the members by position */
  listEntities: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Entities */
      200: {
        content: {
          "application/json": components["schemas"]["ListEntities200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Add a member (`role` is accepted for role_description) */
  createEntity: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateEntityBody"];
      };
    };
    responses: {
      /** @description The entity */
      201: {
        content: {
          "application/json": components["schemas"]["Entity"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Change a member's role_description, config or position */
  updateEntity: {
    parameters: {
      path: {
        id: string;
        entityId: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["UpdateEntityBody"];
      };
    };
    responses: {
      /** @description The entity */
      200: {
        content: {
          "application/json": components["schemas"]["Entity"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Remove a member */
  deleteEntity: {
    parameters: {
      path: {
        id: string;
        entityId: string;
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
