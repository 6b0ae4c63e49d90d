// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  KnowledgeBase: {
    /** Format: uuid */
    id: string;
    owner_id: string | null;
    name: string;
    description: string | null;
    strategy: string;
    indexing_config: components["schemas"]["GetUsage200"];
    retrieval_config: components["schemas"]["GetUsage200"];
    needs_reindex: boolean;
    bm25_status: string;
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    status: {
      sources: number;
      pending: number;
      indexing: number;
      indexed: number;
      failed: number;
      cancelled: number;
      items: number;
      needs_reindex: boolean;
      [key: string]: unknown;
    };
    [key: string]: unknown;
  };
  IndexedSource: {
    /** Format: uuid */
    id: string;
    /** Format: uuid */
    source_id: string;
    /** @enum {string} */
    index_status: "pending" | "indexing" | "indexed" | "failed" | "cancelled";
    indexed_at: string | null;
    stats: components["schemas"]["GetUsage200"];
    error_message: string | null;
    source_name: string;
    file_type: string;
    /** Format: date-time */
    source_created_at: string;
    [key: string]: unknown;
  };
  SearchAnswer: {
    query: string;
    /** Format: uuid */
    knowledge_base_id: string;
    /** @description The diagnostics entry first, then the results best first */
    results: (components["schemas"]["RetrievalDiagnostics"] | components["schemas"]["SearchResult"])[];
    metadata: {
      query_enrichment: {
        enabled: boolean;
        queries: string[];
        [key: string]: unknown;
      };
      [key: string]: unknown;
    };
    [key: string]: unknown;
  };
  GetUsage200: {
    [key: string]: unknown;
  };
  ListKnowledgeBases200: components["schemas"]["KnowledgeBase"][];
  GetKnowledgeBase200: {
    /** Format: uuid */
    id: string;
    owner_id: string | null;
    name: string;
    description: string | null;
    strategy: string;
    indexing_config: components["schemas"]["GetUsage200"];
    retrieval_config: components["schemas"]["GetUsage200"];
    needs_reindex: boolean;
    bm25_status: string;
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    status: {
      sources: number;
      pending: number;
      indexing: number;
      indexed: number;
      failed: number;
      cancelled: number;
      items: number;
      needs_reindex: boolean;
      [key: string]: unknown;
    };
    sources: components["schemas"]["IndexedSource"][];
    sources_total: number;
    [key: string]: unknown;
  };
  ListIndexedSources200: {
    items: components["schemas"]["IndexedSource"][];
    total: number;
    limit: number;
    offset: number;
    [key: string]: unknown;
  };
  DeleteIndexedSource200: {
    message: string;
    /** Format: uuid */
    deleted_indexed_source_id: string;
    /** Format: uuid */
    kb_id: string;
  };
  ReindexKnowledgeBase202: {
    /** @enum {string} */
    status: "queued" | "noop";
    /** Format: uuid */
    knowledge_base_id: string;
    count: number;
    [key: string]: unknown;
  };
  ReindexKnowledgeBase200: {
    /** @enum {string} */
    status: "queued" | "noop";
    /** Format: uuid */
    knowledge_base_id: string;
    [key: string]: unknown;
  };
  BuildBm25202: {
    task_id: string;
    /** Format: uuid */
    knowledge_base_id: string;
  };
  GetGraphEnrichmentErrors200: {
    /** Format: uuid */
    knowledge_base_id: string;
    sources: components["schemas"]["GetUsage200"][];
  };
  ListKnowledgeBaseItems200: {
    items: {
        id: string;
        /** Format: uuid */
        source_id: string;
        text: string;
        meta: components["schemas"]["GetUsage200"];
        [key: string]: unknown;
      }[];
    total: number;
    limit: number;
    offset: number;
    [key: string]: unknown;
  };
  PutEnrichment200: {
    config: {
      fields: components["schemas"]["GetUsage200"][];
      llm_model: string | null;
      max_tokens: number | null;
      use_multimodal: boolean;
      status: string;
      [key: string]: unknown;
    };
    re_enrichment_triggered: boolean;
  };
  GetEnrichment200: {
    config: ({
      fields: components["schemas"]["GetUsage200"][];
      llm_model: string | null;
      max_tokens: number | null;
      use_multimodal: boolean;
      status: string;
      [key: string]: unknown;
    }) | null;
  };
  DeleteEnrichment200: {
    message: string;
    /** Format: uuid */
    knowledge_base_id: string;
  };
  CreateKnowledgeBaseBody: {
    name: string;
    description?: string | null;
    indexing_config?: {
      [key: string]: unknown;
    };
    retrieval_config?: {
      [key: string]: unknown;
    };
  };
  UpdateKnowledgeBaseBody: {
    name?: string;
    description?: string | null;
    indexing_config?: {
      [key: string]: unknown;
    };
    retrieval_config?: {
      [key: string]: unknown;
    };
  };
  AddIndexedSourceBody: {
    source_id: string;
  };
  ReindexKnowledgeBaseBody: {
    indexed_source_ids?: string[];
    failed_only?: boolean;
  };
  RunGraphEnrichmentBody: {
    indexed_source_id?: string;
    retry_failed?: boolean;
  };
  ListKnowledgeBaseItemsBody: {
    source_ids: string[];
    limit?: number;
    offset?: number;
  };
  SearchKnowledgeBaseBody: {
    query: string;
    top_k?: number;
    method?: string;
    vector_weight?: number;
    /** @enum {string} */
    fusion?: "weighted" | "rrf";
    /** @enum {string} */
    context_mode?: "text" | "image";
    ts_language?: string;
    reranker?: {
      model?: string;
      candidate_count?: number;
    } | null;
    reranker_model?: string;
    reranker_candidate_count?: number;
    score_threshold?: number;
    filter_metadata?: {
      [key: string]: unknown;
    };
    query_enrichment?: {
      enabled?: boolean;
      model?: string;
    };
  };
  EvaluateKnowledgeBaseBody: {
    queries: {
        query: string;
        relevant_source_ids: string[];
      }[];
    methods?: ("full_text" | "vector_search" | "hybrid")[];
    k?: number;
    vector_weight?: number;
  };
  PutEnrichmentBody: {
    fields: unknown[];
    llm_model?: string;
    max_tokens?: number;
    use_multimodal?: boolean;
  };
  RunEnrichmentBody: {
    incremental?: boolean;
    retry_failed?: boolean;
  };
}
