// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Responses {
  /** @description Too many executions this minute */
  CodedError429: {
    content: {
      "application/json": components["schemas"]["CodedError"];
    };
  };
}
