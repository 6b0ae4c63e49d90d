// Stage 3: a planned statement run as the caller, in one transaction whose
// role and claims are set as PostgREST sets them, so grants and RLS decide.
// One round trip where the statement is the whole request (db/pipeline.ts);
// a real transaction where something must be able to undo it or ask more
// (Prefer: tx=rollback, max-affected, planned counts). Database errors are
// mapped here, once.
import type { Request } from 'express';
import type pg from 'pg';
import { asRole, type RequestContext } from '../../db/as-role.ts';
import { queryAsRole } from '../../db/pipeline.ts';
import { fromPostgresError } from '../errors.ts';
import { restErrors } from './errors.ts';
import type { Page, ReadPlan, Statement } from './plan.ts';
import type { Prefer } from './request.ts';

/** What a function call answers: its body, the rows in it, and the count Prefer asked for. */
export type CallResult = { body: string | null; page_rows: number; total: number | null };
import { contextOf, preferences, profileOf } from './request.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { RestSettings } from './settings.ts';

export type Queries = ReturnType<typeof queries>;

/** The schemas of the database's default search path (sql/0002), which a request in `public` with the default db-extra-search-path runs under as it is. */
const DATABASE_PATH = 'public,extensions';

/**
 * `settings` (settings.ts) adds PostgREST's per-request setup: the search path
 * (the request's schema, then db-extra-search-path) and the db-pre-request
 * function, both run before the statement in the same transaction.
 */
export function queries(pool: pg.Pool, rest?: { cache: SchemaCache; settings: () => RestSettings }) {
  const contextFor = (req: Request): RequestContext => {
    const ctx = contextOf(req);
    if (!rest) return ctx;
    const { extraSearchPath, preRequest } = rest.settings();
    const schemas = [...new Set([profileOf(req, rest.cache), ...extraSearchPath])];
    // The database's own search path (sql/0002: "$user", public, extensions) is left as it is: setting it
    // costs each request a search path Postgres must work out again.
    const searchPath = schemas.join(',') === DATABASE_PATH ? undefined : schemas.map((n) => `"${n}"`).join(', ');
    return { ...ctx, ...(searchPath ? { searchPath } : {}), ...(preRequest ? { preRequest } : {}) };
  };

  /** A transaction as the caller; rolled back at the end when Prefer: tx=rollback. */
  const transaction = async <T>(req: Request, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
    try {
      return await asRole(pool, contextFor(req), fn, { rollback: preferences(req).tx === 'rollback' });
    } catch (err) {
      throw fromPostgresError(err, req.auth!.role);
    }
  };

  /** A request that is one statement: one round trip, unless tx=rollback asks for a transaction. */
  const one = async <R>(req: Request, { sql, values }: Statement): Promise<R[]> => {
    if (preferences(req).tx === 'rollback') return (await transaction(req, (c) => c.query<R & pg.QueryResultRow>(sql, values))).rows;
    try {
      return await queryAsRole<R>(pool, contextFor(req), sql, values);
    } catch (err) {
      throw fromPostgresError(err, req.auth!.role);
    }
  };

  /** A page of rows; with a planned or estimated count, the planner's estimate in the same transaction. */
  const read = async (req: Request, plan: ReadPlan): Promise<Page> => {
    if (!plan.explain) return (await one<Page>(req, plan))[0]!;
    const explain = plan.explain;
    return transaction(req, async (c) => {
      const counted = (await c.query<Page>(plan.sql, plan.values)).rows[0]!;
      if (counted.total === null || counted.total > plan.estimateAbove) {
        const { rows } = await c.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(explain.sql, explain.values);
        counted.total = rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows'];
      }
      return counted;
    });
  };

  /** A write: one round trip, or a transaction when max-affected (handling=strict) must be able to undo it. */
  const write = async (req: Request, statement: Statement): Promise<{ body: string; affected: number; inserted?: number }> => {
    const prefer = preferences(req);
    if (prefer.handling !== 'strict' || prefer.maxAffected === undefined) return (await one<{ body: string; affected: number; inserted?: number }>(req, statement))[0]!;
    const limit = prefer.maxAffected;
    return transaction(req, async (c) => {
      const result = (await c.query<{ body: string; affected: number; inserted?: number }>(statement.sql, statement.values)).rows[0]!;
      if (result.affected > limit) throw restErrors.maxAffected(result.affected);
      return result;
    });
  };

  /**
   * A function call: one round trip, or a transaction when max-affected
   * (handling=strict) must be able to undo what the function did.
   */
  const call = async (req: Request, plan: Statement, prefer: Prefer): Promise<CallResult> => {
    if (prefer.handling !== 'strict' || prefer.maxAffected === undefined) return (await one<CallResult>(req, plan))[0]!;
    const limit = prefer.maxAffected;
    return transaction(req, async (c) => {
      const result = (await c.query<CallResult>(plan.sql, plan.values)).rows[0]!;
      if (result.page_rows > limit) throw restErrors.maxAffected(result.page_rows);
      return result;
    });
  };

  return { one, read, write, call };
}
