// The one funnel from the AI surface to SQL as the caller: their role and
// claims set for the transaction (db/pipeline.ts, db/as-role.ts), so ai.*
// policies and grants decide. Errors SQL raises with auth.raise_error (or
// PTnnn with a JSON detail) keep their status, code and details.
import type { Request } from 'express';
import type pg from 'pg';
import { asRole, type RequestContext } from '../../db/as-role.ts';
import { queryAsRole } from '../../db/pipeline.ts';
import { apiError, fromPostgresError, type ApiError } from '../errors.ts';
import { aiErrors } from './errors.ts';
import { requestDeparture } from '../request-departure.ts';
import { PROJECT_CALLER } from './actor.ts';
import { activeTraceparent } from '../telemetry/spans.ts';


/** The request's caller, for work that outlives the request (a paused run, a workflow block). */
export function contextOf(req: Request): RequestContext {
  return { role: req.auth!.role, claims: req.auth!.claims, method: req.method, path: req.path };
}

/** A database error as the AI surface words it. */
export function aiError(err: unknown, role: string): ApiError {
  const e = err as { code?: unknown; message?: unknown; hint?: unknown; detail?: unknown };
  if (typeof e?.code === 'string' && /^PT[1-5]\d\d$/.test(e.code)) {
    let details: unknown;
    try {
      details = typeof e.detail === 'string' ? { details: JSON.parse(e.detail) } : undefined;
    } catch {
      details = undefined;
    }
    return apiError(Number(e.code.slice(2)), typeof e.hint === 'string' && e.hint ? e.hint : undefined, String(e.message), details ? { details, cause: err } : { cause: err });
  }
  // Project configuration is written by the service role only: a user is told so, not shown a grant error.
  if (e?.code === '42501' && /permission denied for (function|table|column)/.test(String(e.message))) return aiErrors.serviceRoleOnly();
  return fromPostgresError(err, role);
}

export type AiCalls = ReturnType<typeof aiCalls>;

/**
 * The caller's context, carrying the active span's `traceparent` in
 * request.headers while tracing is on: a run, execution or source made by
 * the statement keeps it (sql/0071), so the worker that carries it on later
 * joins the same trace.
 */
function traced(ctx: RequestContext): RequestContext {
  const traceparent = activeTraceparent();
  return traceparent ? { ...ctx, headers: { ...ctx.headers, traceparent } } : ctx;
}

export function aiCalls(pool: pg.Pool) {
  const run = async <R>(ctx: RequestContext, sql: string, values: unknown[]): Promise<R[]> => {
    try {
      return await queryAsRole<R>(pool, traced(ctx), sql, values);
    } catch (err) {
      throw aiError(err, ctx.role);
    }
  };
  return {
    /** One statement as the request's caller; cancelled if the client leaves first. */
    call: <R>(req: Request, sql: string, values: unknown[]) => run<R>({ ...contextOf(req), departure: requestDeparture(req) }, sql, values),
    /** One statement as a caller captured earlier (contextOf). */
    as: <R>(ctx: RequestContext, sql: string, values: unknown[]) => run<R>(ctx, sql, values),
    /** One statement as the service role: the server's own bookkeeping. */
    asService: <R>(sql: string, values: unknown[]) => run<R>(PROJECT_CALLER, sql, values),
    /** Statements as a caller in a transaction that is always rolled back: a dry run, or a read that must change nothing. */
    rolledBack: async <T>(ctx: RequestContext, fn: (c: pg.PoolClient) => Promise<T>, opts: { discard?: boolean } = {}): Promise<T> => {
      try {
        return await asRole(pool, traced(ctx), fn, { rollback: true, ...opts });
      } catch (err) {
        throw aiError(err, ctx.role);
      }
    },
    /** Several statements in one transaction as the caller (all or nothing). */
    transaction: async <T>(req: Request, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
      try {
        return await asRole(pool, traced(contextOf(req)), fn);
      } catch (err) {
        throw aiError(err, req.auth!.role);
      }
    },
    /** Several statements in one transaction as a caller captured earlier. */
    transactionAs: async <T>(ctx: RequestContext, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
      try {
        return await asRole(pool, traced(ctx), fn);
      } catch (err) {
        throw aiError(err, ctx.role);
      }
    },
  };
}
