// Metadata enrichment (graphile-worker task ai_kb_enrich, keyed enrich:<kb>):
// for every item the run targets (ai.enrichment_targets), a model answers the
// config's fields as JSON (a schema built from them; null where the item
// does not say); the answer is checked against each field's type, retried up
// to METADATA_ENRICHMENT_MAX_RETRIES, and stored (ai.store_enrichment), or
// the item's error is. With use_multimodal the item's page images from its
// source go along. METADATA_ENRICHMENT_BATCH_SIZE items a job (each job
// queues the next), METADATA_ENRICHMENT_CONCURRENCY at once; the run stops
// when it no longer holds (a new PUT, a new run).
import type { Logger } from 'pino';
import type { InProcessStorage } from '../../storage/in-process.ts';
import type { AiCalls } from '../calls.ts';
import type { ChatMessage, ModelRouter } from '../providers/router.ts';
import type { Settings } from '../settings/accessor.ts';
import { SOURCE_BUCKET } from '../sources/store.ts';
import { PROJECT_CALLER } from '../actor.ts';
import { pooled } from '../pooled.ts';
import { parseModelJson } from './model-json.ts';
import { Stopped } from '../failures.ts';

export type Field = { name: string; description: string; type: 'text' | 'boolean' | 'number' | 'enum'; enum_values?: string[] };
type Target = { item_id: string; kind: string; text: string; source_id: string; page: number | null; source_name: string };
const MAX_IMAGES = 3;

/** The JSON Schema of an answer: every field, null allowed. */
export function answerSchema(fields: Field[]) {
  const typeOf = (f: Field) => (f.type === 'text' || f.type === 'enum' ? 'string' : f.type);
  return {
    type: 'object', additionalProperties: false, required: fields.map((f) => f.name),
    properties: Object.fromEntries(fields.map((f) => [f.name, { type: [typeOf(f), 'null'], description: f.description, ...(f.type === 'enum' ? { enum: [...f.enum_values!, null] } : {}) }])),
  };
}

/** The answer's values by the field types; the first value that breaks its type is the error. */
export function checkAnswer(fields: Field[], raw: string): Record<string, unknown> {
  let answer: unknown;
  try {
    answer = parseModelJson(raw);
  } catch {
    throw new Error('The model did not answer with JSON');
  }
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) throw new Error('The model did not answer with a JSON object');
  const values: Record<string, unknown> = {};
  for (const f of fields) {
    const v = (answer as Record<string, unknown>)[f.name];
    if (v === undefined || v === null) { values[f.name] = null; continue; }
    const ok = f.type === 'boolean' ? typeof v === 'boolean' : f.type === 'number' ? typeof v === 'number' && Number.isFinite(v) : f.type === 'enum' ? f.enum_values!.includes(v as string) : typeof v === 'string';
    if (!ok) throw new Error(`${f.name}: expected ${f.type === 'enum' ? `one of ${f.enum_values!.join(', ')}` : f.type}, got ${JSON.stringify(v).slice(0, 100)}`);
    values[f.name] = v;
  }
  return values;
}

export function metadataEnrichment(opts: { calls: AiCalls; models: ModelRouter; settings: Settings; storage: InProcessStorage; log: Logger }) {
  const { calls, settings } = opts;

  const pageImages = async (t: Target): Promise<string[]> => {
    const rows = await calls.asService<{ object_path: string; content_type: string }>(
      `select object_path, content_type from ai.source_derivatives where source_id = $1 and kind = 'image' and coalesce(page, 1) = $2 order by idx limit ${MAX_IMAGES}`, [t.source_id, t.page ?? 1]);
    const out: string[] = [];
    for (const r of rows) out.push(`data:${r.content_type};base64,${(await opts.storage.read(PROJECT_CALLER, SOURCE_BUCKET, r.object_path, 20 * 1024 * 1024)).bytes.toString('base64')}`);
    return out;
  };

  return async (payload: { knowledge_base_id: string; run: number; incremental: boolean; retry_failed: boolean }, attempt: { n: number; max: number }): Promise<void> => {
    const { knowledge_base_id: kb, run } = payload;
    const [cfg] = await calls.asService<{ fields: Field[]; llm_model: string; max_tokens: number; use_multimodal: boolean; owner_id: string | null }>(
      `select e.fields, e.llm_model, e.max_tokens, e.use_multimodal, k.owner_id from ai.kb_enrichments e join ai.knowledge_bases k on k.id = e.kb_id
        where e.kb_id = $1 and e.run = $2 and e.status = 'enriching'`, [kb, run]);
    if (!cfg) return;
    try {
      const [concurrency, maxChars, retries, temperature, batch] = await Promise.all([
        settings.number('METADATA_ENRICHMENT_CONCURRENCY'), settings.number('METADATA_ENRICHMENT_MAX_INPUT_CHARS'),
        settings.number('METADATA_ENRICHMENT_MAX_RETRIES'), settings.number('METADATA_ENRICHMENT_TEMPERATURE'), settings.number('METADATA_ENRICHMENT_BATCH_SIZE')]);
      // One batch a job; the next job takes the next batch (so a crash loses one batch, and workers share a long run).
      const targets = await calls.asService<Target>('select * from ai.enrichment_targets($1, $2, $3, $4)', [kb, payload.incremental, payload.retry_failed, batch + 1]);
      const more = targets.length > batch;
      targets.splice(batch);
      const schema = answerSchema(cfg.fields);
      const fieldList = cfg.fields.map((f) => `- ${f.name} (${f.type === 'enum' ? `one of ${f.enum_values!.join(', ')}` : f.type}): ${f.description}`).join('\n');
      const enrichOne = async (t: Target): Promise<Record<string, unknown>> => {
        const text = `Document: ${t.source_name}${t.page ? ` (page ${t.page})` : ''}\n\n${t.text.slice(0, maxChars)}`;
        const images = cfg.use_multimodal ? await pageImages(t) : [];
        const user: ChatMessage = images.length
          ? { role: 'user', content: [{ type: 'text', text }, ...images.map((url) => ({ type: 'image_url' as const, image_url: { url } }))] }
          : { role: 'user', content: text };
        const r = await opts.models.chat({
          model: cfg.llm_model, context: { userId: cfg.owner_id, feature: 'enrichment', runId: kb, step: t.item_id },
          settings: { max_tokens: cfg.max_tokens, temperature },
          response_format: { type: 'json_schema', json_schema: { name: 'metadata', strict: true, schema } },
          messages: [{ role: 'system', content: `Read the passage and fill these metadata fields as a JSON object; use null where the passage does not say.\n${fieldList}` }, user],
        });
        return checkAnswer(cfg.fields, r.content ?? '');
      };
      await pooled(targets, concurrency, async (t) => {
        let values: Record<string, unknown> | null = null;
        let error: string | null = null;
        for (let tries = 0; tries <= retries; tries++) {
          try {
            values = await enrichOne(t);
            error = null;
            break;
          } catch (err) {
            error = (err as Error).message;
          }
        }
        const [held] = await calls.asService<{ ok: boolean }>('select ai.store_enrichment($1, $2, $3, $4, $5) as ok', [kb, run, t.item_id, values, error]);
        if (!held?.ok) throw new Stopped();
      });
      if (more) {
        await calls.asService('select ai.continue_enrichment($1, $2, $3, $4)', [kb, run, payload.incremental, payload.retry_failed]);
        return;
      }
      await calls.asService('select ai.finish_enrichment($1, $2, null)', [kb, run]);
      opts.log.info({ knowledge_base_id: kb, run }, 'metadata enriched');
    } catch (err) {
      if (err instanceof Stopped) return;
      opts.log.warn({ knowledge_base_id: kb, error: (err as Error).message, attempt: attempt.n }, 'metadata enrichment failed');
      if (attempt.n < attempt.max) throw err;
      await calls.asService('select ai.finish_enrichment($1, $2, $3)', [kb, run, `Enrichment failed: ${(err as Error).message}`]);
    }
  };
}
