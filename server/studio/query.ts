// /api/platform/pg-meta/{ref}/query: the SQL editor.
//   POST /query                {query, explain?: plan | analyze, run_id?}: the last statement's result
//   POST /query/{run_id}/cancel  cancels it from another connection (pg_cancel_backend)
//
// Each run has a connection of its own, closed afterwards: whatever the SQL
// sets (a role, a search_path, a lock held by an open transaction) ends with
// it and never reaches a pooled connection. It runs as the admin login, like
// Supabase's SQL editor, with STUDIO_QUERY_TIMEOUT_MS. At most MAX_ROWS rows
// of a result, and MAX_BYTES of their values, come back (the rest are read
// from the socket and dropped, so the server's memory stays bounded) with
// `truncated` and the full count. EXPLAIN, with or without ANALYZE, runs in a
// transaction that is rolled back: a second statement in the text (EXPLAIN
// covers only the first) is undone with it.
// An error answers its SQLSTATE and the 1-based position PostgreSQL gave.
import { randomUUID } from 'node:crypto';
import express, { type Router } from 'express';
import pg from 'pg';
import { z } from 'zod';
import { apiError, route } from '../errors.ts';
import type { AdminSql } from './admin-sql.ts';
import { studioErrors } from './errors.ts';
import { parseBody } from './parse.ts';

export const MAX_ROWS = 10_000;
/** What the kept rows' values may hold in all (about: text by its length, other values 8 bytes). */
export const MAX_BYTES = 32 * 1024 * 1024;
const sizeOf = (row: unknown[]) => row.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 8), 0);

export const QueryBody = z.object({
  query: z.string({ error: 'query is required' }).min(1, 'query is required').max(1_000_000, 'query is longer than 1,000,000 characters'),
  explain: z.enum(['plan', 'analyze']).optional(),
  run_id: z.string().uuid().optional(),
});

export type QueryAnswer = {
  run_id: string;
  command: string | null;
  row_count: number | null;
  columns: Array<{ name: string; type: string }>;
  rows: unknown[][];
  truncated: boolean;
  duration_ms: number;
  plan?: unknown;
};

type Collected = { fields: Array<{ name: string; dataTypeID: number }>; rows: unknown[][]; seen: number; bytes: number; command: string | null; rowCount: number | null };

export function queryRoutes(opts: { adminUrl: string; sql: AdminSql; pool: pg.Pool; timeoutMs: number }): Router {
  const r = express.Router({ mergeParams: true });
  const running = new Map<string, { pid: number; operator: string }>();
  const typeNames = new Map<number, string>();
  const typeName = async (oid: number): Promise<string> => {
    if (!typeNames.has(oid)) typeNames.set(oid, await opts.sql.value<string>('select format_type($1::oid, null)', [oid]));
    return typeNames.get(oid)!;
  };

  /** Runs `text` (one statement or many) on `client`, keeping the first MAX_ROWS rows of each result. */
  const collect = (client: pg.Client, text: string): Promise<Collected[]> => new Promise((resolve, reject) => {
    const results: Collected[] = [];
    let current: Collected | undefined;
    const query = new pg.Query({ text, rowMode: 'array' } as pg.QueryConfig);
    query.on('row', (row: unknown[], result?: pg.QueryResult) => {
      if (!result) return;
      if (!current || (current as unknown as { result: unknown }).result !== result) {
        current = { fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })), rows: [], seen: 0, bytes: 0, command: null, rowCount: null };
        Object.defineProperty(current, 'result', { value: result, enumerable: false });
        results.push(current);
      }
      current.seen++;
      if (current.rows.length < MAX_ROWS && current.bytes < MAX_BYTES && current.rows.length === current.seen - 1) {
        current.bytes += sizeOf(row);
        current.rows.push(row);
      }
    });
    query.on('error', reject);
    query.on('end', (last: pg.QueryResult | pg.QueryResult[]) => {
      const all = Array.isArray(last) ? last : [last];
      // Results without rows (DDL, an empty select) have no 'row' event: take their shape from the end.
      resolve(all.map((res) => {
        const kept = results.find((c) => (c as unknown as { result: unknown }).result === res);
        return { fields: (res.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })), rows: kept?.rows ?? [], seen: kept?.seen ?? 0, bytes: kept?.bytes ?? 0, command: res.command ?? null, rowCount: res.rowCount ?? null };
      }));
    });
    client.query(query);
  });

  r.post('/query', route(async (req, res) => {
    const body = parseBody(QueryBody, req.body);
    const runId = body.run_id ?? randomUUID();
    const client = new pg.Client({ connectionString: opts.adminUrl, statement_timeout: opts.timeoutMs, application_name: 'pgbase studio' });
    await client.connect();
    running.set(runId, { pid: (client as unknown as { processID: number }).processID, operator: req.operator!.email });
    const started = performance.now();
    let error: unknown;
    let answer: QueryAnswer | undefined;
    try {
      if (body.explain) {
        await client.query('begin');
        const [plan] = await collect(client, `explain (format json${body.explain === 'analyze' ? ', analyze, buffers' : ''}) ${body.query}`);
        await client.query('rollback');
        const raw = plan?.rows[0]?.[0];
        answer = { run_id: runId, command: 'EXPLAIN', row_count: null, columns: [], rows: [], truncated: false, duration_ms: Math.round(performance.now() - started), plan: typeof raw === 'string' ? JSON.parse(raw) as unknown : raw };
      } else {
        const results = await collect(client, body.query);
        const last = results.at(-1) ?? { fields: [], rows: [], seen: 0, bytes: 0, command: null, rowCount: null };
        answer = {
          run_id: runId, command: last.command, row_count: last.fields.length ? last.seen : last.rowCount,
          columns: await Promise.all(last.fields.map(async (f) => ({ name: f.name, type: await typeName(f.dataTypeID) }))),
          rows: last.rows, truncated: last.seen > last.rows.length, duration_ms: Math.round(performance.now() - started),
        };
      }
    } catch (err) {
      error = err;
    } finally {
      running.delete(runId);
      await client.end().catch(() => undefined);
    }
    await opts.sql.rows('select studio.record_query($1, $2, $3, $4, $5)', [req.operator!.id, body.query, Math.round(performance.now() - started), answer?.row_count ?? null, error ? (error as Error).message : null]).catch(() => undefined);
    if (error) throw queryError(error);
    res.json(answer);
  }));

  r.post('/query/:run_id/cancel', route(async (req, res) => {
    const run = running.get(String(req.params.run_id));
    if (!run) return void res.json({ cancelled: false });
    res.json({ cancelled: await opts.sql.value<boolean>('select pg_cancel_backend($1)', [run.pid]) });
  }));
  return r;
}

/** A failed run as the editor shows it: the SQLSTATE, the message, and where in the text it failed. */
function queryError(err: unknown): Error {
  const e = err as { code?: unknown; message?: unknown; position?: unknown; detail?: unknown; hint?: unknown };
  if (typeof e?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) return err instanceof Error && /connect/i.test(err.message) ? studioErrors.unavailable('The database could not be reached') : (err as Error);
  return apiError(400, 'query_failed', String(e.message), {
    details: { sqlstate: e.code, position: typeof e.position === 'string' ? Number(e.position) : null, detail: e.detail ?? null, hint: e.hint ?? null },
  });
}
