// The extraction job (graphile-worker task ai_source_extract, one per source,
// keyed source:<id> so a re-queue replaces a waiting job). It takes its run
// (ai.begin_extraction), reads the original from storage, extracts with
// progress after every page (ai.extraction_progress, which also tells it to
// stop when the source was cancelled or re-queued), replaces the derivatives
// and ends the run (ai.finish_extraction). A file that cannot be read fails
// with a message; an unexpected error hands the run back and is retried by
// graphile-worker, failing the source on the last attempt. The file is
// parsed in a thread with heap and time limits (runtime/extraction): a
// parser that dies or passes a limit fails the source, naming the limit,
// and is not retried; a run its process never finished is failed, not
// retried into the same crash (ai.begin_extraction, sql/0054). A hosted
// engine (extract/hosted.ts) that cannot be used hands the file to the
// local chain, and the source's message says so.
import type { Logger } from 'pino';
import type { InProcessStorage } from '../../storage/in-process.ts';
import type { AiCalls } from '../calls.ts';
import type { Extracted } from './extract/types.ts';
import type { IsolatedPool, RunOptions } from '../runtime/extraction/pool.ts';
import type { ExtractionStops } from './stops.ts';
import { Failure, Stopped } from '../failures.ts';
import type { ExtractionInput } from './extract/thread.ts';
import type { HostedEngines } from './extract/hosted.ts';
import { SOURCE_BUCKET } from './store.ts';
import { PROJECT_CALLER } from '../actor.ts';
import { visionEngine } from './extract/vision.ts';
import type { ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { metrics } from '../../telemetry/metrics.ts';
import { contextFrom, failSpan, inSpan } from '../../telemetry/spans.ts';
import { tracing } from '../../telemetry/state.ts';

const MAX_ORIGINAL_BYTES = 5 * 1024 ** 3;
/** Text formats read locally whatever the engine asked for. */
const LOCAL_ONLY = new Set(['txt', 'md', 'html']);

type Derivative = { kind: string; idx: number; page: number | null; bytes: Buffer; contentType: string; ext: string };

function derivativesOf(r: Extracted): Derivative[] {
  const text = (s: string) => Buffer.from(s, 'utf8');
  return [
    { kind: 'markdown', idx: 0, page: null, bytes: text(r.markdown), contentType: 'text/markdown; charset=utf-8', ext: 'md' },
    { kind: 'text', idx: 0, page: null, bytes: text(r.text), contentType: 'text/plain; charset=utf-8', ext: 'txt' },
    ...r.pages.map((p, i) => ({ kind: 'page_text', idx: i, page: i + 1, bytes: text(p), contentType: 'text/plain; charset=utf-8', ext: 'txt' })),
    ...r.images.map((img, i) => ({ kind: 'image', idx: i, page: img.page, bytes: img.bytes, contentType: img.contentType, ext: img.contentType.split('/')[1]?.replace('jpeg', 'jpg') ?? 'bin' })),
    // Page and element provenance for page-exact citations (the knowledge-base issue reads it into chunk meta).
    { kind: 'elements', idx: 0, page: null, bytes: text(JSON.stringify({ pages: r.pages.length, elements: r.elements, ...(r.page_sizes ? { page_sizes: r.page_sizes } : {}) })), contentType: 'application/json', ext: 'json' },
  ];
}

/**
 * The parser thread's answer: images arrive as Uint8Array (structured clone);
 * its Failure and Stopped arrive as themselves. A parser that died or passed a
 * limit is a Failure too: the file is the cause, so trying again would end
 * the same way.
 */
async function extractIsolated(parsers: IsolatedPool, input: ExtractionInput, progress: (done: number, total: number) => Promise<void>, vision: (image: Buffer, page: number) => Promise<string>, bounds: RunOptions): Promise<Extracted> {
  const result = await parsers.run<Extracted>(input, {
    progress: (done: number, total: number) => progress(done, total).then(() => true, (err: Error) => {
      if (err instanceof Stopped) return false;
      throw err;
    }),
    vision: (image: Uint8Array, page: number) => vision(Buffer.from(image.buffer, image.byteOffset, image.byteLength), page),
  }, [input.bytes.buffer as ArrayBuffer], bounds);
  return { ...result, images: result.images.map((img) => ({ ...img, bytes: Buffer.from(img.bytes.buffer, img.bytes.byteOffset, img.bytes.byteLength) })) };
}

/**
 * `busySecondsPerMb`: the parser's own working time a file may take, 30 s
 * plus this much per MB of the file (EXTRACTION_BUSY_SECONDS_PER_MB): the
 * page limit bounds one page, this bounds them all, in proportion to what
 * was uploaded.
 */
export function sourceExtraction(opts: { calls: AiCalls; storage: InProcessStorage; models: ModelRouter; settings: Settings; hosted: HostedEngines; parsers: IsolatedPool; stops: ExtractionStops; busySecondsPerMb: number; log: Logger }) {
  const { calls, storage } = opts;
  const vision = visionEngine({ models: opts.models, settings: opts.settings });

  const replaceDerivatives = async (id: string, derivatives: Derivative[]) => {
    const old = (await calls.asService<{ name: string }>('select name from storage.objects where bucket_id = $1 and name like $2', [SOURCE_BUCKET, `${id}/derivatives/%`])).map((r) => r.name);
    await storage.remove(PROJECT_CALLER, SOURCE_BUCKET, old);
    await calls.asService('delete from ai.source_derivatives where source_id = $1', [id]);
    for (const d of derivatives) {
      const path = `${id}/derivatives/${d.kind}/${d.idx}.${d.ext}`;
      await storage.write(PROJECT_CALLER, SOURCE_BUCKET, path, d.bytes, d.contentType, true);
      await calls.asService('insert into ai.source_derivatives (source_id, kind, idx, object_path, content_type, size_bytes, page) values ($1, $2, $3, $4, $5, $6, $7)',
        [id, d.kind, d.idx, path, d.contentType, d.bytes.length, d.page]);
    }
  };

  /**
   * An extraction in its `extract` span, joined to the trace of the request
   * that made the source (sql/0071), and counted for /metrics by how it ended.
   */
  return async (payload: { source_id: string; run: number }, attempt: { n: number; max: number }): Promise<void> => {
    const { source_id: id, run } = payload;
    const [began] = await calls.asService<{ ok: boolean }>('select ai.begin_extraction($1, $2) as ok', [id, run]);
    if (!began?.ok) return;
    const traceparent = tracing.on ? (await calls.asService<{ traceparent: string | null }>('select traceparent from ai.sources where id = $1', [id]))[0]?.traceparent : null;
    await inSpan('extract', { ...(traceparent ? { parent: contextFrom(traceparent) } : {}), attributes: { 'pgbase.source_id': id, 'pgbase.extraction.run': run, 'pgbase.job.attempt': attempt.n } }, (span) =>
      extract(id, run, attempt, (status, message, engine, pages) => {
        metrics.extractions.inc({ outcome: status });
        if (pages) metrics.extractedPages.inc(pages);
        span?.setAttributes({ 'pgbase.extraction.status': status, ...(engine ? { 'pgbase.extraction.engine': engine } : {}), ...(pages !== null ? { 'pgbase.extraction.pages': pages } : {}) });
        if (status === 'failed') failSpan(span, null, 'extraction_failed');
        return calls.asService('select ai.finish_extraction($1, $2, $3, $4, $5, $6)', [id, run, status, message, engine, pages]);
      }));
  };

  async function extract(id: string, run: number, attempt: { n: number; max: number }, finish: (status: 'extracted' | 'attention_required' | 'failed', message: string | null, engine: string | null, pages: number | null) => Promise<unknown>): Promise<void> {
    // Aborts the moment the source is cancelled, queued again or deleted (sql/0097).
    const stop = opts.stops.watch(id, run);
    try {
      const [source] = await calls.asService<{ extension: string; object_path: string; extraction_model: string; owner_id: string | null; origin_detail: { images?: Array<{ path: string; content_type: string }> } }>('select extension, object_path, extraction_model, owner_id, origin_detail from ai.sources where id = $1', [id]);
      if (!source) return;
      const file = await storage.read(PROJECT_CALLER, SOURCE_BUCKET, source.object_path, MAX_ORIGINAL_BYTES);
      const progress = async (done: number, total: number) => {
        const [r] = await calls.asService<{ ok: boolean }>('select ai.extraction_progress($1, $2, $3, $4) as ok', [id, run, done, total]);
        if (!r?.ok) throw new Stopped();
      };
      // Parsed in a thread of its own with heap and time limits; the bytes are copied once for it.
      const bounds = { busyMs: Math.round((30 + opts.busySecondsPerMb * (file.bytes.length / 1024 ** 2)) * 1000), signal: stop.signal };
      const local = (model: string) => extractIsolated(opts.parsers, { extension: source.extension, bytes: new Uint8Array(file.bytes), model, vision: true }, progress, vision({ id, owner_id: source.owner_id }), bounds);
      const model = source.extraction_model;
      const parse = async (): Promise<Extracted> => {
        if (!opts.hosted.isHosted(model) || LOCAL_ONLY.has(source.extension)) return local(opts.hosted.isHosted(model) ? 'auto' : model);
        // A hosted parser; when it cannot be used the local chain reads the file, and the source says so.
        try {
          const hosted = await opts.hosted.extract(model, { bytes: file.bytes, filename: `original.${source.extension}`, contentType: file.contentType });
          await progress(1, 1);
          return hosted;
        } catch (err) {
          if (!(err instanceof Failure)) throw err;
          const fallback = await local('auto');
          fallback.note = `The ${model} engine could not be used (${err.message}); the local engines read the file instead`;
          return fallback;
        }
      };
      const result = await inSpan('parse', { attributes: { 'pgbase.extraction.model': model, 'pgbase.source.extension': source.extension, 'pgbase.source.bytes': file.bytes.length } }, parse);
      // Files that came with the document (an imported page's images) are its images too.
      for (const a of source.origin_detail.images ?? []) {
        const img = await storage.read(PROJECT_CALLER, SOURCE_BUCKET, a.path, MAX_ORIGINAL_BYTES).catch(() => null);
        if (img) result.images.push({ page: 1, bytes: img.bytes, contentType: a.content_type });
      }
      // Cancelled while the last page was read: keep nothing.
      const [still] = await calls.asService<{ ok: boolean }>(`select exists (select 1 from ai.sources where id = $1 and extraction_run = $2 and extraction_status = 'extracting') as ok`, [id, run]);
      if (!still?.ok) return;
      await inSpan('store derivatives', {}, () => replaceDerivatives(id, derivativesOf(result)));
      await finish(result.attention ? 'attention_required' : 'extracted', result.attention ?? result.note ?? null, result.engine, result.pages.length);
      opts.log.info({ source_id: id, pages: result.pages.length, status: result.attention ? 'attention_required' : 'extracted' }, 'source extracted');
    } catch (err) {
      if (err instanceof Stopped) return;
      if (err instanceof Failure) return void (await finish('failed', err.message, null, null));
      opts.log.warn({ source_id: id, error: (err as Error).message, attempt: attempt.n }, 'source extraction failed');
      if (attempt.n < attempt.max) {
        // Handed back for graphile-worker's retry; a run left `extracting` means its process died (sql/0054).
        await calls.asService('select ai.release_extraction($1, $2)', [id, run]);
        throw err;
      }
      await finish('failed', `Extraction failed: ${(err as Error).message}`, null, null);
    } finally {
      stop.release();
    }
  }
}
