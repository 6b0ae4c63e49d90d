// Context handlers in SQL (sql/0044_ai_context_handlers.sql), as the caller:
// each stored retrieval is its owner's.
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';

export function contextHandlerStore(calls: AiCalls) {
  return {
    /** A page of the caller's context handlers, newest first, with the total. */
    list: async (req: Request, limit: number, offset: number) => {
      const items = await calls.call(req,
        `select id, query, request -> 'knowledge_bases' as knowledge_bases, jsonb_array_length(result -> 'chunks') as chunk_count,
                (result ->> 'token_count')::int as token_count, jsonb_array_length(result -> 'errors') as error_count, created_at
           from ai.context_handlers order by created_at desc, id limit $1 offset $2`, [limit, offset]);
      const [count] = await calls.call<{ n: string }>(req, 'select count(*) as n from ai.context_handlers', []);
      return { items, total: Number(count!.n) };
    },
    create: async (req: Request, query: string, request: unknown, result: unknown) =>
      (await calls.call<{ id: string; created_at: string }>(req, 'insert into ai.context_handlers (query, request, result) values ($1, $2, $3) returning id, created_at', [query, request, result]))[0]!,
    get: async (req: Request, id: string) => {
      const [row] = await calls.call<{ id: string; result: Record<string, unknown>; created_at: string }>(req, 'select id, result, created_at from ai.context_handlers where id = $1', [id]);
      if (!row) throw aiErrors.notFound('Context handler');
      return row;
    },
  };
}
