// Images (.png, .jpg, .jpeg, .webp, .gif, .tiff): OCR of the picture, and the
// picture itself kept as an image derivative. An image with no text found
// needs attention (a photo may be meant for a vision model).
import sharp from 'sharp';
import { markdownElements } from './markdown.ts';
import { ocrImage } from './ocr.ts';
import { Unreadable, type Extractor } from './types.ts';

export const image: Extractor = async (bytes, progress, opts) => {
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(bytes, { limitInputPixels: 100_000_000 }).metadata();
  } catch (err) {
    throw new Unreadable(`Not a readable image: ${(err as Error).message}`);
  }
  if (opts.model === 'vision') throw new Unreadable('The vision engine is not available yet');
  const { text } = await ocrImage(bytes).catch((err: Error) => {
    throw new Unreadable(`Not a readable image: ${err.message}`);
  });
  await progress(1, 1);
  return {
    engine: 'ocr', markdown: text, text, pages: [text], elements: text ? markdownElements(text, 1) : [],
    images: [{ page: 1, bytes, contentType: `image/${meta.format === 'jpeg' ? 'jpeg' : meta.format ?? 'png'}` }],
    ...(text ? {} : { attention: 'No text was found in the image' }),
  };
};
