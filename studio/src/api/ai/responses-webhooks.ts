// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Responses {
  /** @description The request breaks a rule (the message names it) */
  CodedError400: {
    content: {
      "application/json": components["schemas"]["CodedError"];
    };
  };
  /** @description The caller may not do this (the anonymous key alone, or not the owner) */
  CodedError403: {
    content: {
      "application/json": components["schemas"]["CodedError"];
    };
  };
  /** @description Not found, or not visible to the caller */
  CodedError404: {
    content: {
      "application/json": components["schemas"]["CodedError"];
    };
  };
  /** @description The resource is in a state that forbids this */
  CodedError409: {
    content: {
      "application/json": components["schemas"]["CodedError"];
    };
  };
  /** @description The server failed (the cause is logged, not sent) */
  CodedError500: {
    content: {
      "application/json": components["schemas"]["CodedError"];
    };
  };
  /** @description An error */
  CodedError503: {
    content: {
      "application/json": components["schemas"]["CodedError"];
    };
  };
  /** @description The run did not finish in time */
  CodedError504: {
    content: {
      "application/json": components["schemas"]["CodedError"];
    };
  };
  /** @description No key, or a bad or expired token */
  WebhookUnauthorized401: {
    content: {
      "application/json": components["schemas"]["WebhookUnauthorized"];
    };
  };
}
