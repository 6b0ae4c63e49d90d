// web_search and web_scrape through their providers. Search speaks Tavily's
// API (POST {SEARCH_API_BASE}/search, Bearer SEARCH_API_KEY); scraping speaks
// Firecrawl's (POST {CRAWL_API_BASE}/v1/scrape, Bearer CRAWL_API_KEY), the
// two that Sim Studio and Dify users already hold keys for. Base URLs are
// configuration, so a compatible self-hosted service (or a test's) works.
// Provider hosts are the operator's choice, so these calls skip the SSRF
// guard; the page to scrape is fetched by the provider, not by us.
import type { Settings } from '../../settings/accessor.ts';

export class WebToolError extends Error {}

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

export function webTools(settings: Settings, searchBase: string, crawlBaseDefault: string) {
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
    scrape: async (args: Record<string, unknown>, signal: AbortSignal) => {
      const key = await settings.string('CRAWL_API_KEY');
      if (!key) throw new WebToolError('web_scrape is not configured: set CRAWL_API_KEY (and CRAWL_API_BASE) in /api/settings');
      if (typeof args.url !== 'string' || !/^https?:\/\//.test(args.url)) throw new WebToolError('url is required: an http or https URL');
      const base = (await settings.string('CRAWL_API_BASE')) || crawlBaseDefault;
      const answer = (await providerCall(`${base.replace(/\/$/, '')}/v1/scrape`, key, { url: args.url, formats: ['markdown'] }, 60_000, signal)) as { success?: boolean; error?: string; data?: { markdown?: string; metadata?: Record<string, unknown> } };
      if (answer?.success === false || typeof answer?.data?.markdown !== 'string') throw new WebToolError(`the crawl provider could not scrape ${args.url}${answer?.error ? `: ${answer.error}` : ''}`);
      const max = await settings.number('WEB_SCRAPE_MAX_CHARS');
      const markdown = answer.data.markdown;
      return { url: args.url, title: answer.data.metadata?.title ?? null, markdown: markdown.slice(0, max), truncated: markdown.length > max };
    },
  };
}
