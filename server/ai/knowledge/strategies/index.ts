// The indexing strategies by name (ai.kb_strategies holds the catalogue).
import { chunkEmbed } from './chunk-embed.ts';
import { docToJson } from './doc2json.ts';
import { fullDocument } from './full-document.ts';
import { pageIndex } from './page-index.ts';
import { IndexingFailed, type Strategy } from './types.ts';

const notYet = (name: string): Strategy => ({
  embeddingModel: () => null,
  items: async () => {
    throw new IndexingFailed(`The ${name} strategy cannot index on this server yet: use chunk_embed, page_index, full_document or doc2json`);
  },
});

export const strategies: Record<string, Strategy> = {
  chunk_embed: chunkEmbed,
  full_document: fullDocument,
  doc2json: docToJson,
  page_index: pageIndex,
  graph_index: notYet('graph_index'),
};
