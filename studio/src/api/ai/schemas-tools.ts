// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  Tool: {
    /** Format: uuid */
    id?: string;
    name: string;
    description: string;
    input_schema: unknown;
    /** @enum {string} */
    tool_type: "builtin" | "custom";
    type?: string;
    config?: unknown;
    [key: string]: unknown;
  };
  ListTools200: components["schemas"]["Tool"][];
  TryTool200: {
    ok: boolean;
    output?: string;
    truncated?: boolean;
    error?: string;
    duration_ms: number;
  };
  CreateToolBody: {
    name: string;
    description: string;
    type: string;
    input_schema: {
      [key: string]: unknown;
    };
    config?: {
      [key: string]: unknown;
    };
  };
  UpdateToolBody: {
    name?: string;
    description?: string;
    type?: string;
    input_schema?: {
      [key: string]: unknown;
    };
    config?: {
      [key: string]: unknown;
    };
  };
  TryToolBody: {
    arguments: {
      [key: string]: unknown;
    };
  };
}
