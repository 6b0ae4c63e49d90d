// The extractor for a source's extension: one module per format family.
import { docx } from './docx.ts';
import { html } from './html.ts';
import { image } from './image.ts';
import { pdf } from './pdf.ts';
import { pptx } from './pptx.ts';
import { markdownText, plainText } from './text.ts';
import { type Extractor } from './types.ts';
import { xls } from './xls.ts';
import { xlsx } from './xlsx.ts';
import { Failure } from '../../failures.ts';

const EXTRACTORS: Record<string, Extractor> = {
  txt: plainText, md: markdownText, docx, pdf, xlsx, xls, pptx, html, png: image, jpg: image, jpeg: image, webp: image, gif: image, tiff: image,
};

export function extractorFor(extension: string): Extractor {
  return EXTRACTORS[extension] ?? (async () => {
    throw new Failure(`No extractor reads .${extension} files`);
  });
}

export type { Extracted, Progress } from './types.ts';
export { closeOcr } from './ocr.ts';
