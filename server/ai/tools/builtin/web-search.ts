// web_search: search the web through the provider set by SEARCH_API_KEY.
import { Failure } from '../../failures.ts';
import { providerCall } from '../../runtime/provider-client.ts';
import type { BuiltinTool } from '../types.ts';

export const webSearch: BuiltinTool = {
  name: 'web_search',
  description: 'Search the web and return titles, URLs and snippets. Needs the SEARCH_API_KEY setting.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      max_results: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
    },
    required: ['query'],
    additionalProperties: false,
  },
  override: 'parameters',
  run: async ({ args, services, signal }) => {
    const key = await services.settings.string('SEARCH_API_KEY');
    if (!key) throw new Failure('web_search is not configured: set SEARCH_API_KEY in /api/settings');
    if (typeof args.query !== 'string' || !args.query.trim()) throw new Failure('query is required');
    const max = typeof args.max_results === 'number' && args.max_results > 0 ? Math.min(Math.floor(args.max_results), 20) : 5;
    const answer = (await providerCall(`${services.searchBase.replace(/\/$/, '')}/search`, key, { query: args.query, max_results: max }, 30_000, signal)) as { results?: Array<Record<string, unknown>> };
    if (!Array.isArray(answer?.results)) throw new Failure('the search provider answered without results');
    return answer.results.slice(0, max).map((r) => ({ title: r.title ?? null, url: r.url ?? null, content: r.content ?? r.snippet ?? null }));
  },
};
