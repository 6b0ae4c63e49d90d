// web_search: search the web through the provider set by SEARCH_API_KEY.
import type { BuiltinTool } from './index.ts';

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
};
