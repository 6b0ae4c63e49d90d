// An agent's knowledge bases as tools: one per assigned knowledge base,
// named after it (ai.kb_tool_name) and described by its description, taking
// a query. It retrieves through the knowledge-base search (the context
// handlers' retrieval, fitted to DEFAULT_MAX_CONTEXT_TOKENS), hands the model
// the results that fit, numbered with their source and page, and tells the
// run what it retrieved (a `retrieval` event; the answer's retrieved_context).
import type { RequestContext } from '../../../db/as-role.ts';
import type { KbRow } from './setup.ts';
import type { ContextResult, contextRetriever } from '../context-handlers/retrieve.ts';
import type { Settings } from '../settings/accessor.ts';
import type { LoopTool } from './loop.ts';
import type { Emit } from '../steps/events.ts';

export type RetrievalSink = (result: ContextResult) => void;

const QUERY_SCHEMA = { type: 'object', properties: { query: { type: 'string', description: 'What to look for, in words the documents would use' } }, required: ['query'], additionalProperties: false };

export function knowledgeTools(retrieve: ReturnType<typeof contextRetriever>, settings: Settings) {
  // `kbs`: the agent's knowledge bases as the caller reads them (setup.ts): one the caller can no longer read is not offered.
  return (caller: RequestContext, kbs: KbRow[], emit?: Emit, sink?: RetrievalSink): LoopTool[] =>
    kbs.map((kb): LoopTool => ({
      chat: { type: 'function', function: { name: kb.tool_name, description: kb.description || `Search the knowledge base "${kb.name}"`, parameters: QUERY_SCHEMA } },
      call: async (args) => {
        const query = args && typeof (args as { query?: unknown }).query === 'string' ? (args as { query: string }).query.trim() : '';
        if (!query) return { ok: false, error: 'query is required: say what to look for' };
        const budget = await settings.number('DEFAULT_MAX_CONTEXT_TOKENS');
        const result = await retrieve(caller, { query, knowledge_bases: [{ id: kb.id }], max_context_tokens: budget }, 'agent');
        if (result.errors.length) return { ok: false, error: `${kb.name}: ${result.errors[0]!.error}` };
        sink?.(result);
        const included = result.chunks.filter((c) => c.included_in_context);
        emit?.({ type: 'retrieval', knowledge_base_id: kb.id, kb_name: kb.name, query, queries: result.metadata.query_enrichment.queries, results: result.chunks.length, included: included.length, token_count: result.token_count });
        if (!included.length) return { ok: true, output: `Nothing in ${kb.name} matches this query.` };
        return { ok: true, output: included.map((c, i) => `[${i + 1}] ${c.source_name}${c.meta.page ? `, page ${c.meta.page}` : ''}\n${c.text}`).join('\n\n') };
      },
    }));
}

/** A run's retrievals as an answer's retrieved_context: one diagnostics entry, then every result. */
export function retrievedContext(results: ContextResult[]): unknown[] {
  if (!results.length) return [];
  return [
    { _type: 'retrieval_diagnostics', searches: results.flatMap((r) => r.retrieval_diagnostics), queries: [...new Set(results.flatMap((r) => r.metadata.query_enrichment.queries))], token_count: results.reduce((n, r) => n + r.token_count, 0) },
    ...results.flatMap((r) => r.chunks),
  ];
}
