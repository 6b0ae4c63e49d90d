// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/sources": {
    /** List your sources */
    get: operations["listSources"];
  };
  "/api/sources/{id}": {
    /** Read a source with its derivatives */
    get: operations["getSource"];
    /** Delete a source, its file and derivatives */
    delete: operations["deleteSource"];
    /** Change a source's name or metadata */
    patch: operations["updateSource"];
  };
  "/api/sources/upload": {
    /** Upload a document; extraction runs in the background */
    post: operations["uploadSource"];
  };
  "/api/sources/import-from-storage": {
    /** Make a source of a stored object */
    post: operations["importSourceFromStorage"];
  };
  "/api/sources/import-url": {
    /** Import web pages (urls, crawl or sitemap) */
    post: operations["importSourcesFromUrls"];
  };
  "/api/sources/{id}/page-texts": {
    /** Read the text by page */
    get: operations["getSourcePageTexts"];
  };
  "/api/sources/{id}/reextract": {
    /** Extract again, optionally with another engine */
    post: operations["reextractSource"];
  };
  "/api/sources/{id}/cancel": {
    /** Cancel a pending or running extraction */
    post: operations["cancelSource"];
  };
}

export interface operations {
  /** List your sources */
  listSources: {
    parameters: {
      query?: {
        status?: "pending" | "extracting" | "extracted" | "attention_required" | "failed" | "cancelled";
      };
    };
    responses: {
      /** @description Sources */
      200: {
        content: {
          "application/json": components["schemas"]["ListSources200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read a source with its derivatives */
  getSource: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The source */
      200: {
        content: {
          "application/json": components["schemas"]["GetSource200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Delete a source, its file and derivatives */
  deleteSource: {
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
  /** Change a source's name or metadata */
  updateSource: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["UpdateSourceBody"];
      };
    };
    responses: {
      /** @description The source */
      200: {
        content: {
          "application/json": components["schemas"]["Source"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Upload a document; extraction runs in the background */
  uploadSource: {
    requestBody: {
      content: {
        "multipart/form-data": components["schemas"]["UploadSourceForm"];
      };
    };
    responses: {
      /** @description The source, pending extraction */
      201: {
        content: {
          "application/json": components["schemas"]["Source"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      413: components["responses"]["Error413"];
      500: components["responses"]["Error500"];
    };
  };
  /** Make a source of a stored object */
  importSourceFromStorage: {
    requestBody?: {
      content: {
        "application/json": components["schemas"]["ImportSourceFromStorageBody"];
      };
    };
    responses: {
      /** @description The source */
      201: {
        content: {
          "application/json": components["schemas"]["Source"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      413: components["responses"]["Error413"];
      500: components["responses"]["Error500"];
    };
  };
  /** Import web pages (urls, crawl or sitemap) */
  importSourcesFromUrls: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["ImportSourcesFromUrlsBody"];
      };
    };
    responses: {
      /** @description The sources made and the pages that failed */
      201: {
        content: {
          "application/json": components["schemas"]["ImportSourcesFromUrls201"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read the text by page */
  getSourcePageTexts: {
    parameters: {
      query?: {
        /** @description An integer, 1 or more */
        page?: string;
      };
      path: {
        id: string;
      };
    };
    responses: {
      /** @description One page (with page) or every page */
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
  /** Extract again, optionally with another engine */
  reextractSource: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["ReextractSourceBody"];
      };
    };
    responses: {
      /** @description The source */
      200: {
        content: {
          "application/json": components["schemas"]["Source"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Cancel a pending or running extraction */
  cancelSource: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The source */
      200: {
        content: {
          "application/json": components["schemas"]["Source"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      409: components["responses"]["Error409"];
      500: components["responses"]["Error500"];
    };
  };
}
