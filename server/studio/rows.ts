// /api/platform/pg-meta/{ref}/tables/{id}/rows: the table editor's grid.
//   POST   …/rows/query    a page: {filters, order, limit, offset, after} (sql/0100 studio.rows)
//   POST   …/rows          insert rows (a form, a duplicate, a batch of a CSV import)
//   PATCH  …/rows          one row by its key: {key, changes}
//   DELETE …/rows          rows by their keys: {keys} (recorded in the audit log)
//   GET    …/rows/export   every row the filters match, as CSV or JSON, streamed in pages
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { route } from '../errors.ts';
import { audit } from './audit.ts';
import type { AdminSql } from './admin-sql.ts';
import { parseBody } from './parse.ts';

const Filter = z.object({ column: z.string().min(1).max(63), op: z.enum(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'is', 'in']), value: z.unknown() });
const Order = z.object({ column: z.string().min(1).max(63), ascending: z.boolean().optional() });
export const RowsQuery = z.object({
  filters: z.array(Filter).max(50).optional(), order: z.array(Order).max(10).optional(),
  limit: z.number().int().min(1).max(1000).optional(), offset: z.number().int().min(0).optional(), after: z.record(z.string(), z.unknown()).nullish(),
});
export const InsertRows = z.object({ rows: z.array(z.record(z.string(), z.unknown())).min(1).max(5000) });
export const UpdateRow = z.object({ key: z.record(z.string(), z.unknown()), changes: z.record(z.string(), z.unknown()) });
export const DeleteRows = z.object({ keys: z.array(z.record(z.string(), z.unknown())).min(1).max(5000) });
export const ExportQuery = z.object({ format: z.enum(['csv', 'json']).optional(), filters: z.string().max(100_000).optional(), order: z.string().max(10_000).optional() });

type Page = { rows: Array<Record<string, unknown>>; keyset: boolean; order: string[]; count: number | null; estimate: number };

/** A value in a CSV cell: text as is, everything else as JSON; quoted when it must be (RFC 4180). */
function csvCell(v: unknown): string {
  const text = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function rowRoutes(opts: { sql: AdminSql; pool: import('pg').Pool }): Router {
  const { sql } = opts;
  const r = express.Router({ mergeParams: true });
  const tableId = (req: Request) => Number(req.params.id);
  const pageArgs = (id: number, q: z.infer<typeof RowsQuery>) => [id, JSON.stringify(q.filters ?? []), JSON.stringify(q.order ?? []), q.limit ?? 100, q.offset ?? 0, q.after ? JSON.stringify(q.after) : null];
  const page = (id: number, q: z.infer<typeof RowsQuery>) => sql.value<Page>('select studio.rows($1, $2, $3, $4, $5, $6)', pageArgs(id, q));

  r.post('/tables/:id/rows/query', route(async (req, res) => {
    const started = performance.now();
    // The page as the JSON text PostgreSQL made: passed on, never parsed and written again here.
    const answer = await sql.value<string>('select studio.rows($1, $2, $3, $4, $5, $6)::text', pageArgs(tableId(req), parseBody(RowsQuery, req.body)));
    // The server's own time for a page (what bench:studio holds to 50 ms), seen by the browser's Resource Timing.
    res.setHeader('Server-Timing', `db;dur=${(performance.now() - started).toFixed(1)}`);
    res.type('application/json').send(answer);
  }));
  r.post('/tables/:id/rows', route(async (req, res) => {
    const body = parseBody(InsertRows, req.body);
    res.status(201).json(await sql.value('select studio.insert_rows($1, $2)', [tableId(req), JSON.stringify(body.rows)]));
  }));
  r.patch('/tables/:id/rows', route(async (req, res) => {
    const body = parseBody(UpdateRow, req.body);
    res.json(await sql.value('select studio.update_row($1, $2, $3)', [tableId(req), JSON.stringify(body.key), JSON.stringify(body.changes)]));
  }));
  r.delete('/tables/:id/rows', route(async (req, res) => {
    const body = parseBody(DeleteRows, req.body);
    const deleted = await sql.value<number>('select studio.delete_rows($1, $2)', [tableId(req), JSON.stringify(body.keys)]);
    await audit(opts.pool, req, req.operator!, 'delete_rows', await sql.value<string>('select studio.require_table($1)', [tableId(req)]), { keys: body.keys.slice(0, 100), deleted });
    res.json({ deleted });
  }));

  // Pages of 1,000 read by keyset (offset where the order does not allow it), written as they come.
  r.get('/tables/:id/rows/export', route(async (req, res) => {
    const q = parseBody(ExportQuery, req.query);
    const parsed = parseBody(RowsQuery, { filters: q.filters ? JSON.parse(q.filters) as unknown : [], order: q.order ? JSON.parse(q.order) as unknown : [] });
    const id = tableId(req);
    const name = (await sql.value<string>('select studio.require_table($1)', [id])).replace(/[^\w.-]+/g, '_');
    const csv = (q.format ?? 'csv') === 'csv';
    const columns = (await sql.value<Array<{ name: string }>>('select studio.columns($1)', [[id]])).map((c) => c.name);
    res.setHeader('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${name}.${csv ? 'csv' : 'json'}"`);
    await exportPages(res, csv, columns, (after, offset) => page(id, { ...parsed, limit: 1000, offset, after }));
  }));
  return r;
}

async function exportPages(res: Response, csv: boolean, columns: string[], next: (after: Record<string, unknown> | null, offset: number) => Promise<Page>): Promise<void> {
  res.write(csv ? `${columns.map(csvCell).join(',')}\r\n` : '[');
  let after: Record<string, unknown> | null = null;
  let offset = 0;
  let first = true;
  for (;;) {
    const p = await next(after, offset);
    for (const row of p.rows) {
      res.write(csv ? `${columns.map((c) => csvCell(row[c])).join(',')}\r\n` : `${first ? '' : ','}\n${JSON.stringify(row)}`);
      first = false;
    }
    if (p.rows.length < 1000 || res.destroyed) break;
    const last = p.rows.at(-1)!;
    if (p.keyset) after = Object.fromEntries(p.order.map((c) => [c, last[c]]));
    else offset += p.rows.length;
  }
  res.end(csv ? '' : '\n]\n');
}
