// graph_index, after LightRAG: the document in chunks (GRAPHINDEX_CHUNK_SIZE,
// GRAPHINDEX_CHUNK_OVERLAP); once they are stored, GRAPHINDEX_MODEL reads each
// one for entities (of GRAPHINDEX_ENTITY_TYPES) and the relations between
// them, with GRAPHINDEX_MAX_GLEANING extra passes asking for what it missed,
// kept to GRAPHINDEX_MAX_ENTITIES_PER_CHUNK, into the graph tables
// (ai.graph_store); an entity described at length in many chunks gets one
// summary of GRAPHINDEX_SUMMARY_MAX_TOKENS. A chunk whose extraction fails
// keeps its error (graph-enrichment/errors) and can be run again
// (graph-enrichment/run).
import type { AiCalls } from '../../calls.ts';
import type { ChatMessage, ModelRouter } from '../../providers/router.ts';
import type { Settings } from '../../settings/accessor.ts';
import type { UsageContext } from '../../usage/ledger.ts';
import { chunkElements } from '../chunking.ts';
import { pooled } from '../../pooled.ts';
import { embeddingModelOf, textOfChat, type Strategy } from './types.ts';
import { parseModelJson } from '../model-json.ts';

const CONCURRENCY = 4;
type Extracted = { entities: Array<Record<string, unknown>>; relations: Array<Record<string, unknown>> };

function parseGraph(raw: string): Extracted {
  const parsed = parseModelJson(raw) as Partial<Extracted>;
  if (!Array.isArray(parsed.entities)) throw new Error('the answer has no entities array');
  return { entities: parsed.entities, relations: Array.isArray(parsed.relations) ? parsed.relations : [] };
}

/** Extracts and stores the graph of the given chunks; answers how many failed. */
export function graphExtractor(calls: AiCalls, models: ModelRouter, settings: Settings) {
  return async (chunks: Array<{ id: string; text: string }>, config: Record<string, unknown>, usage: UsageContext, progress?: (done: number, total: number) => Promise<void>): Promise<number> => {
    const model = String(config.model ?? (await settings.string('GRAPHINDEX_MODEL')));
    const types = String(config.entity_types ?? (await settings.string('GRAPHINDEX_ENTITY_TYPES')));
    const gleaning = await settings.number('GRAPHINDEX_MAX_GLEANING');
    const maxEntities = await settings.number('GRAPHINDEX_MAX_ENTITIES_PER_CHUNK');
    const system = `Extract a knowledge graph from the text. Entities have a name, a type (one of: ${types}) and a one-sentence description. `
      + 'Relations link two entity names (source, target) with a description, keywords and a weight from 1 (loose) to 10 (strong). '
      + 'Answer JSON {"entities": [{"name", "type", "description"}], "relations": [{"source", "target", "description", "keywords", "weight"}]}.';
    let failed = 0;
    let done = 0;
    await pooled(chunks, CONCURRENCY, async (chunk) => {
      const messages: ChatMessage[] = [{ role: 'system', content: system }, { role: 'user', content: chunk.text }];
      let error: string | null = null;
      const graph: Extracted = { entities: [], relations: [] };
      try {
        for (let pass = 0; pass <= gleaning; pass++) {
          const r = await models.chat({ model, messages, context: { ...usage, step: `graph-${chunk.id}` }, settings: { temperature: 0 }, response_format: { type: 'json_object' } });
          const answer = textOfChat(r);
          const found = parseGraph(answer);
          graph.entities.push(...found.entities);
          graph.relations.push(...found.relations);
          if (pass > 0 && found.entities.length === 0) break;
          messages.push({ role: 'assistant', content: answer }, { role: 'user', content: 'Some entities or relations may have been missed. Answer the ones missing, in the same JSON form (empty arrays if none).' });
        }
      } catch (err) {
        error = `Extraction failed: ${(err as Error).message}`;
      }
      if (error) failed++;
      await calls.asService('select ai.graph_store($1, $2, $3, $4)', [chunk.id, JSON.stringify(graph.entities.slice(0, maxEntities)), JSON.stringify(graph.relations), error]);
      await progress?.(++done, chunks.length);
    });
    // An entity many chunks describe gets one summary of GRAPHINDEX_SUMMARY_MAX_TOKENS (about 4 characters a token).
    const summaryTokens = await settings.number('GRAPHINDEX_SUMMARY_MAX_TOKENS');
    const kbId = chunks.length ? (await calls.asService<{ kb_id: string }>('select kb_id from ai.kb_items where id = $1', [chunks[0]!.id]))[0]?.kb_id : undefined;
    if (kbId) {
      const long = await calls.asService<{ name_key: string; name: string; mentions: number; descriptions: string[] }>('select * from ai.graph_entities_to_summarise($1, $2)', [kbId, summaryTokens * 4]);
      await pooled(long, CONCURRENCY, async (e) => {
        const r = await models.chat({
          model, context: { ...usage, step: `entity-summary` }, settings: { temperature: 0, max_tokens: summaryTokens },
          messages: [
            { role: 'system', content: 'Merge these descriptions of one entity into one consistent description, keeping every fact.' },
            { role: 'user', content: `Entity: ${e.name}\n\n${e.descriptions.map((d) => `- ${d}`).join('\n')}` },
          ],
        }).catch(() => null);
        const summary = r ? textOfChat(r).trim() : '';
        if (summary) {
          await calls.asService('select ai.graph_store_summary($1, $2, $3, $4)', [kbId, e.name_key, summary, e.mentions]);
        }
      });
    }
    return failed;
  };
}

export function graphIndex(calls: AiCalls, models: ModelRouter, settings: Settings): Strategy {
  const extract = graphExtractor(calls, models, settings);
  return {
    embeddingModel: embeddingModelOf,
    items: async (doc, ctx) => {
      const size = Number(ctx.config.chunk_size ?? (await settings.number('GRAPHINDEX_CHUNK_SIZE')));
      const overlap = Number(ctx.config.overlap ?? (await settings.number('GRAPHINDEX_CHUNK_OVERLAP')));
      return chunkElements(doc.elements, { chunkSize: size, overlap }).map((c) => ({ kind: 'chunk' as const, text: c.text, meta: c.meta, tokens: c.tokens }));
    },
    afterStore: async (stored, ctx) => {
      const failed = await extract(stored, ctx.config, ctx.usage, ctx.progress);
      return { graph_errors: failed };
    },
  };
}
