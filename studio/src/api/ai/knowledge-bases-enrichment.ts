// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/knowledge-bases/{id}/enrichment": {
    /** Read the metadata enrichment config */
    get: operations["getEnrichment"];
    /** Set the metadata enrichment config */
    put: operations["putEnrichment"];
    /** Remove the config and the metadata table */
    delete: operations["deleteEnrichment"];
  };
  "/api/knowledge-bases/{id}/enrichment/run": {
    /** Run metadata enrichment */
    post: operations["runEnrichment"];
  };
  "/api/knowledge-bases/{id}/enrichment/results": {
    /** Read enriched values of some items */
    get: operations["getEnrichmentResults"];
  };
}

export interface operations {
  /** Read the metadata enrichment config */
  getEnrichment: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The config, null when none */
      200: {
        content: {
          "application/json": components["schemas"]["GetEnrichment200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Set the metadata enrichment config */
  putEnrichment: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["PutEnrichmentBody"];
      };
    };
    responses: {
      /** @description The config and whether re-enrichment started */
      200: {
        content: {
          "application/json": components["schemas"]["PutEnrichment200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      409: components["responses"]["Error409"];
      500: components["responses"]["Error500"];
    };
  };
  /** Remove the config and the metadata table */
  deleteEnrichment: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Deleted */
      200: {
        content: {
          "application/json": components["schemas"]["DeleteEnrichment200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Run metadata enrichment */
  runEnrichment: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["RunEnrichmentBody"];
      };
    };
    responses: {
      /** @description Started */
      202: {
        content: {
          "application/json": components["schemas"]["GetUsage200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      409: components["responses"]["Error409"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read enriched values of some items */
  getEnrichmentResults: {
    parameters: {
      query: {
        /** @description Item ids separated by commas */
        item_ids: string;
      };
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Values per item, with item_errors */
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
