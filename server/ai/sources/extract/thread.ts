// The extraction thread (runtime/extraction/pool.ts runs it with a heap and
// time limits): the only module that loads the parsers. One file at a time:
// its extractor reads it, reporting progress after each page and asking the
// parent for vision transcriptions; the result goes back with its image
// bytes transferred, not copied.
import { serveIsolated } from '../../runtime/extraction/serve.ts';
import { extractorFor } from './index.ts';
import { Stopped } from '../../failures.ts';

export type ExtractionInput = { extension: string; bytes: Uint8Array; model: string; vision: boolean };

serveIsolated(async (input, call) => {
  const { extension, bytes, model, vision } = input as ExtractionInput;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const result = await extractorFor(extension)(buffer, async (done, total) => {
    if ((await call('progress', done, total)) === false) throw new Stopped();
  }, {
    model,
    ...(vision ? { vision: async (image: Buffer, page: number) => String(await call('vision', new Uint8Array(image), page)) } : {}),
  });
  const images = result.images.map((img) => ({ ...img, bytes: new Uint8Array(img.bytes) }));
  return { value: { ...result, images }, transfer: images.map((img) => img.bytes.buffer as ArrayBuffer) };
});
