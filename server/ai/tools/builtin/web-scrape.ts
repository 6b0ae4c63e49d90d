// web_scrape: a page's main content as markdown, through the crawl provider
// (Firecrawl's API: POST {CRAWL_API_BASE}/v1/scrape, Bearer CRAWL_API_KEY;
// the page is fetched by the provider, not by us). The page's images (its
// markdown's `![alt](url)`, the first WEB_SCRAPE_MAX_IMAGES) are fetched by
// us through the SSRF guard and described by VISION_MODEL through the model
// router (ledger, keys, 402), VISION_MAX_WORKERS at a time, each call bounded
// by VISION_TIMEOUT; an image that cannot be fetched or described is listed
// with its error.
import { ledgerUser } from '../../actor.ts';
import { Failure } from '../../failures.ts';
import { readCapped } from '../../runtime/net/ssrf.ts';
import { providerCall } from '../../runtime/provider-client.ts';
import type { UsageContext } from '../../usage/ledger.ts';
import type { BuiltinTool, ToolServices } from '../types.ts';

const IMAGE_PROMPT = 'Describe this image from a web page in two or three sentences: what it shows, and any text or numbers it holds. Answer with the description only.';
const IMAGE_TYPES = /^image\/(png|jpe?g|webp|gif)$/;
/** Vision APIs take images up to about 20 MB. */
const IMAGE_MAX_BYTES = 20 * 1024 * 1024;

/** The page's markdown images, each once, in order, as absolute http(s) URLs. */
function markdownImages(markdown: string, pageUrl: string): Array<{ url: string; alt: string }> {
  const seen = new Map<string, string>();
  for (const m of markdown.matchAll(/!\[([^\]]*)\]\(\s*<?([^\s)>]+)>?(?:\s+["'][^"']*["'])?\s*\)/g)) {
    try {
      const u = new URL(m[2]!, pageUrl);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && !seen.has(u.href)) seen.set(u.href, m[1]!.trim());
    } catch {
      // not a URL: skipped
    }
  }
  return [...seen].map(([url, alt]) => ({ url, alt }));
}

async function imageBytes(services: ToolServices, url: string, signal: AbortSignal): Promise<{ bytes: Buffer; type: string }> {
  const res = await services.images.fetch(url, { redirect: 'follow', signal, headers: { accept: 'image/*' } });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (!IMAGE_TYPES.test(type)) throw new Error(`not an image the model reads (${type || 'no content type'})`);
  return { bytes: await readCapped(res, IMAGE_MAX_BYTES), type };
}

async function describeImages(services: ToolServices, markdown: string, pageUrl: string, usage: UsageContext, signal: AbortSignal) {
  const { settings } = services;
  const wanted = markdownImages(markdown, pageUrl).slice(0, await settings.number('WEB_SCRAPE_MAX_IMAGES'));
  if (wanted.length === 0) return [];
  const [model, seconds, workers] = await Promise.all([settings.string('VISION_MODEL'), settings.number('VISION_TIMEOUT'), settings.number('VISION_MAX_WORKERS')]);
  const out: Array<{ url: string; alt: string; description?: string; error?: string }> = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < wanted.length; i = next++) {
      const image = wanted[i]!;
      const bounded = AbortSignal.any([signal, AbortSignal.timeout(seconds * 1000)]);
      try {
        const got = await imageBytes(services, image.url, bounded);
        const answer = await services.images.models.chat({
          model,
          messages: [{ role: 'user', content: [{ type: 'text', text: IMAGE_PROMPT }, { type: 'image_url', image_url: { url: `data:${got.type};base64,${got.bytes.toString('base64')}` } }] }],
          settings: { max_tokens: 300, temperature: 0 }, signal: bounded, context: { ...usage, step: `web_scrape-image-${i + 1}` },
        });
        out[i] = { ...image, description: (answer.content ?? '').trim() };
      } catch (err) {
        out[i] = { ...image, error: (err as Error).name === 'TimeoutError' ? `timed out after ${seconds} s` : (err as Error).message };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, wanted.length) }, worker));
  return out;
}

export const webScrape: BuiltinTool = {
  name: 'web_scrape',
  description: 'Fetch a web page and return its main content as markdown (cut to WEB_SCRAPE_MAX_CHARS), with descriptions of its first images (WEB_SCRAPE_MAX_IMAGES). Needs the CRAWL_API_KEY setting.',
  inputSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri' },
      include_images: { type: 'boolean', default: false },
    },
    required: ['url'],
    additionalProperties: false,
  },
  override: 'parameters',
  run: async ({ args, caller, services, signal }) => {
    const { settings } = services;
    const key = await settings.string('CRAWL_API_KEY');
    if (!key) throw new Failure('web_scrape is not configured: set CRAWL_API_KEY (and CRAWL_API_BASE) in /api/settings');
    if (typeof args.url !== 'string' || !/^https?:\/\//.test(args.url)) throw new Failure('url is required: an http or https URL');
    const base = (await settings.string('CRAWL_API_BASE')) || services.crawlBaseDefault;
    const answer = (await providerCall(`${base.replace(/\/$/, '')}/v1/scrape`, key, { url: args.url, formats: ['markdown'] }, 60_000, signal)) as { success?: boolean; error?: string; data?: { markdown?: string; metadata?: Record<string, unknown> } };
    if (answer?.success === false || typeof answer?.data?.markdown !== 'string') throw new Failure(`the crawl provider could not scrape ${args.url}${answer?.error ? `: ${answer.error}` : ''}`);
    const max = await settings.number('WEB_SCRAPE_MAX_CHARS');
    const markdown = answer.data.markdown;
    const usage = caller.usage ?? { userId: ledgerUser(caller.actor), feature: 'tools' };
    const described = await describeImages(services, markdown, args.url, usage, signal);
    return { url: args.url, title: answer.data.metadata?.title ?? null, markdown: markdown.slice(0, max), truncated: markdown.length > max, ...(described.length > 0 ? { images: described } : {}) };
  },
};
