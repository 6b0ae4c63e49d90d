// web_search and web_scrape through their providers. Search speaks Tavily's
// API (POST {SEARCH_API_BASE}/search, Bearer SEARCH_API_KEY); scraping speaks
// Firecrawl's (POST {CRAWL_API_BASE}/v1/scrape, Bearer CRAWL_API_KEY), the
// two that Sim Studio and Dify users already hold keys for. Base URLs are
// configuration, so a compatible self-hosted service (or a test's) works.
// Provider hosts are the operator's choice, so these calls skip the SSRF
// guard; the page to scrape is fetched by the provider, not by us.
// A scraped page's images (its markdown's `![alt](url)`, the first
// WEB_SCRAPE_MAX_IMAGES) are fetched by us through the SSRF guard and
// described by VISION_MODEL through the model router (ledger, keys, 402),
// VISION_MAX_WORKERS at a time, each call bounded by VISION_TIMEOUT; an image
// that cannot be fetched or described is listed with its error.
import type { ModelRouter } from '../../providers/router.ts';
import type { Settings } from '../../settings/accessor.ts';
import type { UsageContext } from '../../usage/ledger.ts';
import { readCapped } from '../../workflows/net/ssrf.ts';

export class WebToolError extends Error {}

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

export type ImageServices = { models: ModelRouter; fetch: typeof fetch };

/** A JSON call to a provider with its key (POST with a body, GET without); its failures worded for the user. */
export const providerCall = async (url: string, key: string, body: unknown, timeoutMs: number, signal: AbortSignal): Promise<unknown> => {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
  }).catch((err: Error) => {
    throw new WebToolError(`the provider at ${new URL(url).origin} could not be reached: ${err.name === 'TimeoutError' ? 'timed out' : err.message}`);
  });
  const text = await res.text();
  if (!res.ok) throw new WebToolError(`the provider answered HTTP ${res.status}${res.status === 401 || res.status === 403 ? ' (check the key in /api/settings)' : ''}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WebToolError('the provider answered something other than JSON');
  }
};

export function webTools(settings: Settings, searchBase: string, crawlBaseDefault: string, images: ImageServices) {
  const imageBytes = async (url: string, signal: AbortSignal): Promise<{ bytes: Buffer; type: string }> => {
    const res = await images.fetch(url, { redirect: 'follow', signal, headers: { accept: 'image/*' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!IMAGE_TYPES.test(type)) throw new Error(`not an image the model reads (${type || 'no content type'})`);
    return { bytes: await readCapped(res, IMAGE_MAX_BYTES), type };
  };
  const describeImages = async (markdown: string, pageUrl: string, usage: UsageContext, signal: AbortSignal) => {
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
          const got = await imageBytes(image.url, bounded);
          const answer = await images.models.chat({
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
  };
  return {
    search: async (args: Record<string, unknown>, signal: AbortSignal) => {
      const key = await settings.string('SEARCH_API_KEY');
      if (!key) throw new WebToolError('web_search is not configured: set SEARCH_API_KEY in /api/settings');
      if (typeof args.query !== 'string' || !args.query.trim()) throw new WebToolError('query is required');
      const max = typeof args.max_results === 'number' && args.max_results > 0 ? Math.min(Math.floor(args.max_results), 20) : 5;
      const answer = (await providerCall(`${searchBase.replace(/\/$/, '')}/search`, key, { query: args.query, max_results: max }, 30_000, signal)) as { results?: Array<Record<string, unknown>> };
      if (!Array.isArray(answer?.results)) throw new WebToolError('the search provider answered without results');
      return answer.results.slice(0, max).map((r) => ({ title: r.title ?? null, url: r.url ?? null, content: r.content ?? r.snippet ?? null }));
    },
    scrape: async (args: Record<string, unknown>, usage: UsageContext, signal: AbortSignal) => {
      const key = await settings.string('CRAWL_API_KEY');
      if (!key) throw new WebToolError('web_scrape is not configured: set CRAWL_API_KEY (and CRAWL_API_BASE) in /api/settings');
      if (typeof args.url !== 'string' || !/^https?:\/\//.test(args.url)) throw new WebToolError('url is required: an http or https URL');
      const base = (await settings.string('CRAWL_API_BASE')) || crawlBaseDefault;
      const answer = (await providerCall(`${base.replace(/\/$/, '')}/v1/scrape`, key, { url: args.url, formats: ['markdown'] }, 60_000, signal)) as { success?: boolean; error?: string; data?: { markdown?: string; metadata?: Record<string, unknown> } };
      if (answer?.success === false || typeof answer?.data?.markdown !== 'string') throw new WebToolError(`the crawl provider could not scrape ${args.url}${answer?.error ? `: ${answer.error}` : ''}`);
      const max = await settings.number('WEB_SCRAPE_MAX_CHARS');
      const markdown = answer.data.markdown;
      const described = await describeImages(markdown, args.url, usage, signal);
      return { url: args.url, title: answer.data.metadata?.title ?? null, markdown: markdown.slice(0, max), truncated: markdown.length > max, ...(described.length > 0 ? { images: described } : {}) };
    },
  };
}
