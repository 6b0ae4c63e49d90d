// POST /api/sources/import-url: pages fetched by our own fetcher through the
// SSRF guard (HTTP_ALLOW_PRIVATE_NETWORKS applies; every redirect hop is
// checked), bounded by URL_IMPORT_MAX_PAGES (and the request's max_pages).
//   urls     each URL given
//   sitemap  the <loc> pages of the sitemap given (a sitemap index is followed one level)
//   crawl    from the URLs given, same-origin links breadth first, to URL_IMPORT_CRAWL_MAX_DEPTH
// A page's type decides its extension (HTML, PDF, text, markdown, Office
// files, images); pages of other types, and pages that fail, are reported,
// not imported. With CRAWL_API_KEY set, `crawl` runs on the crawl provider
// and `sitemap` pages are read through it (crawl-provider.ts); their pages
// arrive as markdown. `urls` always uses our own fetcher. An HTML page keeps
// up to URL_IMPORT_MAX_IMAGES_PER_PAGE of its images (each at most
// URL_IMPORT_IMAGE_MAX_SIZE_MB, fetched through the same guard); they become
// the source's image derivatives.
import { lazy } from '../runtime/lazy.ts';

const linkedom = lazy<typeof import('linkedom')>('linkedom');
const parseHTML = (html: string) => linkedom().parseHTML(html);
import type { Settings } from '../settings/accessor.ts';
import type { CrawlProvider, ProviderPage } from './crawl-provider.ts';
import { aiErrors } from '../errors.ts';
import { z } from 'zod';
import { readCapped } from '../runtime/net/ssrf.ts';

export type PageImage = { url: string; bytes: Buffer; contentType: string };
export type FetchedPage = { url: string; bytes: Buffer; extension: string; name: string; images: PageImage[] };
export type ImportResult = { pages: FetchedPage[]; failed: Array<{ url: string; reason: string }> };

const TIMEOUT_MS = 30_000;
const TYPES: Array<[RegExp, string]> = [
  [/^text\/html|^application\/xhtml\+xml/, 'html'], [/^application\/pdf/, 'pdf'], [/^text\/markdown/, 'md'], [/^text\/plain/, 'txt'],
  [/wordprocessingml/, 'docx'], [/spreadsheetml/, 'xlsx'], [/presentationml/, 'pptx'], [/^application\/vnd\.ms-excel/, 'xls'],
  [/^image\/png/, 'png'], [/^image\/jpe?g/, 'jpg'], [/^image\/webp/, 'webp'], [/^image\/gif/, 'gif'], [/^image\/tiff/, 'tiff'],
];

function httpUrl(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const urlsRule = 'urls must be a non-empty list of http or https URLs';
const notHttp = (input: unknown) => `Not an http or https URL: ${String(input)}`;
const maxPagesRule = 'max_pages must be an integer of 1 or more';
/** The body of POST /api/sources/import-url. */
export const ImportUrlBody = z.object({
  mode: z.enum(['urls', 'crawl', 'sitemap'], { error: 'mode must be urls, crawl or sitemap' }),
  urls: z.array(z.string({ error: (issue) => notHttp(issue.input) }).refine((u) => httpUrl(u) !== null, { error: (issue) => notHttp(issue.input) }), { error: urlsRule }).min(1, urlsRule),
  max_pages: z.number({ error: maxPagesRule }).int(maxPagesRule).min(1, maxPagesRule).optional(),
  metadata: z.record(z.string(), z.unknown(), { error: 'metadata must be an object' }).optional(),
});
export type ImportUrlRequest = z.infer<typeof ImportUrlBody>;

export function urlImporter(opts: { settings: Settings; fetch: typeof fetch; maxBytes: number; provider: CrawlProvider }) {
  const get = async (url: string, maxBytes = opts.maxBytes): Promise<{ bytes: Buffer; type: string; finalUrl: string }> => {
    const res = await opts.fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(TIMEOUT_MS), headers: { 'user-agent': 'pgbase-source-import/1.0' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return { bytes: await readCapped(res, maxBytes), type: (res.headers.get('content-type') ?? '').toLowerCase(), finalUrl: res.url || url };
  };

  const pageOf = (url: string, got: { bytes: Buffer; type: string }): FetchedPage | string => {
    const extension = TYPES.find(([re]) => re.test(got.type))?.[1] ?? null;
    if (!extension) return `unsupported content type ${got.type || '(none)'}`;
    let name = url;
    if (extension === 'html') {
      const title = /<title[^>]*>([^<]*)<\/title>/i.exec(got.bytes.toString('utf8', 0, Math.min(got.bytes.length, 65_536)))?.[1]?.trim();
      if (title) name = title;
    }
    return { url, bytes: got.bytes, extension, name: name.slice(0, 500), images: [] };
  };

  /** A page's images, in order, each once: those that fail or are too large are skipped. */
  const imagesOf = async (html: Buffer, pageUrl: string): Promise<PageImage[]> => {
    const max = await opts.settings.number('URL_IMPORT_MAX_IMAGES_PER_PAGE');
    if (max === 0) return [];
    const limit = Math.round((await opts.settings.number('URL_IMPORT_IMAGE_MAX_SIZE_MB')) * 1024 * 1024);
    const { document } = parseHTML(html.toString('utf8'));
    const urls = [...new Set([...document.querySelectorAll('img[src]')].map((img) => {
      try {
        const u = new URL(img.getAttribute('src') ?? '', pageUrl);
        return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
      } catch {
        return null;
      }
    }).filter((u): u is string => !!u))];
    const images: PageImage[] = [];
    for (const url of urls) {
      if (images.length >= max) break;
      try {
        const got = await get(url, limit);
        if (got.type.startsWith('image/')) images.push({ url, bytes: got.bytes, contentType: got.type.split(';')[0]! });
      } catch {
        // skipped: unreachable, refused by the guard, or too large
      }
    }
    return images;
  };

  return {
    run: async (body: ImportUrlRequest): Promise<ImportResult> => {
      const mode = body.mode;
      const urls = body.urls.map((u) => httpUrl(u)!);
      const ceiling = await opts.settings.number('URL_IMPORT_MAX_PAGES');
      const max = Math.min(ceiling, body.max_pages ?? ceiling);
      const result: ImportResult = { pages: [], failed: [] };
      const take = async (url: string): Promise<Buffer | null> => {
        try {
          const got = await get(url);
          const page = pageOf(url, got);
          if (typeof page === 'string') result.failed.push({ url, reason: page });
          else {
            if (page.extension === 'html') page.images = await imagesOf(got.bytes, got.finalUrl);
            result.pages.push(page);
          }
          return got.type.startsWith('text/html') ? got.bytes : null;
        } catch (err) {
          // fetch says only "fetch failed": the reason (a refused private address, say) is its cause.
          const cause = (err as Error).cause as Error | undefined;
          result.failed.push({ url, reason: cause?.message ? `${(err as Error).message}: ${cause.message}` : (err as Error).message });
          return null;
        }
      };

      const provider = mode === 'urls' ? null : await opts.provider.configured();
      const fromProvider = (page: ProviderPage): FetchedPage => ({ url: page.url, bytes: Buffer.from(page.markdown, 'utf8'), extension: 'md', name: (page.title || page.url).slice(0, 500), images: [] });
      if (mode === 'urls') {
        for (const url of (urls as string[]).slice(0, max)) await take(url);
        return result;
      }
      if (mode === 'sitemap') {
        const locs = async (url: string) => {
          const xml = (await get(url)).bytes.toString('utf8');
          return { index: /<sitemapindex/i.test(xml), locs: [...xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)].map((m) => httpUrl(m[1]!.replace(/&amp;/g, '&'))).filter((u): u is string => !!u) };
        };
        let found: string[] = [];
        try {
          for (const url of urls as string[]) {
            const first = await locs(url);
            if (first.index) for (const child of first.locs.slice(0, 20)) found.push(...(await locs(child)).locs);
            else found.push(...first.locs);
          }
        } catch (err) {
          throw aiErrors.validation(`The sitemap could not be read: ${(err as Error).message}`);
        }
        found = [...new Set(found)];
        if (found.length === 0) throw aiErrors.validation('The sitemap lists no pages (<loc> entries)');
        for (const url of found.slice(0, max)) {
          if (!provider) await take(url);
          else await opts.provider.scrape(provider, url).then((page) => void result.pages.push(fromProvider(page)), (err: Error) => void result.failed.push({ url, reason: err.message }));
        }
        return result;
      }
      // crawl: breadth first, same origin as the page a link was found on, each URL once.
      const depthMax = await opts.settings.number('URL_IMPORT_CRAWL_MAX_DEPTH');
      if (provider) {
        for (const url of urls as string[]) {
          if (result.pages.length >= max) break;
          for (const page of await opts.provider.crawl(provider, url, max - result.pages.length, depthMax)) result.pages.push(fromProvider(page));
        }
        return result;
      }
      const seen = new Set<string>();
      let frontier = (urls as string[]).map((u) => new URL(u).href.replace(/#.*$/, ''));
      for (let depth = 0; depth <= depthMax && frontier.length > 0 && result.pages.length < max; depth++) {
        const next: string[] = [];
        for (const url of frontier) {
          if (seen.has(url) || result.pages.length >= max) continue;
          seen.add(url);
          const html = await take(url);
          if (!html || depth === depthMax) continue;
          const { document } = parseHTML(html.toString('utf8'));
          for (const a of document.querySelectorAll('a[href]')) {
            try {
              const link = new URL(a.getAttribute('href') ?? '', url);
              link.hash = '';
              if (link.origin === new URL(url).origin && (link.protocol === 'http:' || link.protocol === 'https:') && !seen.has(link.href)) next.push(link.href);
            } catch {
              // not a URL: skipped
            }
          }
        }
        frontier = [...new Set(next)];
      }
      return result;
    },
  };
}
