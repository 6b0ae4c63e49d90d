// One knowledge-base search: the retrieval config in force (the stored one
// over the strategy default, then the request's overrides, checked in SQL),
// query enrichment, the method (full_text, vector_search, hybrid of both,
// tree_search over tables of contents, graph over the knowledge graph: one
// module each in retrieval/), the reranker, the score threshold, top_k, then
// the results with their provenance (spec 2.9). The answer opens with a retrieval_diagnostics
// entry: the queries issued, each method's candidates, scores and timing,
// the fusion and its weights, the reranker.
import type { RequestContext } from '../../../db/as-role.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import type { ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import type { Embed } from './embedder.ts';
import type { InProcessStorage } from '../../storage/in-process.ts';
import { SOURCE_BUCKET } from '../sources/store.ts';
import { callerUser, PROJECT_CALLER } from '../actor.ts';
import { enrichQuery, type Enrichment } from './retrieval/enrich.ts';
import { fullText } from './retrieval/full-text.ts';
import { bestOf, fuse } from './retrieval/hybrid.ts';
import { rerank } from './retrieval/rerank.ts';
import type { MethodRun, Retrieval, Scored } from './retrieval/types.ts';
import { vectorSearch } from './retrieval/vector.ts';
import { treeSearch } from './retrieval/tree-search.ts';
import { graphSearch } from './retrieval/graph.ts';
import { embeddingModelOf } from './strategies/types.ts';
import { inSpan } from '../../telemetry/spans.ts';
import { tracing } from '../../telemetry/state.ts';

export type SearchOverrides = Record<string, unknown> & { query: string; filter_metadata?: Record<string, unknown> | undefined };

export type ResultEntry = {
  id: string; text: string; score: number; retrieval_score: number; reranker_score: number | null;
  source_id: string; source_name: string; knowledge_base_id: string; kb_name: string; indexing_strategy: string;
  meta: Record<string, unknown>; extras?: Record<string, unknown>; images?: unknown[];
};

export type SearchAnswer = { results: ResultEntry[]; diagnostics: Record<string, unknown> & { _type: 'retrieval_diagnostics' }; enrichment: Enrichment; config: Record<string, unknown> };

type Kb = { id: string; name: string; strategy: string; indexing_config: Record<string, unknown>; owner_id: string | null; config: Record<string, unknown> };

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Request keys that override the retrieval config for one search. */
const OVERRIDES = ['method', 'top_k', 'vector_weight', 'fusion', 'context_mode', 'ts_language', 'reranker', 'query_enrichment', 'score_threshold', 'bm25'];

export function knowledgeSearch(opts: { calls: AiCalls; models: ModelRouter; settings: Settings; embed: Embed; storage: InProcessStorage }) {
  const { calls } = opts;

  const methodRun = async (method: string, r: Retrieval, queries: string[]): Promise<MethodRun> => {
    const runs = await Promise.all(queries.map((query) => (method === 'full_text' ? fullText(calls, { ...r, query }) : vectorSearch(calls, opts.embed, { ...r, query }))));
    return { items: bestOf(runs.map((x) => x.items)).slice(0, r.limit), diagnostics: { ...runs[0]!.diagnostics, candidates: runs.reduce((n, x) => n + Number(x.diagnostics.candidates), 0), top_score: null, queries: queries.length } };
  };

  /** A search in its `retrieval` span: the method, candidates, what came back and each method's figures. */
  const traced = (ctx: RequestContext, kbId: string, req: SearchOverrides, usageFeature = 'search'): Promise<SearchAnswer> =>
    inSpan('retrieval', { attributes: { 'gen_ai.operation.name': 'retrieval', 'gen_ai.data_source.id': kbId, 'pgbase.knowledge_base_id': kbId } }, async (span) => {
      const answer = await searchIn(ctx, kbId, req, usageFeature);
      const d = answer.diagnostics as unknown as { method: string; candidates: number; returned: number; ms: number; methods: unknown; reranker: unknown };
      span?.setAttributes({
        'pgbase.retrieval.method': d.method, 'pgbase.retrieval.candidates': d.candidates, 'pgbase.retrieval.returned': d.returned, 'pgbase.retrieval.ms': d.ms,
        'pgbase.retrieval.methods': JSON.stringify(d.methods), ...(d.reranker ? { 'pgbase.retrieval.reranker': JSON.stringify(d.reranker) } : {}),
        ...(tracing.captureMessages ? { 'pgbase.retrieval.query': req.query } : {}),
      });
      return answer;
    });

  const searchIn = async (ctx: RequestContext, kbId: string, req: SearchOverrides, usageFeature: string): Promise<SearchAnswer> => {
    const started = performance.now();
    const overrides = Object.fromEntries(OVERRIDES.filter((k) => req[k] !== undefined).map((k) => [k, req[k]]));
    const [kb] = await calls.as<Kb>(ctx,
      `select k.id, k.name, k.strategy, k.indexing_config, k.owner_id, ai.check_retrieval_config(k.strategy, ai.kb_retrieval_config(k.id) || $2::jsonb) as config
         from ai.knowledge_bases k where k.id = $1`, [kbId, JSON.stringify(overrides)]);
    if (!kb) throw aiErrors.notFound('Knowledge base');
    const config = kb.config;
    const method = String(config.method);
    const topK = Number(config.top_k ?? (await opts.settings.number('KB_DEFAULT_TOP_K')));
    const reranker = config.reranker && typeof config.reranker === 'object' ? (config.reranker as { model?: string; candidate_count?: number }) : null;
    const candidateCount = reranker ? Number(reranker.candidate_count ?? (await opts.settings.number('RERANKER_CANDIDATE_COUNT'))) : topK;
    const usage = { userId: callerUser(ctx), feature: usageFeature, runId: kb.id, step: null };

    // Query enrichment.
    const qe = (config.query_enrichment ?? {}) as { enabled?: boolean; model?: string };
    const enrichment: Enrichment = qe.enabled
      ? await enrichQuery(opts.models, { model: qe.model ?? (await opts.settings.string('QUERY_ENRICHMENT_DEFAULT_MODEL')), temperature: await opts.settings.number('QUERY_ENRICHMENT_TEMPERATURE'), query: req.query, usage })
      : { enabled: false, model: null, queries: [req.query] };

    // Retrieval.
    const pool = method === 'hybrid' ? Math.max(candidateCount * 3, 30) : candidateCount;
    const base: Retrieval = { ctx, kbId, query: req.query, limit: pool, filter: req.filter_metadata ?? null, config, embeddingModel: embeddingModelOf(kb.indexing_config), usage };
    const methods: Record<string, unknown> = {};
    let ranked: Scored[];
    const weight = Number(config.vector_weight ?? (await opts.settings.number('HYBRID_DEFAULT_VECTOR_WEIGHT')));
    const fusion = config.fusion === 'rrf' ? 'rrf' : 'weighted';
    if (method === 'hybrid') {
      const [v, t] = await Promise.all([
        base.embeddingModel ? methodRun('vector_search', base, enrichment.queries) : Promise.resolve({ items: [], diagnostics: { skipped: 'no embeddings kept (embedding_model is null)' } }),
        methodRun('full_text', base, enrichment.queries),
      ]);
      methods.vector_search = { ...v.diagnostics, top_score: v.items[0]?.score ?? null };
      methods.full_text = { ...t.diagnostics, top_score: t.items[0]?.score ?? null };
      ranked = fuse(v.items, t.items, { weight: base.embeddingModel ? weight : 0, fusion });
    } else if (method === 'graph') {
      const run = await graphSearch(calls, base, enrichment.queries);
      methods.graph = run.diagnostics;
      ranked = run.items;
    } else if (method === 'tree_search') {
      const run = await treeSearch(calls, opts.models, opts.settings, { ...base, limit: Math.max(topK, candidateCount) });
      methods.tree_search = run.diagnostics;
      ranked = run.items;
    } else {
      const run = await methodRun(method, base, enrichment.queries);
      methods[method] = { ...run.diagnostics, top_score: run.items[0]?.score ?? null };
      ranked = run.items;
    }
    ranked = ranked.slice(0, candidateCount);

    // Results, reranked when asked, thresholded, cut to top_k.
    const rows = new Map((await calls.as<Omit<ResultEntry, 'score' | 'retrieval_score' | 'reranker_score'>>(ctx,
      'select id, text, meta, extras, source_id, source_name, knowledge_base_id, kb_name, indexing_strategy from ai.kb_results($1, $2)', [kbId, ranked.map((r) => r.id)])).map((r) => [r.id, r]));
    let entries: ResultEntry[] = ranked.filter((r) => rows.has(r.id)).map((r) => ({ ...rows.get(r.id)!, score: r.score, retrieval_score: r.score, reranker_score: null }));
    let rerankDiag: Record<string, unknown> | null = null;
    if (reranker && entries.length) {
      const t0 = performance.now();
      const model = reranker.model ?? (await opts.settings.string('RERANKER_DEFAULT_MODEL'));
      // A reranker that fails or answers badly leaves the retrieval order (scores null) and says why; it never fails the search.
      const outcome = await rerank(opts.models, { model, query: req.query, passages: entries.map((e) => e.text), usage }).then(
        (r) => (r.scored > 0 ? r : { error: `The reranker ${model} answered no usable scores` }),
        (err: Error) => ({ error: err.message }));
      if ('scores' in outcome) {
        // Scored passages by their score, then those the reranker left out in retrieval order.
        const scored = entries.map((e, i) => ({ ...e, reranker_score: outcome.scores[i] ?? null, score: outcome.scores[i] ?? e.score }));
        entries = [...scored.filter((e) => e.reranker_score !== null).sort((a, b) => b.score - a.score || b.retrieval_score - a.retrieval_score), ...scored.filter((e) => e.reranker_score === null)];
        rerankDiag = { model, candidates: entries.length, scored: outcome.scored, ms: Math.round(performance.now() - t0) };
      } else {
        rerankDiag = { model, candidates: entries.length, scored: 0, error: outcome.error, order: 'retrieval', ms: Math.round(performance.now() - t0) };
      }
    }
    const threshold = typeof config.score_threshold === 'number' ? config.score_threshold : null;
    const kept = entries.filter((e) => threshold === null || e.score >= threshold).slice(0, topK);
    if (config.context_mode === 'image') await attachPageImages(calls, opts.storage, opts.settings, ctx, kept);
    const results = kept.map((e) => (Object.keys(e.extras ?? {}).length ? e : (({ extras: _, ...rest }) => rest)(e)) as ResultEntry);

    return {
      results, enrichment, config,
      diagnostics: {
        _type: 'retrieval_diagnostics', knowledge_base_id: kb.id, kb_name: kb.name, indexing_strategy: kb.strategy, method, top_k: topK, queries: enrichment.queries,
        methods, fusion: method === 'hybrid' ? { kind: fusion, vector_weight: base.embeddingModel ? weight : 0, text_weight: base.embeddingModel ? 1 - weight : 1 } : null,
        reranker: rerankDiag, score_threshold: threshold, candidates: ranked.length, returned: results.length, ms: Math.round(performance.now() - started),
      },
    };
  };
  return traced;
}

/**
 * context_mode image: each result's page images from its source's
 * derivatives, delivered as DEFAULT_IMAGE_DELIVERY says: download paths
 * (`url`), the bytes inline (`base64`), or not at all (`none`).
 */
async function attachPageImages(calls: AiCalls, storage: InProcessStorage, settings: Settings, ctx: RequestContext, entries: ResultEntry[]): Promise<void> {
  const delivery = await settings.string('DEFAULT_IMAGE_DELIVERY');
  if (!entries.length || delivery === 'none') return;
  const images = await calls.as<{ source_id: string; idx: number; page: number | null; content_type: string; object_path: string }>(ctx,
    `select d.source_id, d.idx, d.page, d.content_type, d.object_path from ai.source_derivatives d where d.kind = 'image' and d.source_id = any ($1) order by d.idx`,
    [[...new Set(entries.map((e) => e.source_id))]]);
  for (const e of entries) {
    const page = Number(e.meta.page ?? 1);
    const mine = images.filter((i) => i.source_id === e.source_id && (i.page ?? 1) === page);
    e.images = await Promise.all(mine.map(async (i) => ({
      page, index: i.idx, content_type: i.content_type,
      ...(delivery === 'base64'
        ? { base64: (await storage.read(PROJECT_CALLER, SOURCE_BUCKET, i.object_path, MAX_IMAGE_BYTES)).bytes.toString('base64') }
        : { url: `/api/sources/${e.source_id}/derivatives/image/download?index=${i.idx}` }),
    })));
  }
}
