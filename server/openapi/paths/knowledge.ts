// /api/sources, /api/knowledge-bases, /api/context-handlers, /api/sessions,
// /api/config (spec 4.12 to 4.15).
import { z } from 'zod';
import { DerivativeQuery, FromStorageBody, PageTextsQuery, ReextractBody, SourceListQuery, SourcePatch } from '../../ai/sources/routes.ts';
import { ImportUrlBody } from '../../ai/sources/url-import.ts';
import { KnowledgeBaseBody, KnowledgeBasePatch } from '../../ai/knowledge/routes.ts';
import { EvaluateBody, SearchBody } from '../../ai/knowledge/search-routes.ts';
import { AddSourceBody, GraphRunBody, IndexedSourceQuery, ItemsBody, ReindexBody } from '../../ai/knowledge/source-routes.ts';
import { EnrichmentBody, EnrichmentResultsQuery, EnrichmentRunBody } from '../../ai/knowledge/enrichment-routes.ts';
import { ContextListQuery, ContextRequestBody } from '../../ai/context-handlers/routes.ts';
import { family, json, type Operation } from '../operation.ts';
import { AnyObject, Deleted, Id, IndexedSource, KnowledgeBase, Message, Page, RunRecord, Search, SearchResult, Session, Source, Timestamp } from '../schemas.ts';

const sources = family({ tag: 'Sources', errorBody: 'ai', access: 'project' });
const kbs = family({ tag: 'Knowledge bases', errorBody: 'ai', access: 'project' });
const handlers = family({ tag: 'Context handlers', errorBody: 'ai', access: 'project' });
const sessions = family({ tag: 'Sessions', errorBody: 'ai', access: 'project' });

// The upload is read by hand (busboy, sources/routes.ts): these are its fields.
const Upload = z.object({
  file: z.string().meta({ format: 'binary', description: 'The document: .pdf .txt .md .docx .xlsx .xls .pptx .png .jpg .jpeg .webp .gif .tiff' }),
  name: z.string().optional(),
  metadata: z.string().optional().meta({ description: 'A JSON object, as a string; kept through indexing' }),
  extraction_model: z.string().optional().meta({ description: 'auto or an extraction engine (PDF only)' }),
});
const Queued = z.looseObject({ status: z.enum(['queued', 'noop']), knowledge_base_id: Id });
const Enrichment = z.looseObject({ fields: z.array(AnyObject), llm_model: z.string().nullable(), max_tokens: z.number().int().nullable(), use_multimodal: z.boolean(), status: z.string() });
const ContextAnswer = z.looseObject({
  id: Id, query: z.string(), knowledge_base_configs: z.array(z.looseObject({ id: Id, top_k: z.number().int().nullable() })),
  chunks: z.array(SearchResult.extend({ included_in_context: z.boolean(), token_count: z.number().int() })), context: z.string(), token_count: z.number().int(), max_context_tokens: z.number().int(),
  metadata: z.looseObject({ query_enrichment: z.looseObject({ enabled: z.boolean(), queries: z.array(z.string()) }) }),
  errors: z.array(z.object({ knowledge_base_id: Id, error: z.string() })), created_at: Timestamp,
});
const ContextSummary = z.looseObject({ id: Id, query: z.string(), knowledge_bases: z.array(AnyObject), chunk_count: z.number().int(), token_count: z.number().int().nullable(), error_count: z.number().int(), created_at: Timestamp });

export const sourceOperations: Operation[] = [
  sources.get('/api/sources', 'List your sources', { operationId: 'listSources', query: SourceListQuery, answers: [json(200, 'Sources', z.array(Source))], errors: [400] }),
  sources.post('/api/sources/upload', 'Upload a document; extraction runs in the background', { operationId: 'uploadSource', multipart: Upload, answers: [json(201, 'The source, pending extraction', Source)], errors: [400, 413] }),
  sources.post('/api/sources/import-from-storage', 'Make a source of a stored object', { operationId: 'importSourceFromStorage', body: FromStorageBody, bodyOptional: true, answers: [json(201, 'The source', Source)], errors: [400, 404, 413] }),
  sources.post('/api/sources/import-url', 'Import web pages (urls, crawl or sitemap)', { operationId: 'importSourcesFromUrls', body: ImportUrlBody, answers: [json(201, 'The sources made and the pages that failed', z.object({ sources: z.array(Source), failed: z.array(z.looseObject({ url: z.string(), error: z.string() })) }))], errors: [400] }),
  sources.get('/api/sources/{id}', 'Read a source with its derivatives', { operationId: 'getSource', answers: [json(200, 'The source', Source.extend({ derivatives: z.array(AnyObject) }))], errors: [404] }),
  sources.get('/api/sources/{id}/page-texts', 'Read the text by page', { operationId: 'getSourcePageTexts', query: PageTextsQuery, answers: [json(200, 'One page (with page) or every page', AnyObject)], errors: [400, 404] }),
  sources.patch('/api/sources/{id}', 'Change a source\'s name or metadata', { operationId: 'updateSource', body: SourcePatch, bodyOptional: true, answers: [json(200, 'The source', Source)], errors: [400, 404] }),
  sources.post('/api/sources/{id}/reextract', 'Extract again, optionally with another engine', { operationId: 'reextractSource', body: ReextractBody, bodyOptional: true, answers: [json(200, 'The source', Source)], errors: [400, 404] }),
  sources.post('/api/sources/{id}/cancel', 'Cancel a pending or running extraction', { operationId: 'cancelSource', answers: [json(200, 'The source', Source)], errors: [404, 409] }),
  sources.get('/api/sources/{id}/download', 'Download the original file', { operationId: 'downloadSource', answers: [{ status: 200, description: 'The file\'s bytes', bytes: 'application/octet-stream' }], errors: [404] }),
  sources.get('/api/sources/{id}/derivatives/{type}/download', 'Download a derivative', {
    operationId: 'downloadSourceDerivative', pathText: { type: 'markdown, text, page_text or image' }, query: DerivativeQuery,
    answers: [{ status: 200, description: 'The derivative\'s bytes', bytes: 'application/octet-stream' }], errors: [400, 404],
  }),
  sources.delete('/api/sources/{id}', 'Delete a source, its file and derivatives', { operationId: 'deleteSource', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
];

export const knowledgeBaseOperations: Operation[] = [
  kbs.get('/api/knowledge-bases', 'List knowledge bases', { operationId: 'listKnowledgeBases', answers: [json(200, 'Knowledge bases', z.array(KnowledgeBase))] }),
  kbs.post('/api/knowledge-bases', 'Create a knowledge base', { operationId: 'createKnowledgeBase', body: KnowledgeBaseBody, answers: [json(201, 'The knowledge base', KnowledgeBase)], errors: [400] }),
  kbs.get('/api/knowledge-bases/{id}', 'Read a knowledge base with its first sources', { operationId: 'getKnowledgeBase', answers: [json(200, 'The knowledge base', KnowledgeBase.extend({ sources: z.array(IndexedSource), sources_total: z.number().int() }))], errors: [404] }),
  kbs.patch('/api/knowledge-bases/{id}', 'Change a knowledge base', { operationId: 'updateKnowledgeBase', body: KnowledgeBasePatch, answers: [json(200, 'The knowledge base', KnowledgeBase)], errors: [400, 404] }),
  kbs.delete('/api/knowledge-bases/{id}', 'Delete a knowledge base and its indexed data', { operationId: 'deleteKnowledgeBase', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
  kbs.get('/api/knowledge-bases/{id}/sources', 'List indexed sources', { operationId: 'listIndexedSources', query: IndexedSourceQuery, answers: [json(200, 'A page of entries', Page(IndexedSource))], errors: [400, 404] }),
  kbs.post('/api/knowledge-bases/{id}/sources', 'Index a source (asynchronous)', { operationId: 'addIndexedSource', body: AddSourceBody, answers: [json(202, 'The entry, pending', IndexedSource)], errors: [400, 404] }),
  kbs.post('/api/knowledge-bases/{id}/sources/{sid}/cancel', 'Cancel indexing', { operationId: 'cancelIndexedSource', answers: [json(200, 'The entry', IndexedSource)], errors: [404, 409] }),
  kbs.delete('/api/knowledge-bases/{id}/sources/{sid}', 'Remove a source from the knowledge base', { operationId: 'deleteIndexedSource', answers: [json(200, 'Deleted', z.object({ message: z.string(), deleted_indexed_source_id: Id, kb_id: Id }))], errors: [404] }),
  kbs.post('/api/knowledge-bases/{id}/reindex', 'Index again: some, the failed, or all', { operationId: 'reindexKnowledgeBase', body: ReindexBody, bodyOptional: true, answers: [json(202, 'Queued', Queued.extend({ count: z.number().int() })), json(200, 'Nothing qualified', Queued)], errors: [400, 404] }),
  kbs.post('/api/knowledge-bases/{id}/build-bm25', 'Build the full-text index (hybrid and full_text)', { operationId: 'buildBm25', answers: [json(202, 'Queued', z.object({ task_id: z.string(), knowledge_base_id: Id }))], errors: [400, 404] }),
  kbs.post('/api/knowledge-bases/{id}/graph-enrichment/run', 'Enrich the graph (graph_index)', { operationId: 'runGraphEnrichment', body: GraphRunBody, bodyOptional: true, answers: [json(202, 'Queued', Queued)], errors: [400, 404] }),
  kbs.get('/api/knowledge-bases/{id}/graph-enrichment/errors', 'Per-source graph enrichment errors', { operationId: 'getGraphEnrichmentErrors', answers: [json(200, 'Errors by source', z.object({ knowledge_base_id: Id, sources: z.array(AnyObject) }))], errors: [400, 404] }),
  kbs.post('/api/knowledge-bases/{id}/items', 'Read indexed items of some sources', { operationId: 'listKnowledgeBaseItems', body: ItemsBody, answers: [json(200, 'A page of items', Page(z.looseObject({ id: z.string(), source_id: Id, text: z.string(), meta: AnyObject })))], errors: [400, 404] }),
  kbs.post('/api/knowledge-bases/{id}/search', 'Search', { operationId: 'searchKnowledgeBase', body: SearchBody, answers: [json(200, 'The diagnostics entry, then results best first', Search)], errors: [400, 404, 502] }),
  kbs.post('/api/knowledge-bases/{id}/evaluate', 'Compare retrieval methods on labelled queries', { operationId: 'evaluateKnowledgeBase', body: EvaluateBody, answers: [json(200, 'Metrics per method', AnyObject)], errors: [400, 404] }),
  kbs.put('/api/knowledge-bases/{id}/enrichment', 'Set the metadata enrichment config', { operationId: 'putEnrichment', body: EnrichmentBody, answers: [json(200, 'The config and whether re-enrichment started', z.object({ config: Enrichment, re_enrichment_triggered: z.boolean() }))], errors: [400, 404, 409] }),
  kbs.get('/api/knowledge-bases/{id}/enrichment', 'Read the metadata enrichment config', { operationId: 'getEnrichment', answers: [json(200, 'The config, null when none', z.object({ config: Enrichment.nullable() }))], errors: [404] }),
  kbs.delete('/api/knowledge-bases/{id}/enrichment', 'Remove the config and the metadata table', { operationId: 'deleteEnrichment', answers: [json(200, 'Deleted', z.object({ message: z.string(), knowledge_base_id: Id }))], errors: [404] }),
  kbs.post('/api/knowledge-bases/{id}/enrichment/run', 'Run metadata enrichment', { operationId: 'runEnrichment', body: EnrichmentRunBody, bodyOptional: true, answers: [json(202, 'Started', AnyObject)], errors: [400, 404, 409] }),
  kbs.get('/api/knowledge-bases/{id}/enrichment/results', 'Read enriched values of some items', { operationId: 'getEnrichmentResults', query: EnrichmentResultsQuery, answers: [json(200, 'Values per item, with item_errors', AnyObject)], errors: [400, 404] }),
  kbs.get('/api/config/kb-defaults', 'Strategies, retrievers and defaults for building knowledge bases', { operationId: 'getKbDefaults', answers: [json(200, 'Defaults', z.looseObject({ strategies: AnyObject, reranker: AnyObject, query_enrichment: AnyObject, enrichment: AnyObject, hybrid_vector_weight: z.number(), extraction: AnyObject }))] }),
];

export const contextOperations: Operation[] = [
  handlers.get('/api/context-handlers', 'List your stored retrievals', { operationId: 'listContextHandlers', query: ContextListQuery, answers: [json(200, 'A page, newest first', Page(ContextSummary))], errors: [400] }),
  handlers.post('/api/context-handlers', 'Retrieve across knowledge bases and store the answer', { operationId: 'createContextHandler', body: ContextRequestBody, answers: [json(201, 'Chunks ranked by relevance, with per-knowledge-base errors', ContextAnswer)], errors: [400, 404] }),
  handlers.get('/api/context-handlers/{id}', 'Read a stored retrieval', { operationId: 'getContextHandler', answers: [json(200, 'The stored answer', ContextAnswer)], errors: [404] }),
];

export const sessionOperations: Operation[] = [
  sessions.get('/api/sessions', 'List your sessions, latest first', { operationId: 'listSessions', answers: [json(200, 'Sessions', z.array(Session))] }),
  sessions.get('/api/sessions/{id}', 'Read a session', { operationId: 'getSession', answers: [json(200, 'The session', Session)], errors: [404] }),
  sessions.get('/api/sessions/{id}/messages', 'Read the messages; assistant messages carry retrieved_context', { operationId: 'listSessionMessages', answers: [json(200, 'Messages in order', z.array(Message))], errors: [404] }),
  sessions.get('/api/sessions/{id}/runs', 'List the session\'s runs', { operationId: 'listSessionRuns', answers: [json(200, 'Runs', z.array(RunRecord))], errors: [404] }),
  sessions.get('/api/sessions/{id}/runs/{runId}/retrieved-context', 'What a run retrieved', { operationId: 'getRetrievedContext', answers: [json(200, 'The run\'s retrieved context', z.object({ session_id: Id, run_id: Id, retrieved_context: z.array(AnyObject) }))], errors: [404] }),
  sessions.delete('/api/sessions/{id}', 'Delete a session and its runs', { operationId: 'deleteSession', answers: [json(200, 'Deleted', Deleted)], errors: [404] }),
];
