// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  ListContextHandlers200: {
    items: ({
        /** Format: uuid */
        id: string;
        query: string;
        knowledge_bases: components["schemas"]["GetUsage200"][];
        chunk_count: number;
        token_count: number | null;
        error_count: number;
        /** Format: date-time */
        created_at: string;
        [key: string]: unknown;
      })[];
    total: number;
    limit: number;
    offset: number;
    [key: string]: unknown;
  };
  CreateContextHandler201: {
    /** Format: uuid */
    id: string;
    query: string;
    knowledge_base_configs: ({
        /** Format: uuid */
        id: string;
        top_k: number | null;
        [key: string]: unknown;
      })[];
    chunks: ({
        id: string;
        text: string;
        score: number;
        retrieval_score?: number | null;
        reranker_score?: number | null;
        /** Format: uuid */
        source_id: string;
        source_name: string;
        /** Format: uuid */
        knowledge_base_id: string;
        kb_name: string;
        indexing_strategy: string;
        meta: components["schemas"]["GetUsage200"];
        included_in_context: boolean;
        token_count: number;
        [key: string]: unknown;
      })[];
    context: string;
    token_count: number;
    max_context_tokens: number;
    metadata: {
      query_enrichment: {
        enabled: boolean;
        queries: string[];
        [key: string]: unknown;
      };
      [key: string]: unknown;
    };
    errors: {
        /** Format: uuid */
        knowledge_base_id: string;
        error: string;
      }[];
    /** Format: date-time */
    created_at: string;
    [key: string]: unknown;
  };
  CreateContextHandlerBody: {
    query: string;
    knowledge_bases: {
        id: string;
        top_k?: number;
      }[];
    max_context_tokens?: number;
  };
}
