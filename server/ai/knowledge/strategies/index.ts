// The indexing strategies by name (ai.kb_strategies holds the catalogue).
import { chunkEmbed } from './chunk-embed.ts';
import { docToJson } from './doc2json.ts';
import { fullDocument } from './full-document.ts';
import { pageIndex } from './page-index.ts';
import type { AiCalls } from '../../calls.ts';
import type { ModelRouter } from '../../providers/router.ts';
import type { Settings } from '../../settings/accessor.ts';
import { graphIndex } from './graph-index.ts';
import type { Strategy } from './types.ts';

/** graph_index needs the database and the model router to store its graph. */
export function strategyCatalogue(calls: AiCalls, models: ModelRouter, settings: Settings): Record<string, Strategy> {
  return { chunk_embed: chunkEmbed, full_document: fullDocument, doc2json: docToJson, page_index: pageIndex, graph_index: graphIndex(calls, models, settings) };
}
