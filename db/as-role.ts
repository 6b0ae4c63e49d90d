// Runs a callback in one transaction as a given API role, with the request
// context set exactly as PostgREST sets it, so grants and row-level security
// decide what the callback may see and change:
//   role                 set_config('role', ..., true)  (SET LOCAL ROLE)
//   request.jwt.claims   the verified token's claims as JSON
//   request.jwt.claim.sub  its sub claim alone, as PostgREST before v10 set it:
//                        auth.uid() reads it first, so a policy calling it per
//                        row does not parse the claims' JSON for every row
//   request.method, request.path, request.headers (JSON, lower-case names)
// All settings are transaction-local: the pooled connection carries nothing
// from one request to the next.
import type pg from 'pg';
import { cancelOnDeparture, clientGone, statementTimeoutFor, type Departure } from './statement-limits.ts';

export type ApiRole = 'anon' | 'authenticated' | 'service_role' | (string & {});

export type RequestContext = {
  role: ApiRole;
  claims: Record<string, unknown>;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** The request's client leaving: its running statement is then cancelled. */
  departure?: Departure | undefined;
  /** The search path the request runs under (PostgREST: its schema, then db-extra-search-path), quoted. */
  searchPath?: string | undefined;
  /** A function called after the context is set and before the request's statement (PostgREST's db-pre-request), quoted. */
  preRequest?: string | undefined;
};

/**
 * A request's context as the settings it runs under, transaction-local: the
 * one definition for every way a request reaches SQL as its caller (the REST
 * pipeline, asRole, GraphQL's pgSettings).
 */
export function requestSettings(ctx: RequestContext): Record<string, string> {
  const sub = ctx.claims.sub;
  return {
    role: ctx.role, 'request.jwt.claims': JSON.stringify(ctx.claims), 'request.method': ctx.method ?? '', 'request.path': ctx.path ?? '',
    'request.headers': JSON.stringify(ctx.headers ?? {}), statement_timeout: statementTimeoutFor(ctx.role), 'request.jwt.claim.sub': typeof sub === 'string' ? sub : '',
  };
}

const SETTINGS = Object.keys(requestSettings({ role: 'anon', claims: {} }));
const setting = (name: string, i: number) => `set_config('${name}', $${i + 1}, true)`;
/** The statement that sets a request's context; its values come from contextValues. */
export const SET_CONTEXT = `select ${SETTINGS.map(setting).join(', ')}`;
/** The same with the search path last (a REST request's: its schema, then db-extra-search-path), in the same statement. */
const SET_CONTEXT_WITH_PATH = `select ${[...SETTINGS, 'search_path'].map(setting).join(', ')}`;
export const contextValues = (ctx: RequestContext): string[] => [...Object.values(requestSettings(ctx)), ...(ctx.searchPath ? [ctx.searchPath] : [])];
/** The context statement for this context (with its search path when it has one), its prepared name and its values. */
export function contextStatement(ctx: RequestContext): { name: string; text: string; values: string[] } {
  return ctx.searchPath ? { name: 'pgbase_ctx_path', text: SET_CONTEXT_WITH_PATH, values: contextValues(ctx) } : { name: 'pgbase_ctx', text: SET_CONTEXT, values: contextValues(ctx) };
}

/** What runs after the context and before the request's statement: the pre-request function. */
export function preludeOf(ctx: RequestContext): Array<{ text: string; values: unknown[] }> {
  return ctx.preRequest ? [{ text: `select ${ctx.preRequest}()`, values: [] }] : [];
}

export async function asRole<T>(pool: pg.Pool, ctx: RequestContext, fn: (client: pg.PoolClient) => Promise<T>, opts: { rollback?: boolean; discard?: boolean } = {}): Promise<T> {
  return inTransaction(pool, async (client) => {
    const context = contextStatement(ctx);
    await client.query(context.text, context.values);
    for (const step of preludeOf(ctx)) await client.query(step.text, step.values);
    return fn(client);
  }, { ...opts, departure: ctx.departure });
}

/**
 * One transaction on a pooled connection: committed when fn resolves, rolled
 * back when it throws. If even the rollback fails the connection is gone, and
 * it is dropped from the pool instead of being reused.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, opts: { rollback?: boolean; departure?: Departure | undefined; discard?: boolean | undefined } = {}): Promise<T> {
  if (opts.departure?.gone()) throw clientGone();
  const client = await pool.connect();
  const watch = cancelOnDeparture(pool, client, opts.departure);
  let broken = false;
  try {
    await client.query('begin');
    const result = await fn(client);
    // rollback: the caller wants the answer but not the change (Prefer: tx=rollback).
    await client.query(opts.rollback ? 'rollback' : 'commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    // A connection a cancel was sent to is dropped (the cancel may land late), and so is one
    // the caller asked to discard (it ran user SQL whose session state must not outlive it).
    client.release(watch.done() || broken || opts.discard === true);
  }
}
