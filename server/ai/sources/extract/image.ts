// Images (.png, .jpg, .jpeg, .webp, .gif, .tiff): OCR of the picture, and the
// picture itself kept as an image derivative. An image with no text found
// needs attention (a photo may be meant for a vision model).
import sharp from 'sharp';
import { markdownElements, markdownToText } from './markdown.ts';
import { ocrImage } from './ocr.ts';
import { type Extractor } from './types.ts';
import { Failure } from '../../failures.ts';

/** sharp's limitInputPixels for every decode, and the header check before it. */
const MAX_PIXELS = 100_000_000;

export const image: Extractor = async (bytes, progress, opts) => {
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    // The header only (nothing is decoded), so the size check below can say what the file declares.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new Failure(`Not a readable image: ${(err as Error).message}`);
  }
  // Refused from its header, before a pixel is decoded (a small file can declare a huge picture).
  if ((meta.width ?? 0) * (meta.height ?? 0) > MAX_PIXELS) {
    throw new Failure(`The image declares ${meta.width} x ${meta.height} pixels, more than ${MAX_PIXELS / 1_000_000} million`);
  }
  let note: string | undefined;
  if (opts.model === 'vision' && opts.vision) {
    const png = await sharp(bytes, { limitInputPixels: MAX_PIXELS }).rotate().resize({ width: 2048, height: 2048, fit: 'inside', withoutEnlargement: true }).png().toBuffer();
    try {
      const markdown = await opts.vision(png, 1);
      await progress(1, 1);
      const text = markdownToText(markdown);
      return {
        engine: 'vision', markdown, text, pages: [text], elements: markdownElements(markdown, 1), images: [{ page: 1, bytes, contentType: `image/${meta.format === 'jpeg' ? 'jpeg' : meta.format ?? 'png'}` }],
        ...(markdown ? {} : { attention: 'The vision model found no text in the image' }),
      };
    } catch (err) {
      note = `The vision engine could not be used (${(err as Error).message}); the image was read by OCR instead`;
    }
  }
  const { text } = await ocrImage(bytes).catch((err: Error) => {
    throw new Failure(`Not a readable image: ${err.message}`);
  });
  await progress(1, 1);
  return {
    engine: 'ocr', markdown: text, text, pages: [text], elements: text ? markdownElements(text, 1) : [], ...(note ? { note } : {}),
    images: [{ page: 1, bytes, contentType: `image/${meta.format === 'jpeg' ? 'jpeg' : meta.format ?? 'png'}` }],
    ...(text ? {} : { attention: 'No text was found in the image' }),
  };
};
