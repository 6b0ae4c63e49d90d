// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/knowledge-bases/{id}/build-bm25": {
    /** Build the full-text index (hybrid and full_text) */
    post: operations["buildBm25"];
  };
  "/api/knowledge-bases/{id}/graph-enrichment/run": {
    /** Enrich the graph (graph_index) */
    post: operations["runGraphEnrichment"];
  };
  "/api/knowledge-bases/{id}/graph-enrichment/errors": {
    /** Per-source graph enrichment errors */
    get: operations["getGraphEnrichmentErrors"];
  };
  "/api/knowledge-bases/{id}/items": {
    /** Read indexed items of some sources */
    post: operations["listKnowledgeBaseItems"];
  };
  "/api/knowledge-bases/{id}/search": {
    /** Search */
    post: operations["searchKnowledgeBase"];
  };
  "/api/knowledge-bases/{id}/evaluate": {
    /** Compare retrieval methods on labelled queries */
    post: operations["evaluateKnowledgeBase"];
  };
}

export interface operations {
  /** Build the full-text index (hybrid and full_text) */
  buildBm25: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Queued */
      202: {
        content: {
          "application/json": components["schemas"]["BuildBm25202"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Enrich the graph (graph_index) */
  runGraphEnrichment: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["RunGraphEnrichmentBody"];
      };
    };
    responses: {
      /** @description Queued */
      202: {
        content: {
          "application/json": components["schemas"]["ReindexKnowledgeBase200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Per-source graph enrichment errors */
  getGraphEnrichmentErrors: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Errors by source */
      200: {
        content: {
          "application/json": components["schemas"]["GetGraphEnrichmentErrors200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read indexed items of some sources */
  listKnowledgeBaseItems: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["ListKnowledgeBaseItemsBody"];
      };
    };
    responses: {
      /** @description A page of items */
      200: {
        content: {
          "application/json": components["schemas"]["ListKnowledgeBaseItems200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Search */
  searchKnowledgeBase: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["SearchKnowledgeBaseBody"];
      };
    };
    responses: {
      /** @description The diagnostics entry, then results best first */
      200: {
        content: {
          "application/json": components["schemas"]["SearchAnswer"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
      502: components["responses"]["Error502"];
    };
  };
  /** Compare retrieval methods on labelled queries */
  evaluateKnowledgeBase: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["EvaluateKnowledgeBaseBody"];
      };
    };
    responses: {
      /** @description Metrics per method */
      200: {
        content: {
          "application/json": components["schemas"]["GetUsage200"];
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
