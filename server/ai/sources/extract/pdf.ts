// .pdf: page by page, progress after every page so a cancel lands between
// pages. The text layer is read with unpdf (PDF.js); each page is rendered
// (PDF.js on @napi-rs/canvas) as an image derivative, and a page with no text
// layer is read by OCR from that image (extraction_model `auto`; `ocr` reads
// every page by OCR, `text` never does; `vision` transcribes every rendered
// page with the vision model, falling back to the text layer and OCR when it
// cannot be used). A PDF where no page yields text needs attention.
import { getDocumentProxy, renderPageAsImage } from 'unpdf';
import { markdownElements } from './markdown.ts';
import { ocrImage } from './ocr.ts';
import { type Element, type Extractor } from './types.ts';
import { Failure } from '../../failures.ts';

const MAX_PAGES = 5000;
/** Pages rendered as images (and so available to OCR); later pages keep their text layer only. */
const MAX_RENDERED_PAGES = 500;
const RENDER_SCALE = 2;
/** A rendered page's longer side, at most: bounds the memory one page takes (a poster-sized page is drawn smaller). */
const MAX_RENDER_SIDE = 3000;

type TextItem = { str?: string; hasEOL?: boolean; transform?: number[]; width?: number; height?: number };

/**
 * The text layer's lines with their boxes: [left, top, right, bottom] in PDF
 * points from the page's top-left corner, as citations need them.
 */
function linesOf(items: TextItem[], pageHeight: number, page: number): Element[] {
  const lines: Element[] = [];
  let text = '';
  let box: [number, number, number, number] | null = null;
  const flush = () => {
    if (text.trim() && box) lines.push({ page, type: 'paragraph', text: text.trim(), bbox: box.map((v) => Math.round(v * 10) / 10) as [number, number, number, number] });
    text = '';
    box = null;
  };
  for (const item of items) {
    text += item.str ?? '';
    const [, , , , x = 0, y = 0] = item.transform ?? [];
    const w = item.width ?? 0;
    const h = item.height ?? 0;
    if ((item.str ?? '').trim()) {
      const b: [number, number, number, number] = [x, pageHeight - y - h, x + w, pageHeight - y];
      box = box ? [Math.min(box[0], b[0]), Math.min(box[1], b[1]), Math.max(box[2], b[2]), Math.max(box[3], b[3])] : b;
    }
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

export const pdf: Extractor = async (bytes, progress, opts) => {
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    doc = await getDocumentProxy(new Uint8Array(bytes));
  } catch (err) {
    throw new Failure(`Not a readable PDF: ${(err as Error).message}`);
  }
  try {
    const total = doc.numPages;
    if (total > MAX_PAGES) throw new Failure(`The PDF has ${total} pages, more than ${MAX_PAGES}`);
    const pages: string[] = [];
    const images: Array<{ page: number; bytes: Buffer; contentType: string }> = [];
    let ocrPages = 0;
    let visionPages = 0;
    let visionFailure: string | null = null;
    const ocrFailures: string[] = [];
    const elements: Element[] = [];
    const sizes: Array<[number, number]> = [];
    for (let n = 1; n <= total; n++) {
      const page = await doc.getPage(n);
      const { width, height } = page.getViewport({ scale: 1 });
      sizes.push([Math.round(width * 100) / 100, Math.round(height * 100) / 100]);
      const scale = Math.min(RENDER_SCALE, MAX_RENDER_SIDE / Math.max(width, height, 1));
      const content = await page.getTextContent();
      let text = (content.items as TextItem[]).map((item) => `${item.str ?? ''}${item.hasEOL ? '\n' : ''}`).join('')
        .replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
      const textLayer = text;
      const lines = linesOf(content.items as TextItem[], height, n);
      page.cleanup();
      if (n <= MAX_RENDERED_PAGES) {
        const png = Buffer.from(await renderPageAsImage(doc, n, { canvasImport: () => import('@napi-rs/canvas'), scale }));
        images.push({ page: n, bytes: png, contentType: 'image/png' });
        let done = false;
        if (opts.model === 'vision' && opts.vision && visionFailure === null) {
          try {
            text = await opts.vision(png, n);
            visionPages++;
            done = true;
          } catch (err) {
            visionFailure = (err as Error).message;
          }
        }
        if (!done && (opts.model === 'ocr' || (opts.model !== 'text' && text === ''))) {
          // A page OCR cannot finish in time is left without text, and the source says so.
          try {
            text = (await ocrImage(png, { rendered: true })).text;
            ocrPages++;
          } catch (err) {
            ocrFailures.push(`page ${n}: ${(err as Error).message}`);
          }
        }
      }
      pages.push(text);
      // The text layer's lines carry their boxes; text read by OCR or vision is kept as blocks of its page.
      elements.push(...(text === textLayer ? lines : markdownElements(text, n)));
      await progress(n, total);
    }
    const markdown = pages.filter(Boolean).join('\n\n');
    const empty = pages.every((p) => p === '');
    return {
      engine: visionPages > 0 ? (visionPages === total ? 'vision' : 'vision+ocr') : ocrPages === 0 ? 'text' : ocrPages === total ? 'ocr' : 'text+ocr', markdown, text: markdown, pages,
      ...(visionFailure || ocrFailures.length > 0 ? {
        note: [
          ...(visionFailure ? [`The vision engine could not be used (${visionFailure}); pages were read from their text layer and by OCR instead`] : []),
          ...(ocrFailures.length > 0 ? [`OCR failed on ${ocrFailures.join('; ')}`] : []),
        ].join('. '),
      } : {}),
      elements,
      images,
      page_sizes: sizes,
      ...(empty ? { attention: opts.model === 'text'
        ? `None of the ${total} pages has a text layer (a scanned document?); re-extract with extraction_model auto or ocr`
        : `None of the ${total} pages has a text layer, and OCR found no text in them` } : {}),
    };
  } finally {
    await doc.loadingTask.destroy().catch(() => undefined);
  }
};
