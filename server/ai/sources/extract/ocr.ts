// OCR with tesseract.js, offline: the English model ships in the
// @tesseract.js-data/eng package (no download at run time). One worker per
// process, created on first use and fed one image at a time; closeOcr()
// ends it when the server stops.
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { createWorker, type Worker } from 'tesseract.js';

const require = createRequire(import.meta.url);
const ENGLISH = require('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };
/** Images are scaled so their longer side is at most this many pixels before OCR. */
const MAX_SIDE = 4000;
/** One image's recognition may take this long; then the worker is ended (a new one takes the next image). */
const PAGE_TIMEOUT_MS = 120_000;

let worker: Promise<Worker> | null = null;
let queue: Promise<unknown> = Promise.resolve();

const workerOf = () => (worker ??= createWorker('eng', 1, { langPath: ENGLISH.langPath, gzip: ENGLISH.gzip, cacheMethod: 'none' }));

/**
 * The text of an image (any format sharp reads), recognised in turn with
 * other callers. `rendered`: a PNG we rendered ourselves (a PDF page), read
 * as it is without being normalised first.
 */
export function ocrImage(image: Buffer, opts: { rendered?: boolean } = {}): Promise<{ text: string; confidence: number }> {
  const run = queue.then(async () => {
    const png = opts.rendered ? image : await sharp(image, { limitInputPixels: 100_000_000 }).rotate()
      .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true }).grayscale().png().toBuffer();
    const current = workerOf();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`OCR of one image took longer than ${PAGE_TIMEOUT_MS / 1000} s`)), PAGE_TIMEOUT_MS);
    });
    try {
      const { data } = await Promise.race([(await current).recognize(png), timeout]);
      return { text: data.text.replace(/[ \t]+\n/g, '\n').trim(), confidence: data.confidence };
    } catch (err) {
      if (worker === current) {
        worker = null;
        void (await current).terminate().catch(() => undefined);
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

export async function closeOcr(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await (await w).terminate().catch(() => undefined);
}
