// URL imports through the crawl provider when CRAWL_API_KEY is set (the key
// web_scrape uses): Firecrawl's API at the CRAWL_API_BASE setting (else
// CRAWL_API_BASE_DEFAULT). `crawl` starts a crawl (POST /v1/crawl, limit and
// depth from the import) and polls it (GET /v1/crawl/{id}); `scrape` reads
// one page (POST /v1/scrape). Pages come back as markdown.
import { Failure } from '../failures.ts';
import { providerCall } from '../runtime/provider-client.ts';
import { aiErrors } from '../errors.ts';
import type { Settings } from '../settings/accessor.ts';

export type ProviderPage = { url: string; title: string | null; markdown: string };

const POLL_MS = 1000;
const CRAWL_WAIT_MS = 10 * 60_000;

export function crawlProvider(settings: Settings, baseDefault: string) {
  const configured = async () => {
    const key = await settings.string('CRAWL_API_KEY');
    if (!key) return null;
    return { key, base: ((await settings.string('CRAWL_API_BASE')) || baseDefault).replace(/\/$/, '') };
  };
  const failed = (err: unknown) => aiErrors.validation(`The crawl provider failed: ${err instanceof Failure ? err.message : (err as Error).message}`);
  const pageOf = (d: { markdown?: unknown; metadata?: { sourceURL?: unknown; url?: unknown; title?: unknown } }, fallback: string): ProviderPage | null =>
    typeof d.markdown === 'string'
      ? { url: String(d.metadata?.sourceURL ?? d.metadata?.url ?? fallback), title: typeof d.metadata?.title === 'string' ? d.metadata.title : null, markdown: d.markdown }
      : null;

  return {
    configured,
    crawl: async (p: { key: string; base: string }, url: string, limit: number, depth: number): Promise<ProviderPage[]> => {
      const signal = AbortSignal.timeout(CRAWL_WAIT_MS);
      try {
        const started = (await providerCall(`${p.base}/v1/crawl`, p.key, { url, limit, maxDepth: depth, scrapeOptions: { formats: ['markdown'] } }, 60_000, signal)) as { id?: unknown; success?: boolean; error?: string };
        if (typeof started?.id !== 'string') throw new Error(started?.error ?? 'no crawl id in the answer');
        for (;;) {
          const state = (await providerCall(`${p.base}/v1/crawl/${encodeURIComponent(started.id)}`, p.key, undefined, 60_000, signal)) as { status?: string; data?: unknown[]; error?: string };
          if (state?.status === 'completed') return (Array.isArray(state.data) ? state.data : []).flatMap((d) => pageOf(d as never, url) ?? []).slice(0, limit);
          if (state?.status === 'failed' || state?.status === 'cancelled') throw new Error(state.error ?? `the crawl ${state.status}`);
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      } catch (err) {
        throw failed(err);
      }
    },
    scrape: async (p: { key: string; base: string }, url: string): Promise<ProviderPage> => {
      const answer = (await providerCall(`${p.base}/v1/scrape`, p.key, { url, formats: ['markdown'] }, 60_000, AbortSignal.timeout(60_000))) as { success?: boolean; error?: string; data?: { markdown?: unknown; metadata?: Record<string, unknown> } };
      const page = answer?.success === false || !answer?.data ? null : pageOf(answer.data, url);
      if (!page) throw new Error(answer?.error ?? 'no markdown in the answer');
      return page;
    },
  };
}

export type CrawlProvider = ReturnType<typeof crawlProvider>;
