// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  GetKbDefaults200: {
    strategies: components["schemas"]["GetUsage200"];
    reranker: components["schemas"]["GetUsage200"];
    query_enrichment: components["schemas"]["GetUsage200"];
    enrichment: components["schemas"]["GetUsage200"];
    hybrid_vector_weight: number;
    extraction: components["schemas"]["GetUsage200"];
    [key: string]: unknown;
  };
}
