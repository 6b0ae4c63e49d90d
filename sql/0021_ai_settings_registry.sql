-- AI surface: the 92 settings (spec 2.13), in their seven categories, with
-- type, default, range or options, and what each does. The spec names most
-- keys; the page-index, graph-index, doc2json and metadata-enrichment
-- families are named after the parameters of those strategies. A DBA may
-- change a default here (in a new migration); users override with PUT
-- /api/settings.

insert into ai.setting_categories (name, label, description, position) values
  ('copilot', 'Copilot', 'The workflow copilot: its model, sampling and how much of a workflow it is shown', 1),
  ('agents', 'Agents', 'Defaults for agent runs', 2),
  ('tools', 'Tools', 'Custom, MCP and builtin tools: timeouts, output limits, web search and scraping', 3),
  ('knowledge-indexing', 'Knowledge indexing', 'How sources are chunked, summarised, structured and embedded by each strategy', 4),
  ('knowledge-retrieval', 'Knowledge retrieval', 'How knowledge bases are searched: top k, hybrid weights, reranking, enrichment', 5),
  ('compaction', 'Compaction', 'How long conversations are summarised to fit a model''s context', 6),
  ('sources', 'Sources', 'Limits of importing sources from URLs', 7);

insert into ai.settings_registry (category, position, key, type, default_value, min_value, max_value, options, pattern, description) values
  -- copilot (8)
  ('copilot', 1, 'copilot_model', 'model', 'gpt-4.1', null, null, null, null, 'Model the copilot chats with'),
  ('copilot', 2, 'COPILOT_TEMPERATURE', 'number', '0.7', 0, 2, null, null, 'Sampling temperature of copilot calls'),
  ('copilot', 3, 'COPILOT_MAX_STEPS', 'integer', '25', 1, 100, null, null, 'Model and tool calls one copilot message may take'),
  ('copilot', 4, 'MAX_BLOCK_NAME_LEN', 'integer', '100', 10, 1000, null, null, 'Block names shown to the copilot are cut to this many characters'),
  ('copilot', 5, 'MAX_CONFIG_VALUE_LEN', 'integer', '2000', 100, 100000, null, null, 'Block config values shown to the copilot are cut to this many characters'),
  ('copilot', 6, 'MAX_TOTAL_STATE_LEN', 'integer', '50000', 1000, 1000000, null, null, 'The workflow state sent to the copilot is cut to this many characters in total'),
  ('copilot', 7, 'MAX_CONFIG_DEPTH', 'integer', '5', 1, 20, null, null, 'Nested block config deeper than this is summarised for the copilot'),
  ('copilot', 8, 'SYSTEM_PROMPT_TRUNCATE', 'integer', '1000', 100, 100000, null, null, 'Agent system prompts shown to the copilot are cut to this many characters'),
  -- agents (3)
  ('agents', 1, 'AGENT_DEFAULT_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'Model of an agent that names none'),
  ('agents', 2, 'DEFAULT_MAX_CONTEXT_TOKENS', 'integer', '128000', 1000, 2000000, null, null, 'Context window assumed for a model that does not state its own'),
  ('agents', 3, 'DELEGATE_MAX_STEPS', 'integer', '10', 1, 100, null, null, 'Steps a delegated (sub-)agent may take'),
  -- tools (12)
  ('tools', 1, 'CUSTOM_TOOL_TIMEOUT', 'integer', '30', 1, 600, null, null, 'Seconds a custom HTTP tool may take'),
  ('tools', 2, 'MCP_TOOL_TIMEOUT', 'integer', '30', 1, 600, null, null, 'Seconds an MCP tool call may take'),
  ('tools', 3, 'MAX_TOOL_OUTPUT_LENGTH', 'integer', '10000', 100, 1000000, null, null, 'Tool output is cut to this many characters before the model sees it'),
  ('tools', 4, 'DEFAULT_MAX_RESULT_CHARS', 'integer', '50000', 100, 10000000, null, null, 'Largest result a database or storage tool returns, in characters'),
  ('tools', 5, 'SEARCH_API_KEY', 'secret', '', null, null, null, null, 'Key of the web search provider (web_search)'),
  ('tools', 6, 'CRAWL_API_KEY', 'secret', '', null, null, null, null, 'Key of the crawl provider (web_scrape, URL import crawls)'),
  ('tools', 7, 'CRAWL_API_BASE', 'string', '', null, null, null, '^(https?://[^\s]+)?$', 'Base URL of the crawl provider'),
  ('tools', 8, 'VISION_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'Model that describes images (scraped pages, extracted figures)'),
  ('tools', 9, 'WEB_SCRAPE_MAX_CHARS', 'integer', '200000', 1000, 10000000, null, null, 'A scraped page is cut to this many characters'),
  ('tools', 10, 'WEB_SCRAPE_MAX_IMAGES', 'integer', '10', 0, 100, null, null, 'Images described per scraped page'),
  ('tools', 11, 'VISION_TIMEOUT', 'integer', '60', 1, 600, null, null, 'Seconds one vision call may take'),
  ('tools', 12, 'VISION_MAX_WORKERS', 'integer', '4', 1, 32, null, null, 'Vision calls run at once'),
  -- knowledge-indexing (41): chunk-embed (3)
  ('knowledge-indexing', 1, 'CHUNK_EMBED_DEFAULT_CHUNK_SIZE', 'integer', '512', 64, 8192, null, null, 'chunk_embed: tokens per chunk'),
  ('knowledge-indexing', 2, 'CHUNK_EMBED_DEFAULT_OVERLAP', 'integer', '64', 0, 4096, null, null, 'chunk_embed: tokens shared by neighbouring chunks'),
  ('knowledge-indexing', 3, 'CHUNK_EMBED_EMBEDDING_MODEL', 'model', 'text-embedding-3-small', null, null, null, null, 'chunk_embed: embedding model'),
  -- page-index (15 here, one more in retrieval)
  ('knowledge-indexing', 4, 'PAGEINDEX_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'page_index: model that builds the table of contents'),
  ('knowledge-indexing', 5, 'PAGEINDEX_TOC_CHECK_PAGES', 'integer', '20', 1, 200, null, null, 'page_index: first pages searched for a printed table of contents'),
  ('knowledge-indexing', 6, 'PAGEINDEX_MAX_PAGES_PER_NODE', 'integer', '10', 1, 200, null, null, 'page_index: a node covering more pages is split'),
  ('knowledge-indexing', 7, 'PAGEINDEX_MAX_TOKENS_PER_NODE', 'integer', '20000', 500, 200000, null, null, 'page_index: a node holding more tokens is split'),
  ('knowledge-indexing', 8, 'PAGEINDEX_MAX_TREE_DEPTH', 'integer', '6', 1, 20, null, null, 'page_index: deepest level of the tree'),
  ('knowledge-indexing', 9, 'PAGEINDEX_MIN_NODE_CHARS', 'integer', '200', 0, 100000, null, null, 'page_index: shorter sections are merged into their parent'),
  ('knowledge-indexing', 10, 'PAGEINDEX_TOC_DETECTION', 'enum', 'auto', null, null, '{auto,headings,llm}', null, 'page_index: find sections from headings, from the model, or headings first then the model'),
  ('knowledge-indexing', 11, 'PAGEINDEX_ADD_NODE_ID', 'boolean', 'true', null, null, null, null, 'page_index: number the nodes (0001, 0002, ...)'),
  ('knowledge-indexing', 12, 'PAGEINDEX_ADD_NODE_SUMMARY', 'boolean', 'true', null, null, null, null, 'page_index: summarise each node'),
  ('knowledge-indexing', 13, 'PAGEINDEX_ADD_NODE_TEXT', 'boolean', 'false', null, null, null, null, 'page_index: keep each node''s full text in the tree'),
  ('knowledge-indexing', 14, 'PAGEINDEX_ADD_DOC_DESCRIPTION', 'boolean', 'false', null, null, null, null, 'page_index: describe the whole document at the root'),
  ('knowledge-indexing', 15, 'PAGEINDEX_SUMMARY_INPUT_CHARS', 'integer', '8000', 500, 200000, null, null, 'page_index: characters of a node read to summarise it'),
  ('knowledge-indexing', 16, 'PAGEINDEX_SUMMARY_MAX_TOKENS', 'integer', '200', 16, 4000, null, null, 'page_index: longest node summary'),
  ('knowledge-indexing', 17, 'PAGEINDEX_EMBEDDING_MODEL', 'model', 'text-embedding-3-small', null, null, null, null, 'page_index: embeds node summaries for a first-pass search'),
  ('knowledge-indexing', 18, 'PAGEINDEX_CONCURRENCY', 'integer', '4', 1, 32, null, null, 'page_index: model calls at once while building'),
  -- graph-index (8)
  ('knowledge-indexing', 19, 'GRAPHINDEX_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'graph_index: model that extracts entities and relations'),
  ('knowledge-indexing', 20, 'GRAPHINDEX_EMBEDDING_MODEL', 'model', 'text-embedding-3-small', null, null, null, null, 'graph_index: embeds entities, relations and chunks'),
  ('knowledge-indexing', 21, 'GRAPHINDEX_CHUNK_SIZE', 'integer', '1200', 100, 8192, null, null, 'graph_index: tokens per chunk read for extraction'),
  ('knowledge-indexing', 22, 'GRAPHINDEX_CHUNK_OVERLAP', 'integer', '100', 0, 2048, null, null, 'graph_index: tokens shared by neighbouring chunks'),
  ('knowledge-indexing', 23, 'GRAPHINDEX_MAX_GLEANING', 'integer', '1', 0, 5, null, null, 'graph_index: extra passes asking the model for entities it missed'),
  ('knowledge-indexing', 24, 'GRAPHINDEX_ENTITY_TYPES', 'string', 'organization,person,location,event,concept', null, null, null, '^[A-Za-z_][A-Za-z0-9_ -]*(,[A-Za-z_][A-Za-z0-9_ -]*)*$', 'graph_index: entity types extracted (comma-separated)'),
  ('knowledge-indexing', 25, 'GRAPHINDEX_MAX_ENTITIES_PER_CHUNK', 'integer', '20', 1, 200, null, null, 'graph_index: entities kept per chunk'),
  ('knowledge-indexing', 26, 'GRAPHINDEX_SUMMARY_MAX_TOKENS', 'integer', '500', 50, 4000, null, null, 'graph_index: an entity described in several chunks is summarised to this length'),
  -- full-document (4)
  ('knowledge-indexing', 27, 'FULLDOC_SUMMARY_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'full_document: model that summarises each document'),
  ('knowledge-indexing', 28, 'FULLDOC_EMBEDDING_MODEL', 'model', 'text-embedding-3-small', null, null, null, null, 'full_document: embeds each document''s summary'),
  ('knowledge-indexing', 29, 'FULLDOC_SUMMARY_INPUT_CHARS', 'integer', '32000', 1000, 1000000, null, null, 'full_document: characters of a document read to summarise it'),
  ('knowledge-indexing', 30, 'FULLDOC_SUMMARY_MAX_TOKENS', 'integer', '512', 16, 8000, null, null, 'full_document: longest summary'),
  -- doc2json (8)
  ('knowledge-indexing', 31, 'DOC2JSON_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'doc2json: model that turns a document into JSON items'),
  ('knowledge-indexing', 32, 'DOC2JSON_EMBEDDING_MODEL', 'model', 'text-embedding-3-small', null, null, null, null, 'doc2json: embeds each item'),
  ('knowledge-indexing', 33, 'DOC2JSON_MAX_INPUT_CHARS', 'integer', '30000', 1000, 1000000, null, null, 'doc2json: characters of a document sent per call (longer ones go in parts)'),
  ('knowledge-indexing', 34, 'DOC2JSON_MAX_OUTPUT_TOKENS', 'integer', '4000', 256, 32000, null, null, 'doc2json: longest answer per call'),
  ('knowledge-indexing', 35, 'DOC2JSON_TEMPERATURE', 'number', '0', 0, 2, null, null, 'doc2json: sampling temperature'),
  ('knowledge-indexing', 36, 'DOC2JSON_MAX_ITEMS', 'integer', '500', 1, 100000, null, null, 'doc2json: items kept per document'),
  ('knowledge-indexing', 37, 'DOC2JSON_STRICT_SCHEMA', 'boolean', 'true', null, null, null, null, 'doc2json: ask for JSON that matches the schema exactly (structured output)'),
  ('knowledge-indexing', 38, 'DOC2JSON_CONCURRENCY', 'integer', '4', 1, 32, null, null, 'doc2json: model calls at once'),
  -- cross-cutting (3)
  ('knowledge-indexing', 39, 'EXTRACTION_DEFAULT_METHOD', 'enum', 'auto', null, null, '{auto,text,ocr,vision}', null, 'How text is taken from PDFs and images: auto tries text, then OCR, then vision'),
  ('knowledge-indexing', 40, 'EMBEDDING_MAX_TOKENS_PER_BATCH', 'integer', '8000', 100, 300000, null, null, 'Tokens sent in one embedding request'),
  ('knowledge-indexing', 41, 'BM25_AUTO_INDEXING', 'boolean', 'true', null, null, null, null, 'Keep the BM25 index current as sources are indexed'),
  -- knowledge-retrieval (19)
  ('knowledge-retrieval', 1, 'KB_DEFAULT_TOP_K', 'integer', '5', 1, 100, null, null, 'Results a search returns when it asks for no number'),
  ('knowledge-retrieval', 2, 'KB_DEFAULT_MAX_CONTEXT_TOKENS', 'integer', '4000', 100, 200000, null, null, 'Tokens of results handed to a model as context'),
  ('knowledge-retrieval', 3, 'DEFAULT_IMAGE_DELIVERY', 'enum', 'url', null, null, '{url,base64,none}', null, 'How images in results reach the caller'),
  ('knowledge-retrieval', 4, 'HYBRID_DEFAULT_VECTOR_WEIGHT', 'number', '0.5', 0, 1, null, null, 'hybrid: weight of the normalised vector score (the BM25 score gets the rest)'),
  ('knowledge-retrieval', 5, 'RERANKER_DEFAULT_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'Model that reranks candidates when reranking is on'),
  ('knowledge-retrieval', 6, 'RERANKER_CANDIDATE_COUNT', 'integer', '20', 1, 200, null, null, 'Candidates fetched for the reranker'),
  ('knowledge-retrieval', 7, 'QUERY_ENRICHMENT_DEFAULT_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'Model that rewrites and expands queries'),
  ('knowledge-retrieval', 8, 'QUERY_ENRICHMENT_TEMPERATURE', 'number', '0.3', 0, 2, null, null, 'Sampling temperature of query enrichment'),
  ('knowledge-retrieval', 9, 'METADATA_ENRICHMENT_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'metadata enrichment: model that fills the fields'),
  ('knowledge-retrieval', 10, 'METADATA_ENRICHMENT_MAX_TOKENS', 'integer', '1000', 50, 16000, null, null, 'metadata enrichment: longest answer per item'),
  ('knowledge-retrieval', 11, 'METADATA_ENRICHMENT_TEMPERATURE', 'number', '0', 0, 2, null, null, 'metadata enrichment: sampling temperature'),
  ('knowledge-retrieval', 12, 'METADATA_ENRICHMENT_BATCH_SIZE', 'integer', '20', 1, 500, null, null, 'metadata enrichment: items per job'),
  ('knowledge-retrieval', 13, 'METADATA_ENRICHMENT_CONCURRENCY', 'integer', '4', 1, 32, null, null, 'metadata enrichment: model calls at once'),
  ('knowledge-retrieval', 14, 'METADATA_ENRICHMENT_MAX_INPUT_CHARS', 'integer', '8000', 200, 200000, null, null, 'metadata enrichment: characters of an item read'),
  ('knowledge-retrieval', 15, 'METADATA_ENRICHMENT_MAX_RETRIES', 'integer', '2', 0, 10, null, null, 'metadata enrichment: retries of an item that failed'),
  ('knowledge-retrieval', 16, 'PAGEINDEX_RETRIEVAL_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'page_index: model that walks the table of contents to answer a query'),
  ('knowledge-retrieval', 17, 'PAGEINDEX_TREE_SEARCH_MAX_NODES', 'integer', '5', 1, 50, null, null, 'page_index: nodes a tree search may pick for one query'),
  ('knowledge-retrieval', 18, 'MAX_SEARCH_WORKERS', 'integer', '4', 1, 32, null, null, 'Knowledge bases searched at once by one request'),
  ('knowledge-retrieval', 19, 'DROPPED_ITEM_TEXT_LIMIT', 'integer', '200', 0, 10000, null, null, 'Characters kept of results dropped for the context budget, for the trace'),
  -- compaction (5)
  ('compaction', 1, 'DEFAULT_COMPACTION_MODEL', 'model', 'gpt-4.1-mini', null, null, null, null, 'Model that summarises older turns of a long session'),
  ('compaction', 2, 'COMPACTION_KEEP_LAST_N', 'integer', '10', 0, 1000, null, null, 'Latest messages always kept as they are'),
  ('compaction', 3, 'CHARS_PER_TOKEN', 'number', '4', 1, 10, null, null, 'Characters per token assumed where a model''s tokenizer is not known'),
  ('compaction', 4, 'COMPACTION_MAX_OUTPUT_TOKENS', 'integer', '2000', 100, 32000, null, null, 'Longest summary of older turns'),
  ('compaction', 5, 'COMPACTION_BUFFER', 'integer', '4000', 0, 200000, null, null, 'Tokens kept free below the context window before compacting'),
  -- sources (4)
  ('sources', 1, 'URL_IMPORT_MAX_PAGES', 'integer', '50', 1, 10000, null, null, 'Pages one URL import may fetch'),
  ('sources', 2, 'URL_IMPORT_MAX_IMAGES_PER_PAGE', 'integer', '10', 0, 200, null, null, 'Images kept per imported page'),
  ('sources', 3, 'URL_IMPORT_CRAWL_MAX_DEPTH', 'integer', '2', 0, 10, null, null, 'Links followed from the start page in crawl mode'),
  ('sources', 4, 'URL_IMPORT_IMAGE_MAX_SIZE_MB', 'number', '5', 0.1, 100, null, null, 'Images larger than this are skipped');
