// The vision engine: a page or image transcribed by VISION_MODEL through the
// model router (so the usage ledger, provider keys and 402 apply), each call
// bounded by VISION_TIMEOUT seconds, at most VISION_MAX_WORKERS calls at once
// in this process. Used when a source's extraction_model is `vision`; when
// it cannot be used (no key for its provider, a failing call) the fallback
// chain takes over (the text layer, then OCR) and the source says so.
import type { ModelRouter } from '../../providers/router.ts';
import type { Settings } from '../../settings/accessor.ts';

const PROMPT = 'Transcribe this page into GitHub-flavoured markdown: every word in reading order, headings as headings, tables as tables, '
  + 'lists as lists. Describe figures in one sentence in italics. Answer with the markdown only.';

export type Vision = (image: Buffer, page: number) => Promise<string>;

export function visionEngine(opts: { models: ModelRouter; settings: Settings }) {
  let running = 0;
  const waiting: Array<() => void> = [];
  const slot = async (max: number) => {
    while (running >= max) await new Promise<void>((r) => waiting.push(r));
    running++;
    return () => {
      running--;
      waiting.shift()?.();
    };
  };
  /** A transcriber for one source: its calls are the owner's, tagged with the source and page. */
  return (source: { id: string; owner_id: string | null }): Vision => async (image, page) => {
    const [model, seconds, max] = await Promise.all([opts.settings.string('VISION_MODEL'), opts.settings.number('VISION_TIMEOUT'), opts.settings.number('VISION_MAX_WORKERS')]);
    const release = await slot(max);
    try {
      const result = await opts.models.chat({
        model,
        messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }, { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } }] }],
        settings: { max_tokens: 4000, temperature: 0 },
        signal: AbortSignal.timeout(seconds * 1000),
        context: { userId: source.owner_id, feature: 'extraction', runId: source.id, step: `page-${page}` },
      });
      return (result.content ?? '').trim();
    } finally {
      release();
    }
  };
}
