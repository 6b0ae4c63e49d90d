// chunk_embed: the document's elements in token-aware chunks (../chunking.ts),
// each with its page, headings, element types and box, embedded by the job.
import { chunkElements } from '../chunking.ts';
import { embeddingModelOf, type Strategy } from './types.ts';

const int = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : fallback);

export const chunkEmbed: Strategy = {
  embeddingModel: embeddingModelOf,
  items: async (doc, ctx) => {
    const chunks = chunkElements(doc.elements, { chunkSize: int(ctx.config.chunk_size, 512), overlap: int(ctx.config.overlap, 64) });
    return chunks.map((c) => ({ kind: 'chunk' as const, text: c.text, meta: c.meta, tokens: c.tokens }));
  },
};
