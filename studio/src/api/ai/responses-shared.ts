// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Responses {
  /** @description The request breaks a rule (the message names it) */
  OpenAiError400: {
    content: {
      "application/json": components["schemas"]["OpenAiError"];
    };
  };
  /** @description No key, or a bad or expired token */
  OpenAiError401: {
    content: {
      "application/json": components["schemas"]["OpenAiError"];
    };
  };
  /** @description No usable key or credits for the model's provider */
  OpenAiError402: {
    content: {
      "application/json": components["schemas"]["OpenAiError"];
    };
  };
  /** @description The caller may not do this (the anonymous key alone, or not the owner) */
  OpenAiError403: {
    content: {
      "application/json": components["schemas"]["OpenAiError"];
    };
  };
  /** @description Not found, or not visible to the caller */
  OpenAiError404: {
    content: {
      "application/json": components["schemas"]["OpenAiError"];
    };
  };
  /** @description The resource is in a state that forbids this */
  OpenAiError409: {
    content: {
      "application/json": components["schemas"]["OpenAiError"];
    };
  };
  /** @description The server failed (the cause is logged, not sent) */
  OpenAiError500: {
    content: {
      "application/json": components["schemas"]["OpenAiError"];
    };
  };
  /** @description An upstream (a model vendor, the REST layer) failed */
  OpenAiError502: {
    content: {
      "application/json": components["schemas"]["OpenAiError"];
    };
  };
}
