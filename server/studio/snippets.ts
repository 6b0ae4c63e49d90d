// /api/platform/studio/snippets and /history: the SQL editor's saved queries
// (per operator, with names and folders) and what ran (the last 500 runs,
// sql/0101). A platform token has no operator: it has neither.
import express, { type Request, type Router } from 'express';
import { z } from 'zod';
import { route } from '../errors.ts';
import type { AdminSql } from './admin-sql.ts';
import { studioErrors } from './errors.ts';
import { parseBody } from './parse.ts';

export const SnippetBody = z.object({ name: z.string().trim().min(1, 'name is required').max(200), folder: z.string().trim().max(200).optional(), sql: z.string().max(1_000_000) });
export const SnippetPatch = SnippetBody.partial();
const uuid = z.string().uuid('an id');

export function snippetRoutes(opts: { sql: AdminSql }): Router {
  const { sql } = opts;
  const r = express.Router();
  const operator = (req: Request) => {
    if (req.operator?.kind !== 'session') throw studioErrors.sessionOnly();
    return req.operator.id;
  };
  const conflict = (err: unknown) => {
    if ((err as { code?: string }).code === '23505') throw studioErrors.invalid('A snippet with that name is in that folder already');
    throw err;
  };
  const COLUMNS = 'id, name, folder, sql, created_at, updated_at';

  r.get('/studio/snippets', route(async (req, res) => {
    res.json(await sql.rows(`select ${COLUMNS} from studio.snippets where operator_id = $1 order by folder, name`, [operator(req)]));
  }));
  r.post('/studio/snippets', route(async (req, res) => {
    const b = parseBody(SnippetBody, req.body);
    const [made] = await sql.rows(`insert into studio.snippets (operator_id, name, folder, sql) values ($1, $2, $3, $4) returning ${COLUMNS}`, [operator(req), b.name, b.folder ?? '', b.sql]).catch(conflict);
    res.status(201).json(made);
  }));
  r.patch('/studio/snippets/:id', route(async (req, res) => {
    const b = parseBody(SnippetPatch, req.body);
    const [changed] = await sql.rows(`update studio.snippets set name = coalesce($3, name), folder = coalesce($4, folder), sql = coalesce($5, sql), updated_at = now()
                                        where id = $1 and operator_id = $2 returning ${COLUMNS}`, [parseBody(uuid, req.params.id), operator(req), b.name ?? null, b.folder ?? null, b.sql ?? null]).catch(conflict);
    if (!changed) throw studioErrors.notFound('Snippet');
    res.json(changed);
  }));
  r.delete('/studio/snippets/:id', route(async (req, res) => {
    const [gone] = await sql.rows('delete from studio.snippets where id = $1 and operator_id = $2 returning id', [parseBody(uuid, req.params.id), operator(req)]);
    if (!gone) throw studioErrors.notFound('Snippet');
    res.json({ deleted: true });
  }));
  r.get('/studio/history', route(async (req, res) => {
    res.json(await sql.rows('select id, sql, ran_at, duration_ms, row_count, error from studio.query_history where operator_id = $1 order by id desc limit 200', [operator(req)]));
  }));
  return r;
}
