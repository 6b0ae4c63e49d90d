// full_document: one item per document, its whole text, with a summary by
// FULLDOC_SUMMARY_MODEL that is what gets embedded (a whole document is too
// long to embed well); search returns the whole document.
import { countTokens } from '../chunking.ts';
import { embeddingModelOf, textOfChat, type Strategy } from './types.ts';
import { Failure } from '../../failures.ts';

export const fullDocument: Strategy = {
  embeddingModel: embeddingModelOf,
  items: async (doc, ctx) => {
    const text = doc.markdown.trim();
    if (!text) return [];
    const inputChars = Number(ctx.config.summary_input_chars ?? (await ctx.settings.number('FULLDOC_SUMMARY_INPUT_CHARS')));
    const maxTokens = Number(ctx.config.summary_max_tokens ?? (await ctx.settings.number('FULLDOC_SUMMARY_MAX_TOKENS')));
    const model = String(ctx.config.summary_model ?? (await ctx.settings.string('FULLDOC_SUMMARY_MODEL')));
    await ctx.progress(0, 1);
    const summary = textOfChat(await ctx.models.chat({
      model, signal: ctx.signal, context: ctx.usage, settings: { max_tokens: maxTokens, temperature: 0 },
      messages: [
        { role: 'system', content: 'Summarise the document for search: its subject, main points, names, figures and conclusions, in plain prose.' },
        { role: 'user', content: `Document: ${doc.name}\n\n${text.slice(0, inputChars)}` },
      ],
    })).trim();
    if (!summary) throw new Failure(`The summary model ${model} answered with no text`);
    await ctx.progress(1, 1);
    return [{ kind: 'document', text, meta: { page: 1, pages: doc.pages, token_count: countTokens(text) }, extras: { summary }, tokens: countTokens(text), embedText: summary }];
  },
};
