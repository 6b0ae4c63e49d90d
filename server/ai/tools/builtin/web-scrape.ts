// web_scrape: a page's main content as markdown, through the crawl provider (CRAWL_API_KEY, CRAWL_API_BASE).
import type { BuiltinTool } from './index.ts';

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
};
