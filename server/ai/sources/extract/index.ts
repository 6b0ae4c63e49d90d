// The extractor for a source's extension. Formats whose extractor has not
// landed yet fail with a message naming them (see the README's status).
import { docx } from './docx.ts';
import { html } from './html.ts';
import { image } from './image.ts';
import { pdf } from './pdf.ts';
import { markdownText, plainText } from './text.ts';
import { Unreadable, type Extractor } from './types.ts';
import { xlsx } from './xlsx.ts';

const EXTRACTORS: Record<string, Extractor> = {
  txt: plainText, md: markdownText, docx, pdf, xlsx, html, png: image, jpg: image, jpeg: image, webp: image, gif: image, tiff: image,
};

export function extractorFor(extension: string): Extractor {
  return EXTRACTORS[extension] ?? (async () => {
    throw new Unreadable(`Extraction of .${extension} files is not available yet`);
  });
}

export { Stopped, Unreadable, type Extracted, type Progress } from './types.ts';
export { closeOcr } from './ocr.ts';
