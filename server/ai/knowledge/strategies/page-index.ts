// page_index, after PageIndex: a table of contents per document, each
// section a node with its pages, text and (PAGEINDEX_ADD_NODE_SUMMARY) a
// summary by PAGEINDEX_MODEL; tree_search (../retrieval/tree-search.ts) has a
// model read that outline to pick the sections that answer a query. Sections
// come from the document's headings; without any (or with
// PAGEINDEX_TOC_DETECTION llm) the model reads the pages and names them
// (following a printed table of contents in the first PAGEINDEX_TOC_CHECK_PAGES);
// failing that, every PAGEINDEX_MAX_PAGES_PER_NODE pages make a node. A node
// over PAGEINDEX_MAX_TOKENS_PER_NODE is split into parts; leaves shorter than
// PAGEINDEX_MIN_NODE_CHARS fold into their parent. Nodes are stored as items
// of kind `node` (the summary is what gets embedded, for vector_search).
import type { Element } from '../../sources/extract/types.ts';
import { countTokens } from '../chunking.ts';
import { pooled } from '../../pooled.ts';
import { embeddingModelOf, textOfChat, type NewItem, type Strategy, type StrategyContext } from './types.ts';
import { parseModelJson } from '../model-json.ts';

type Node = { title: string; level: number; pageStart: number; pageEnd: number; parts: string[]; children: Node[] };

const node = (title: string, level: number, page: number): Node => ({ title, level, pageStart: page, pageEnd: page, parts: [], children: [] });
const ownText = (n: Node) => n.parts.join('\n\n').trim();

/** Sections from the headings: each heading opens a node under the nearest shallower one. */
function fromHeadings(root: Node, elements: Element[]): boolean {
  const stack = [root];
  let found = false;
  for (const el of elements) {
    if (!el.text.trim()) continue;
    if (el.type === 'heading') {
      found = true;
      const level = Math.max(1, el.level ?? 1);
      while (stack.length > 1 && stack[stack.length - 1]!.level >= level) stack.pop();
      const n = node(el.text.trim(), level, el.page);
      stack[stack.length - 1]!.children.push(n);
      stack.push(n);
      continue;
    }
    for (const open of stack) open.pageEnd = Math.max(open.pageEnd, el.page);
    stack[stack.length - 1]!.parts.push(el.text);
  }
  return found;
}

/** Text by page, from the elements. */
function pagesOf(elements: Element[]): Map<number, string> {
  const pages = new Map<number, string[]>();
  for (const el of elements) pages.set(el.page, [...(pages.get(el.page) ?? []), el.text]);
  return new Map([...pages].sort(([a], [b]) => a - b).map(([p, t]) => [p, t.join('\n')]));
}

/** Sections from page ranges: [{title, start_page, level}] sorted by page, each running to the next one's start. */
function fromSections(root: Node, pages: Map<number, string>, sections: Array<{ title: string; start_page: number; level: number }>): void {
  const numbers = [...pages.keys()];
  const last = numbers[numbers.length - 1] ?? 1;
  const stack = [root];
  sections.forEach((s, i) => {
    const end = Math.max(s.start_page, (sections[i + 1]?.start_page ?? last + 1) - 1);
    const n = node(s.title, Math.max(1, s.level), s.start_page);
    n.pageEnd = Math.min(end, last);
    for (let p = s.start_page; p <= n.pageEnd; p++) if (pages.has(p)) n.parts.push(pages.get(p)!);
    while (stack.length > 1 && stack[stack.length - 1]!.level >= n.level) stack.pop();
    stack[stack.length - 1]!.children.push(n);
    stack.push(n);
  });
}

/** The model names the sections; the first PAGEINDEX_TOC_CHECK_PAGES pages go in longer, where a printed table of contents would be. */
async function sectionsByModel(pages: Map<number, string>, ctx: StrategyContext, model: string, tocPages: number): Promise<Array<{ title: string; start_page: number; level: number }>> {
  const listing = [...pages].map(([p, t], i) => `<page ${p}>\n${t.slice(0, i < tocPages ? 4000 : 1200)}`).join('\n\n').slice(0, 80000);
  const answer = textOfChat(await ctx.models.chat({
    model, signal: ctx.signal, context: { ...ctx.usage, step: 'toc' }, settings: { temperature: 0 }, response_format: { type: 'json_object' },
    messages: [
      { role: 'system', content: 'Make the table of contents of this document. If its first pages print one, follow it, mapping printed page numbers to the <page n> marks. Answer JSON {"sections": [{"title": string, "start_page": number (a <page n> mark), "level": 1 for a chapter, 2 for a section, ...}]} in page order.' },
      { role: 'user', content: listing },
    ],
  }));
  try {
    const parsed = parseModelJson(answer) as { sections?: Array<{ title?: unknown; start_page?: unknown; level?: unknown }> };
    return (parsed.sections ?? [])
      .filter((s) => typeof s.title === 'string' && s.title.trim() && Number.isInteger(s.start_page) && pages.has(s.start_page as number))
      .map((s) => ({ title: String(s.title).trim(), start_page: s.start_page as number, level: Number.isInteger(s.level) ? (s.level as number) : 1 }))
      .sort((a, b) => a.start_page - b.start_page);
  } catch {
    return [];
  }
}

/** Nodes too long (pages or tokens) split into parts; short leaves folded into their parent. */
function reshape(n: Node, maxPages: number, maxTokens: number, minChars: number): void {
  n.children.forEach((c) => reshape(c, maxPages, maxTokens, minChars));
  n.children = n.children.filter((c) => {
    if (c.children.length || ownText(c).length >= minChars || n.level === 0) return true;
    n.parts.push(`${c.title}\n${ownText(c)}`);
    return false;
  });
  const text = ownText(n);
  if (n.children.length === 0 && text && (countTokens(text) > maxTokens || n.pageEnd - n.pageStart + 1 > maxPages)) {
    const paragraphs = text.split(/\n{2,}/);
    const parts: string[][] = [[]];
    for (const p of paragraphs) {
      const current = parts[parts.length - 1]!;
      if (current.length && countTokens([...current, p].join('\n\n')) > maxTokens) parts.push([p]);
      else current.push(p);
    }
    if (parts.length > 1) {
      n.children = parts.map((p, i) => ({ ...node(`${n.title} (part ${i + 1})`, n.level + 1, n.pageStart), pageEnd: n.pageEnd, parts: [p.join('\n\n')] }));
      n.parts = [];
    }
  }
}

export const pageIndex: Strategy = {
  embeddingModel: embeddingModelOf,
  items: async (doc, ctx) => {
    const s = ctx.settings;
    const cfg = ctx.config;
    const model = String(cfg.model ?? (await s.string('PAGEINDEX_MODEL')));
    const detection = await s.string('PAGEINDEX_TOC_DETECTION');
    const maxPages = Number(cfg.max_pages_per_node ?? (await s.number('PAGEINDEX_MAX_PAGES_PER_NODE')));
    const maxTokens = Number(cfg.max_tokens_per_node ?? (await s.number('PAGEINDEX_MAX_TOKENS_PER_NODE')));
    const maxDepth = await s.number('PAGEINDEX_MAX_TREE_DEPTH');
    const minChars = await s.number('PAGEINDEX_MIN_NODE_CHARS');
    const summarise = Boolean(cfg.add_node_summary ?? (await s.boolean('PAGEINDEX_ADD_NODE_SUMMARY')));
    const numbered = await s.boolean('PAGEINDEX_ADD_NODE_ID');
    const describe = await s.boolean('PAGEINDEX_ADD_DOC_DESCRIPTION');
    const inputChars = await s.number('PAGEINDEX_SUMMARY_INPUT_CHARS');
    const summaryTokens = await s.number('PAGEINDEX_SUMMARY_MAX_TOKENS');
    const concurrency = await s.number('PAGEINDEX_CONCURRENCY');

    const root = node(doc.name, 0, 1);
    const pages = pagesOf(doc.elements);
    const headed = detection !== 'llm' && fromHeadings(root, doc.elements);
    if (!headed) {
      Object.assign(root, node(doc.name, 0, 1));
      const sections = detection === 'headings' ? [] : await sectionsByModel(pages, ctx, model, await s.number('PAGEINDEX_TOC_CHECK_PAGES'));
      if (sections.length) fromSections(root, pages, sections);
      else {
        const numbers = [...pages.keys()];
        for (let i = 0; i < numbers.length; i += maxPages) {
          const group = numbers.slice(i, i + maxPages);
          const n = node(group.length > 1 ? `Pages ${group[0]}–${group[group.length - 1]}` : `Page ${group[0]}`, 1, group[0]!);
          n.pageEnd = group[group.length - 1]!;
          n.parts = group.map((p) => pages.get(p)!);
          root.children.push(n);
        }
      }
    }
    reshape(root, maxPages, maxTokens, minChars);

    // Depth-first, numbered 0001, 0002, ...; deeper than PAGEINDEX_MAX_TREE_DEPTH folds into the ancestor at that depth.
    const flat: Array<{ n: Node; id: string; parent: string | null; path: string[]; depth: number }> = [];
    const walk = (n: Node, parent: string | null, path: string[], depth: number) => {
      if (depth > maxDepth) return;
      const id = String(flat.length + 1).padStart(4, '0');
      flat.push({ n, id, parent, path, depth });
      for (const c of n.children) {
        if (depth + 1 > maxDepth) n.parts.push(`${c.title}\n${ownText(c)}`);
        else walk(c, id, [...path, c.title], depth + 1);
      }
    };
    if (root.parts.length || describe || root.children.length === 0) walk(root, null, [], 0);
    else for (const c of root.children) walk(c, null, [c.title], 1);

    const summaries = new Map<string, string>();
    if (summarise) {
      let done = 0;
      await pooled(flat, concurrency, async (f) => {
        const text = ownText(f.n) || f.n.children.map((c) => c.title).join('\n');
        const r = await ctx.models.chat({
          model, signal: ctx.signal, context: { ...ctx.usage, step: `summary-${f.id}` }, settings: { max_tokens: summaryTokens, temperature: 0 },
          messages: [
            { role: 'system', content: 'Summarise this section of a document in two or three sentences: what it covers and the facts it gives.' },
            { role: 'user', content: `Section: ${f.n.title}\n\n${text.slice(0, inputChars)}` },
          ],
        });
        summaries.set(f.id, textOfChat(r).trim());
        await ctx.progress(++done, flat.length);
      });
    }
    return flat.map((f): NewItem => {
      const text = ownText(f.n) || f.n.children.map((c) => c.title).join('\n') || f.n.title;
      const summary = summaries.get(f.id) ?? '';
      return {
        kind: 'node', text, tokens: countTokens(text), embedText: `${f.n.title}\n${summary || text.slice(0, 2000)}`,
        meta: { page: f.n.pageStart, page_start: f.n.pageStart, page_end: f.n.pageEnd, level: f.depth, title: f.n.title, headings: f.path, ...(numbered ? { node_id: f.id } : {}) },
        extras: { node_id: f.id, parent_node_id: f.parent, title: f.n.title, summary, path: f.path },
      };
    });
  },
};
