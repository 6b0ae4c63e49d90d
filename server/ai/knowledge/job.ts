// The indexing job (graphile-worker task ai_kb_index, one per indexed source,
// keyed kb-source:<id> so a re-queue replaces a waiting job) and the BM25
// build (ai_kb_bm25). Indexing takes its run (ai.begin_indexing), reads the
// source's elements and markdown from storage, lets the strategy make items,
// embeds them in batches, stores them (ai.store_kb_items) with progress after
// each batch (ai.indexing_progress, which also says when to stop), and ends
// the run (ai.finish_indexing). A strategy that cannot do its work, or a
// missing embedding provider, fails the source with words for the user; an
// unexpected error is retried and fails it on the last attempt.
import type { Logger } from 'pino';
import { ApiError } from '../../errors.ts';
import type { InProcessStorage } from '../../storage/in-process.ts';
import type { AiCalls } from '../calls.ts';
import type { ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { SOURCE_BUCKET } from '../sources/store.ts';
import { PROJECT_CALLER } from '../actor.ts';
import type { Element } from '../sources/extract/types.ts';
import { textElements } from './chunking.ts';
import { embedder, signCode, vectorBytes } from './embedder.ts';
import { strategyCatalogue } from './strategies/index.ts';
import { graphExtractor } from './strategies/graph-index.ts';
import { type NewItem, type SourceDocument } from './strategies/types.ts';
import { Failure, Stopped } from '../failures.ts';
import { metrics } from '../../telemetry/metrics.ts';
import { failSpan, inSpan, type Span } from '../../telemetry/spans.ts';

const BATCH = 256;
const MAX_DERIVATIVE_BYTES = 512 * 1024 * 1024;

type Row = { kb_id: string; source_id: string; strategy: string; indexing_config: Record<string, unknown>; uses_vectors: boolean; owner_id: string | null; name: string; metadata: Record<string, unknown>; pages_total: number | null };

export function knowledgeIndexing(opts: { calls: AiCalls; storage: InProcessStorage; models: ModelRouter; settings: Settings; log: Logger }) {
  const { calls, storage } = opts;
  const embed = embedder(opts.models, opts.settings);
  const strategies = strategyCatalogue(calls, opts.models, opts.settings);
  const extractGraph = graphExtractor(calls, opts.models, opts.settings);

  const derivative = async (sourceId: string, kind: string): Promise<string | null> => {
    const [d] = await calls.asService<{ object_path: string }>('select object_path from ai.source_derivatives where source_id = $1 and kind = $2 and idx = 0', [sourceId, kind]);
    if (!d) return null;
    return (await storage.read(PROJECT_CALLER, SOURCE_BUCKET, d.object_path, MAX_DERIVATIVE_BYTES)).bytes.toString('utf8');
  };

  const documentOf = async (row: Row): Promise<SourceDocument> => {
    const markdown = (await derivative(row.source_id, 'markdown')) ?? (await derivative(row.source_id, 'text')) ?? '';
    const raw = await derivative(row.source_id, 'elements');
    const elements = raw ? ((JSON.parse(raw) as { elements?: Element[] }).elements ?? []) : textElements(markdown);
    return { sourceId: row.source_id, name: row.name, metadata: row.metadata, elements, markdown, pages: row.pages_total ?? 1 };
  };

  /** An indexing in its `index` span, counted for /metrics by how it ended. */
  const index = (payload: { indexed_source_id: string; run: number }, attempt: { n: number; max: number }): Promise<void> =>
    inSpan('index', { attributes: { 'pgbase.indexed_source_id': payload.indexed_source_id, 'pgbase.indexing.run': payload.run, 'pgbase.job.attempt': attempt.n } }, (span) => indexIn(payload, attempt, span));

  const indexIn = async (payload: { indexed_source_id: string; run: number }, attempt: { n: number; max: number }, span: Span | undefined): Promise<void> => {
    const { indexed_source_id: id, run } = payload;
    const [began] = await calls.asService<{ ok: boolean }>('select ai.begin_indexing($1, $2) as ok', [id, run]);
    if (!began?.ok) return;
    const finish = (status: 'indexed' | 'failed', message: string | null, stats: { items?: number; [more: string]: unknown }) => {
      metrics.indexings.inc({ outcome: status });
      span?.setAttributes({ 'pgbase.indexing.status': status, ...(stats.items !== undefined ? { 'pgbase.indexing.items': stats.items } : {}) });
      if (status === 'failed') failSpan(span, null, 'indexing_failed');
      return calls.asService('select ai.finish_indexing($1, $2, $3, $4, $5)', [id, run, status, message, stats]);
    };
    const progress = async (done: number, total: number) => {
      const [r] = await calls.asService<{ ok: boolean }>('select ai.indexing_progress($1, $2, $3, $4) as ok', [id, run, done, total]);
      if (!r?.ok) throw new Stopped();
    };
    const started = Date.now();
    try {
      const [row] = await calls.asService<Row>(
        `select k.kb_id, k.source_id, b.strategy, b.indexing_config, ai.kb_uses_vectors(k.kb_id) as uses_vectors, b.owner_id, s.name, s.metadata, s.pages_total
           from ai.kb_sources k join ai.knowledge_bases b on b.id = k.kb_id join ai.sources s on s.id = k.source_id where k.id = $1`, [id]);
      if (!row) return;
      const strategy = strategies[row.strategy];
      if (!strategy) throw new Failure(`Unknown indexing strategy ${row.strategy}`);
      const usage = { userId: row.owner_id, feature: 'indexing', runId: id, step: row.strategy };
      const signal = new AbortController().signal;
      const items = await inSpan('chunk', { attributes: { 'pgbase.indexing.strategy': row.strategy } }, async (chunking) => {
        const made = await strategy.items(await documentOf(row), { config: row.indexing_config, models: opts.models, settings: opts.settings, usage, signal, progress });
        chunking?.setAttribute('pgbase.indexing.items', made.length);
        return made;
      });
      // Embedded only when the method in force reads vectors: full_text indexes with no model provider (sql/0058).
      const model = row.uses_vectors ? strategy.embeddingModel(row.indexing_config) : null;
      let dims = 0;
      let tokens = 0;
      await progress(0, items.length);
      for (let i = 0; i < items.length; i += BATCH) {
        const batch = items.slice(i, i + BATCH);
        const vectors = model ? await embed(model, batch.map((it) => it.embedText ?? it.text), usage, signal) : [];
        dims = vectors[0]?.length ?? dims;
        const rows = batch.map((it: NewItem, j) => ({
          // The source's metadata goes with every item (answers read it as it is now: sql/0059).
          position: i + j, kind: it.kind, text: it.text, meta: { ...it.meta, source_metadata: row.metadata }, extras: it.extras ?? {}, token_count: it.tokens,
          ...(vectors[j] ? { embedding_model: model, code: signCode(vectors[j]!), embedding: vectorBytes(vectors[j]!).toString('base64') } : {}),
        }));
        tokens += batch.reduce((n, it) => n + it.tokens, 0);
        await calls.asService('select ai.store_kb_items($1, $2, $3::jsonb)', [id, run, JSON.stringify(rows)]);
        await progress(Math.min(items.length, i + BATCH), items.length);
      }
      let extra: Record<string, unknown> = {};
      const afterStore = strategy.afterStore;
      if (afterStore && items.length) {
        const stored = await calls.asService<{ id: string; text: string }>('select id, text from ai.kb_items where kb_source_id = $1 order by position', [id]);
        extra = await inSpan('after store', { attributes: { 'pgbase.indexing.strategy': row.strategy } }, () => afterStore(stored, { config: row.indexing_config, models: opts.models, settings: opts.settings, usage, signal, progress }));
      }
      await finish('indexed', items.length ? null : 'The source has no text to index', {
        items: items.length, tokens, embedding_model: model, dimensions: model ? dims : null, ...extra, duration_ms: Date.now() - started,
      });
      opts.log.info({ indexed_source_id: id, items: items.length }, 'source indexed');
    } catch (err) {
      if (err instanceof Stopped) return;
      if (err instanceof Failure) return void (await finish('failed', err.message, {}));
      if (err instanceof ApiError && err.status === 402) {
        const provider = (err.details as { provider?: string } | undefined)?.provider ?? 'the model';
        return void (await finish('failed', `No provider key for ${provider}: store one (POST /api/ai-provider-keys) or point it at a self-hosted OpenAI-compatible server; for full_text alone set indexing_config.embedding_model to null (local/hash embeds lexically, for tests and demos)`, {}));
      }
      opts.log.warn({ indexed_source_id: id, error: (err as Error).message, attempt: attempt.n }, 'indexing failed');
      if (attempt.n < attempt.max && !(err instanceof ApiError && err.status < 500)) throw err;
      await finish('failed', `Indexing failed: ${(err as Error).message}`, {});
    }
  };

  const buildBm25 = async (payload: { knowledge_base_id: string }): Promise<void> => {
    try {
      await calls.asService('select ai.bm25_build($1)', [payload.knowledge_base_id]);
    } catch (err) {
      await calls.asService('select ai.bm25_failed($1, $2)', [payload.knowledge_base_id, `BM25 build failed: ${(err as Error).message}`]);
    }
  };

  // graph-enrichment/run: the graph of one indexed source's chunks (or every source's), all or only those that failed.
  const enrichGraph = async (payload: { knowledge_base_id: string; indexed_source_id: string | null; retry_failed: boolean }): Promise<void> => {
    const [kb] = await calls.asService<{ indexing_config: Record<string, unknown>; owner_id: string | null }>('select indexing_config, owner_id from ai.knowledge_bases where id = $1', [payload.knowledge_base_id]);
    if (!kb) return;
    const chunks = await calls.asService<{ id: string; text: string }>(
      `select i.id, i.text from ai.kb_items i where i.kb_id = $1 and ($2::uuid is null or i.kb_source_id = $2)
          and (not $3 or exists (select 1 from ai.kb_graph_errors g where g.item_id = i.id)) order by i.kb_source_id, i.position`,
      [payload.knowledge_base_id, payload.indexed_source_id, payload.retry_failed]);
    const failed = await extractGraph(chunks, kb.indexing_config, { userId: kb.owner_id, feature: 'indexing', runId: payload.knowledge_base_id, step: 'graph-enrichment' });
    opts.log.info({ knowledge_base_id: payload.knowledge_base_id, chunks: chunks.length, failed }, 'graph enriched');
  };

  return { index, buildBm25, enrichGraph };
}
