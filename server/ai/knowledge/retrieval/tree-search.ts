// tree_search (page_index): a model reads the knowledge base's tables of
// contents (each node's number, title, pages and summary, indented by level;
// with PAGEINDEX_ADD_NODE_TEXT the start of its text too) and picks up to
// max_nodes (PAGEINDEX_TREE_SEARCH_MAX_NODES) nodes that answer the query,
// as PageIndex navigates a document. Over MAX_OUTLINE nodes
// (or with filter_metadata) the outline is first narrowed by BM25 over the
// nodes. Chosen nodes score 1, 1/2, 1/3, ... in the model's order. When
// the model fails or answers badly, the nodes come in BM25 order and the
// diagnostics say why: a model step never fails a search.
import type { AiCalls } from '../../calls.ts';
import type { ModelRouter } from '../../providers/router.ts';
import type { Settings } from '../../settings/accessor.ts';
import type { MethodRun, Retrieval } from './types.ts';
import { parseModelJson } from '../model-json.ts';

const MAX_OUTLINE = 400;
/** With PAGEINDEX_ADD_NODE_TEXT, each node's text goes in the outline too, this much of it. */
const NODE_TEXT_CHARS = 1000;

type NodeRow = { id: string; text: string; source_name: string; source_id: string; meta: { page_start?: number; page_end?: number; level?: number }; extras: { node_id?: string; title?: string; summary?: string } };

export async function treeSearch(calls: AiCalls, models: ModelRouter, settings: Settings, r: Retrieval): Promise<MethodRun> {
  const started = performance.now();
  const model = String(r.config.model ?? (await settings.string('PAGEINDEX_RETRIEVAL_MODEL')));
  const maxNodes = Number(r.config.max_nodes ?? (await settings.number('PAGEINDEX_TREE_SEARCH_MAX_NODES')));
  const withText = await settings.boolean('PAGEINDEX_ADD_NODE_TEXT');
  const [{ n }] = (await calls.as<{ n: number }>(r.ctx, `select count(*)::int as n from ai.kb_items where kb_id = $1 and kind = 'node'`, [r.kbId])) as [{ n: number }];
  const narrowed = n > MAX_OUTLINE || r.filter !== null;
  const nodes = await calls.as<NodeRow>(r.ctx,
    `select i.id, i.text, s.name as source_name, i.source_id, i.meta, i.extras from ai.kb_items i join ai.sources s on s.id = i.source_id
      where i.kb_id = $1 and i.kind = 'node'
        and (not $2 or i.id in (select b.item_id from ai.bm25_search($1, $3, 'english', 0.9, 0.4, ${MAX_OUTLINE}, $4) b))
      order by i.source_id, i.position`, [r.kbId, narrowed, r.query, r.filter]);
  if (!nodes.length) return { items: [], diagnostics: { model, nodes_considered: 0, chosen: [], ms: Math.round(performance.now() - started) } };
  // Outline keys are unique across documents: d<document>.<node>.
  const keyOf = new Map<string, string>();
  const docs = [...new Set(nodes.map((x) => x.source_id))];
  const outline = docs.map((sourceId, d) => {
    const mine = nodes.filter((x) => x.source_id === sourceId);
    return [`Document ${d + 1}: ${mine[0]!.source_name}`, ...mine.map((x) => {
      const key = `d${d + 1}.${x.extras.node_id ?? x.id}`;
      keyOf.set(key, x.id);
      const pages = x.meta.page_start === x.meta.page_end ? `page ${x.meta.page_start}` : `pages ${x.meta.page_start}–${x.meta.page_end}`;
      const indent = '  '.repeat(Math.max(0, (x.meta.level ?? 1) - 1));
      const text = withText ? `\n${indent}  ${x.text.slice(0, NODE_TEXT_CHARS).replace(/\s+/g, ' ')}` : '';
      return `${indent}[${key}] ${x.extras.title ?? ''} (${pages})${x.extras.summary ? `: ${x.extras.summary}` : ''}${text}`;
    })].join('\n');
  }).join('\n\n');
  let picked: string[] = [];
  let reasoning: unknown = null;
  try {
    const answer = await models.chat({
      model, context: { ...r.usage, step: 'tree_search' }, settings: { temperature: 0 }, response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: `You find where documents answer a question. Read the tables of contents and choose at most ${maxNodes} sections (by their [key]) most likely to hold the answer, best first. Answer JSON {"node_ids": [...], "reasoning": "..."}.` },
        { role: 'user', content: `Question: ${r.query}\n\n${outline}` },
      ],
    });
    const parsed = parseModelJson(answer.content) as { node_ids?: unknown; reasoning?: unknown };
    if (!Array.isArray(parsed.node_ids)) throw new Error('its answer was not {"node_ids": [...]}');
    picked = parsed.node_ids.map(String).filter((k) => keyOf.has(k));
    reasoning = parsed.reasoning ?? null;
  } catch (err) {
    // A navigator that fails or answers badly never fails the search (the rule of the reranker and query
    // enrichment): the nodes in BM25 order instead, and the diagnostics say why.
    const error = err instanceof SyntaxError ? 'its answer was not JSON' : (err as Error).message;
    const ranked = await calls.as<{ item_id: string; score: number }>(r.ctx,
      `select b.item_id, b.score from ai.bm25_search($1, $2, 'english', 0.9, 0.4, $3, $4) b join ai.kb_items i on i.id = b.item_id where i.kind = 'node' order by b.score desc, b.item_id`,
      [r.kbId, r.query, Math.min(maxNodes, r.limit), r.filter]);
    return {
      items: ranked.map((x) => ({ id: x.item_id, score: x.score })),
      diagnostics: { model, error: `The tree search model ${model} could not be used: ${error}`, fallback: 'full_text', nodes_considered: nodes.length, chosen: [], ms: Math.round(performance.now() - started) },
    };
  }
  const chosen = [...new Set(picked)].slice(0, Math.min(maxNodes, r.limit));
  return {
    items: chosen.map((k, i) => ({ id: keyOf.get(k)!, score: 1 / (i + 1) })),
    diagnostics: { model, max_nodes: maxNodes, nodes_considered: nodes.length, narrowed_by_bm25: narrowed, chosen, reasoning, ms: Math.round(performance.now() - started) },
  };
}
