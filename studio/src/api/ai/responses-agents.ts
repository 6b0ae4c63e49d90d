// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Responses {
  /** @description The request breaks a rule (the message names it) */
  Error400: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description No key, or a bad or expired token */
  Error401: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description No usable key or credits for the model's provider */
  Error402: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description The caller may not do this (the anonymous key alone, or not the owner) */
  Error403: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description Not found, or not visible to the caller */
  Error404: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description Not allowed on this resource */
  Error405: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description The resource is in a state that forbids this */
  Error409: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description The server failed (the cause is logged, not sent) */
  Error500: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description An upstream (a model vendor, the REST layer) failed */
  Error502: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description An error */
  Error503: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
  /** @description The run did not finish in time */
  Error504: {
    content: {
      "application/json": components["schemas"]["Error"];
    };
  };
}
