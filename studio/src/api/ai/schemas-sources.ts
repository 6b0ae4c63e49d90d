// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  Source: {
    /** Format: uuid */
    id: string;
    owner_id: string | null;
    name: string;
    metadata: components["schemas"]["GetUsage200"];
    /** @enum {string} */
    origin: "upload" | "storage" | "url";
    extension: string;
    content_type: string;
    size_bytes: number;
    extraction_model: string;
    /** @enum {string} */
    extraction_status: "pending" | "extracting" | "extracted" | "attention_required" | "failed" | "cancelled";
    extraction_message: string | null;
    progress: {
      pages_done: number;
      pages_total: number | null;
    };
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    [key: string]: unknown;
  };
  ListSources200: components["schemas"]["Source"][];
  ImportSourcesFromUrls201: {
    sources: components["schemas"]["Source"][];
    failed: {
        url: string;
        error: string;
        [key: string]: unknown;
      }[];
  };
  GetSource200: {
    /** Format: uuid */
    id: string;
    owner_id: string | null;
    name: string;
    metadata: components["schemas"]["GetUsage200"];
    /** @enum {string} */
    origin: "upload" | "storage" | "url";
    extension: string;
    content_type: string;
    size_bytes: number;
    extraction_model: string;
    /** @enum {string} */
    extraction_status: "pending" | "extracting" | "extracted" | "attention_required" | "failed" | "cancelled";
    extraction_message: string | null;
    progress: {
      pages_done: number;
      pages_total: number | null;
    };
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    derivatives: components["schemas"]["GetUsage200"][];
    [key: string]: unknown;
  };
  UploadSourceForm: {
    /**
     * Format: binary
     * @description The document: .pdf .txt .md .docx .xlsx .xls .pptx .png .jpg .jpeg .webp .gif .tiff
     */
    file: string;
    name?: string;
    /** @description A JSON object, as a string; kept through indexing */
    metadata?: string;
    /** @description auto or an extraction engine (PDF only) */
    extraction_model?: string;
  };
  ImportSourceFromStorageBody: {
    bucket: string;
    path: string;
    name?: string;
    metadata?: {
      [key: string]: unknown;
    };
    extraction_model?: string;
  };
  ImportSourcesFromUrlsBody: {
    /** @enum {string} */
    mode: "urls" | "crawl" | "sitemap";
    urls: string[];
    max_pages?: number;
    metadata?: {
      [key: string]: unknown;
    };
  };
  UpdateSourceBody: {
    name?: string;
    metadata?: {
      [key: string]: unknown;
    };
  };
  ReextractSourceBody: {
    extraction_model?: string;
  };
}
