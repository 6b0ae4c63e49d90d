// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/sources/{id}/download": {
    /** Download the original file */
    get: operations["downloadSource"];
  };
  "/api/sources/{id}/derivatives/{type}/download": {
    /** Download a derivative */
    get: operations["downloadSourceDerivative"];
  };
}

export interface operations {
  /** Download the original file */
  downloadSource: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description The file's bytes */
      200: {
        content: {
          "application/octet-stream": string;
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Download a derivative */
  downloadSourceDerivative: {
    parameters: {
      query?: {
        /** @description An integer, 0 or more */
        index?: string;
      };
      path: {
        id: string;
        /** @description markdown, text, page_text or image */
        type: string;
      };
    };
    responses: {
      /** @description The derivative's bytes */
      200: {
        content: {
          "application/octet-stream": string;
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
