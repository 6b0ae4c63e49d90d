// HTML to markdown (tables kept, as GitHub writes them) and markdown to
// plain text and elements: the shared last step of the DOCX, HTML and text
// extractors.
import type TurndownService from 'turndown';
import { lazy } from '../../runtime/lazy.ts';
import type { Element } from './types.ts';

// Loaded on first use: the API process needs them only for a hosted engine's answer.
const linkedom = lazy<typeof import('linkedom')>('linkedom');
const parseHTML = (html: string) => linkedom().parseHTML(html);
let converter: TurndownService | undefined;
const turndownOf = (): TurndownService => {
  if (!converter) {
    const Turndown = lazy<typeof TurndownService>('turndown')();
    converter = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    converter.use(lazy<{ gfm: TurndownService.Plugin }>('turndown-plugin-gfm')().gfm);
  }
  return converter;
};

/**
 * HTML to markdown. Tables become GitHub tables: their first row is made the
 * header (gfm needs one) and paragraphs inside cells are joined by <br>.
 */
export function htmlToMarkdown(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const table of document.querySelectorAll('table')) {
    for (const cell of table.querySelectorAll('td, th')) {
      const paragraphs = [...cell.querySelectorAll('p')];
      if (paragraphs.length > 0) cell.innerHTML = paragraphs.map((p) => p.innerHTML).join('<br>');
    }
    const first = table.querySelector('tr');
    if (first && !first.querySelector('th')) {
      for (const td of [...first.querySelectorAll('td')]) {
        const th = document.createElement('th');
        th.innerHTML = td.innerHTML;
        td.replaceWith(th);
      }
    }
  }
  return turndownOf().turndown(document.body.innerHTML).replace(/\n{3,}/g, '\n\n').trim();
}

/** Markdown without its marks: what a reader (or BM25) should see. */
export function markdownToText(md: string): string {
  return md
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/^\s*[-*+]\s+/gm, '')
    .replace(/^\|?\s*:?-{3,}.*$/gm, '')
    .replace(/\|/g, ' ')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|\*|_|`)/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The blocks of markdown as elements of one page: headings (with level), tables, lists, paragraphs. */
export function markdownElements(md: string, page: number): Element[] {
  return md.split(/\n{2,}/).map((block) => block.trim()).filter(Boolean).map((block): Element => {
    const heading = /^(#{1,6})\s+(.*)$/.exec(block);
    if (heading && !block.includes('\n')) return { page, type: 'heading', level: heading[1]!.length, text: heading[2]! };
    if (/^\|.*\|$/m.test(block) && /^\|?\s*:?-{3,}/m.test(block)) return { page, type: 'table', text: block };
    if (/^\s*([-*+]|\d+[.)])\s+/.test(block)) return { page, type: 'list', text: block };
    if (/^!\[/.test(block)) return { page, type: 'figure', text: block };
    return { page, type: 'paragraph', text: block };
  });
}

export { parseHTML };
