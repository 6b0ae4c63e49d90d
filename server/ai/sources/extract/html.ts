// Web pages (URL imports): the main content by Readability over linkedom,
// then markdown; the whole body when Readability finds no article.
import { Readability } from '@mozilla/readability';
import { htmlToMarkdown, markdownElements, markdownToText, parseHTML } from './markdown.ts';
import type { Extractor } from './types.ts';

export const html: Extractor = async (bytes, progress) => {
  // Page furniture is never the content: dropped before Readability looks (it keeps it on short pages).
  const { document } = parseHTML(bytes.toString('utf8'));
  for (const el of document.querySelectorAll('nav, header, footer, aside, script, style, noscript, form, iframe')) el.remove();
  const source = document.toString();
  const title = document.querySelector('title')?.textContent?.trim() ?? '';
  let article: { title?: string | null | undefined; content?: string | null | undefined } | null = null;
  try {
    article = new Readability(parseHTML(source).document as unknown as Document).parse();
  } catch {
    article = null;
  }
  const body = article?.content ?? document.body?.innerHTML ?? source;
  const heading = (article?.title || title).trim();
  const markdown = `${heading ? `# ${heading}\n\n` : ''}${htmlToMarkdown(body)}`.trim();
  await progress(1, 1);
  const text = markdownToText(markdown);
  return { engine: 'text', markdown, text, pages: [text], elements: markdownElements(markdown, 1), images: [] };
};
