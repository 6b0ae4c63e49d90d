// .pdf: the text layer page by page (unpdf, PDF.js underneath), progress
// after every page, so a cancel lands between pages. A PDF whose pages carry
// no text at all (a scan) needs attention: OCR of PDF pages arrives later.
import { getDocumentProxy } from 'unpdf';
import { markdownElements } from './markdown.ts';
import { Unreadable, type Extractor } from './types.ts';

const MAX_PAGES = 5000;

type TextItem = { str?: string; hasEOL?: boolean };

export const pdf: Extractor = async (bytes, progress) => {
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    doc = await getDocumentProxy(new Uint8Array(bytes));
  } catch (err) {
    throw new Unreadable(`Not a readable PDF: ${(err as Error).message}`);
  }
  try {
    const total = doc.numPages;
    if (total > MAX_PAGES) throw new Unreadable(`The PDF has ${total} pages, more than ${MAX_PAGES}`);
    const pages: string[] = [];
    for (let n = 1; n <= total; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const text = (content.items as TextItem[]).map((item) => `${item.str ?? ''}${item.hasEOL ? '\n' : ''}`).join('')
        .replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
      pages.push(text);
      page.cleanup();
      await progress(n, total);
    }
    const markdown = pages.filter(Boolean).join('\n\n');
    const empty = pages.every((p) => p === '');
    return {
      engine: 'text', markdown, text: markdown, pages,
      elements: pages.flatMap((p, i) => markdownElements(p, i + 1)),
      images: [],
      ...(empty ? { attention: `None of the ${total} pages has a text layer (a scanned document?); OCR of PDF pages is not available yet` } : {}),
    };
  } finally {
    await doc.loadingTask.destroy().catch(() => undefined);
  }
};
