// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/knowledge-bases": {
    /** List knowledge bases */
    get: operations["listKnowledgeBases"];
    /** Create a knowledge base */
    post: operations["createKnowledgeBase"];
  };
  "/api/knowledge-bases/{id}": {
    /** Read a knowledge base with its first sources */
    get: operations["getKnowledgeBase"];
    /** Delete a knowledge base and its indexed data */
    delete: operations["deleteKnowledgeBase"];
    /** Change a knowledge base */
    patch: operations["updateKnowledgeBase"];
  };
  "/api/knowledge-bases/{id}/sources": {
    /** List indexed sources */
    get: operations["listIndexedSources"];
    /** Index a source (asynchronous) */
    post: operations["addIndexedSource"];
  };
  "/api/knowledge-bases/{id}/sources/{sid}/cancel": {
    /** Cancel indexing */
    post: operations["cancelIndexedSource"];
  };
  "/api/knowledge-bases/{id}/sources/{sid}": {
    /** Remove a source from the knowledge base */
    delete: operations["deleteIndexedSource"];
  };
  "/api/knowledge-bases/{id}/reindex": {
    /** Index again: some, the failed, or all */
    post: operations["reindexKnowledgeBase"];
  };
}

export interface operations {
  /** List knowledge bases */
  listKnowledgeBases: {
    responses: {
      /** @description Knowledge bases */
      200: {
        content: {
          "application/json": components["schemas"]["ListKnowledgeBases200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Create a knowledge base */
  createKnowledgeBase: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["CreateKnowledgeBaseBody"];
      };
    };
    responses: {
      /** @description The knowledge base */
      201: {
        content: {
          "application/json": components["schemas"]["KnowledgeBase"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read a knowledge base with its first sources */
  getKnowledgeBase: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The knowledge base */
      200: {
        content: {
          "application/json": components["schemas"]["GetKnowledgeBase200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete a knowledge base and its indexed data */
  deleteKnowledgeBase: {
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
  /** Change a knowledge base */
  updateKnowledgeBase: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["UpdateKnowledgeBaseBody"];
      };
    };
    responses: {
      /** @description The knowledge base */
      200: {
        content: {
          "application/json": components["schemas"]["KnowledgeBase"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** List indexed sources */
  listIndexedSources: {
    parameters: {
      query?: {
        /** @description Case-insensitive name substring */
        q?: string;
        status?: "pending" | "indexing" | "indexed" | "failed" | "cancelled";
        sort?: "name" | "created_at";
        order?: "asc" | "desc";
        /** @description An integer, 1 to 200 */
        limit?: string;
        /** @description An integer, 0 or more */
        offset?: string;
      };
      path: {
        id: string;
      };
    };
    responses: {
      /** @description A page of entries */
      200: {
        content: {
          "application/json": components["schemas"]["ListIndexedSources200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Index a source (asynchronous) */
  addIndexedSource: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["AddIndexedSourceBody"];
      };
    };
    responses: {
      /** @description The entry, pending */
      202: {
        content: {
          "application/json": components["schemas"]["IndexedSource"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Cancel indexing */
  cancelIndexedSource: {
    parameters: {
      path: {
        id: string;
        sid: string;
      };
    };
    responses: {
      /** @description The entry */
      200: {
        content: {
          "application/json": components["schemas"]["IndexedSource"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      409: components["responses"]["Error409"];
      500: components["responses"]["Error500"];
    };
  };
  /** Remove a source from the knowledge base */
  deleteIndexedSource: {
    parameters: {
      path: {
        id: string;
        sid: string;
      };
    };
    responses: {
      /** @description Deleted */
      200: {
        content: {
          "application/json": components["schemas"]["DeleteIndexedSource200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Index again: some, the failed, or all */
  reindexKnowledgeBase: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["ReindexKnowledgeBaseBody"];
      };
    };
    responses: {
      /** @description Nothing qualified */
      200: {
        content: {
          "application/json": components["schemas"]["ReindexKnowledgeBase200"];
        };
      };
      /** @description Queued */
      202: {
        content: {
          "application/json": components["schemas"]["ReindexKnowledgeBase202"];
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
