// doc2json: a model turns each document into JSON items that match the
// schema in `indexing_config.schema` (a JSON Schema of one item; without one,
// items are {title, content}). Long documents go in parts of
// DOC2JSON_MAX_INPUT_CHARS, DOC2JSON_CONCURRENCY at once. Each item is
// stored as its JSON text (searched and embedded) with the object itself in
// `extras.data`.
import { countTokens } from '../chunking.ts';
import { pooled } from '../../pooled.ts';
import { embeddingModelOf, textOfChat, type Strategy } from './types.ts';
import { parseModelJson } from '../model-json.ts';
import { Failure } from '../../failures.ts';

const DEFAULT_SCHEMA = { type: 'object', properties: { title: { type: 'string' }, content: { type: 'string' } }, required: ['title', 'content'], additionalProperties: false };

export const docToJson: Strategy = {
  embeddingModel: embeddingModelOf,
  items: async (doc, ctx) => {
    const text = doc.markdown.trim();
    if (!text) return [];
    const schema = ctx.config.schema && typeof ctx.config.schema === 'object' ? ctx.config.schema : DEFAULT_SCHEMA;
    const model = String(ctx.config.model ?? (await ctx.settings.string('DOC2JSON_MODEL')));
    const partChars = await ctx.settings.number('DOC2JSON_MAX_INPUT_CHARS');
    const maxTokens = await ctx.settings.number('DOC2JSON_MAX_OUTPUT_TOKENS');
    const temperature = await ctx.settings.number('DOC2JSON_TEMPERATURE');
    const maxItems = Number(ctx.config.max_items ?? (await ctx.settings.number('DOC2JSON_MAX_ITEMS')));
    const strict = ctx.config.strict_schema ?? (await ctx.settings.boolean('DOC2JSON_STRICT_SCHEMA'));
    const parts: string[] = [];
    for (let i = 0; i < text.length; i += partChars) parts.push(text.slice(i, i + partChars));
    const concurrency = await ctx.settings.number('DOC2JSON_CONCURRENCY');
    let done = 0;
    // Parts at once (DOC2JSON_CONCURRENCY); their items kept in document order.
    const perPart = await pooled(parts, concurrency, async (part, n) => {
      const answer = textOfChat(await ctx.models.chat({
        model, signal: ctx.signal, context: ctx.usage, settings: { max_tokens: maxTokens, temperature },
        response_format: strict
          ? { type: 'json_schema', json_schema: { name: 'items', strict: false, schema: { type: 'object', properties: { items: { type: 'array', items: schema } }, required: ['items'] } } }
          : { type: 'json_object' },
        messages: [
          { role: 'system', content: `Extract every item the document holds as JSON {"items": [...]}, each item matching this JSON Schema:\n${JSON.stringify(schema)}\nUse only facts from the document.` },
          { role: 'user', content: `Document: ${doc.name}${parts.length > 1 ? ` (part ${n + 1} of ${parts.length})` : ''}\n\n${part}` },
        ],
      }));
      let parsed: unknown;
      try {
        parsed = parseModelJson(answer);
      } catch {
        throw new Failure(`The model ${model} did not answer with JSON for part ${n + 1}`);
      }
      const items = Array.isArray(parsed) ? parsed : (parsed as { items?: unknown })?.items;
      if (!Array.isArray(items)) throw new Failure(`The model ${model} answered without an items array for part ${n + 1}`);
      await ctx.progress(++done, parts.length);
      return items.map((value) => ({ value, part: n + 1 }));
    });
    const data = perPart.flat();
    return data.slice(0, maxItems).map(({ value, part }, i) => {
      const json = JSON.stringify(value);
      return { kind: 'item' as const, text: json, meta: { page: 1, part, item_index: i }, extras: { data: value }, tokens: countTokens(json) };
    });
  },
};
