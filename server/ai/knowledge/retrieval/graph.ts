// graph (graph_index): the chunks reached from the entities each issued
// query names and their neighbourhood (ai.graph_search), each chunk's best
// score over the queries; the diagnostics list those entities with their
// descriptions (summarised where long, ai.graph_entities).
import type { AiCalls } from '../../calls.ts';
import { bestOf } from './hybrid.ts';
import type { MethodRun, Retrieval } from './types.ts';

export async function graphSearch(calls: AiCalls, r: Retrieval, queries: string[]): Promise<MethodRun> {
  const started = performance.now();
  const lists = await Promise.all(queries.map((q) => calls.as<{ item_id: string; score: number; entities: string[] }>(r.ctx, 'select * from ai.graph_search($1, $2, $3, $4)', [r.kbId, q, r.limit, r.filter])));
  const items = bestOf(lists.map((l) => l.map((x) => ({ id: x.item_id, score: x.score }))));
  const names = [...new Set(lists.flat().flatMap((x) => x.entities))].slice(0, 20);
  const [details] = await calls.as<{ entities: unknown[] }>(r.ctx, 'select ai.graph_entities($1, (select array_agg(ai.graph_key(n)) from unnest($2::text[]) n)) as entities', [r.kbId, names]);
  return { items, diagnostics: { candidates: items.length, top_score: items[0]?.score ?? null, entities: names, entity_details: details!.entities, ms: Math.round(performance.now() - started) } };
}
