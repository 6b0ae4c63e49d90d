// The access model's answers for an owned table (owner_id: a user, or null
// for the project): 404 when the caller cannot see the row, 403 when they can
// but may not change it. Policies decide; this only words their outcome.
import type { Request } from 'express';
import type { ApiError } from '../errors.ts';
import type { AiCalls } from './calls.ts';
import { aiErrors } from './errors.ts';

export type OwnedTable = 'ai.agents' | 'ai.orchestrations' | 'ai.tools' | 'ai.workflows' | 'ai.sources' | 'ai.knowledge_bases';

export function ownedRows(calls: AiCalls, table: OwnedTable, plural: string, notFound: () => ApiError) {
  return {
    /** Why a change touched no row: not visible (404) or not the caller's (403). */
    refuse: async (req: Request, id: string): Promise<never> => {
      const seen = await calls.call(req, `select id from ${table} where id = $1`, [id]);
      throw seen.length > 0 ? aiErrors.notYours(plural) : notFound();
    },
    /** The caller may change this row (404 or 403 otherwise). */
    requireOwn: async (req: Request, id: string): Promise<void> => {
      const [row] = await calls.call<{ mine: boolean }>(req, `select ai.owns(owner_id) or auth.role() = 'service_role' as mine from ${table} where id = $1`, [id]);
      if (!row) throw notFound();
      if (!row.mine) throw aiErrors.notYours(plural);
    },
  };
}
