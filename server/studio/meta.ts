// /api/platform/pg-meta/{ref}: what the database holds, in
// supabase/postgres-meta's shapes, read by the studio.* functions of
// sql/0099 (and advisors, sql/0101). Reads only; changes are changes.ts.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../errors.ts';
import type { AdminSql } from './admin-sql.ts';
import { studioErrors } from './errors.ts';
import { parseBody } from './parse.ts';

const ids = z.string().regex(/^\d+(,\d+)*$/, 'a table id, or several separated by commas').transform((v) => v.split(',').map(Number));
const schemaList = z.string().regex(/^[^,]+(,[^,]+)*$/).transform((v) => v.split(','));
export const TablesQuery = z.object({ schema: schemaList.optional(), id: ids.optional(), include_columns: z.enum(['true', 'false']).optional() });
export const TableIdsQuery = z.object({ table_id: ids.optional() });
export const SchemaQuery = z.object({ schema: schemaList.optional() });

/** A cron job's id from the path: anything but a whole number names no job. */
export function cronJobId(req: express.Request): number {
  const id = Number(req.params.id);
  if (!Number.isSafeInteger(id) || id < 1) throw studioErrors.notFound('Cron job');
  return id;
}

export function metaRoutes(opts: { sql: AdminSql; exposed: string[] }): Router {
  const { sql } = opts;
  const r = express.Router({ mergeParams: true });
  const json = (fn: (req: express.Request) => Promise<unknown>) => route(async (req, res) => void res.json(await fn(req)));

  r.get('/schemas', json(() => sql.value('select studio.schemas($1)', [opts.exposed])));
  r.get('/tables', json(async (req) => {
    const q = parseBody(TablesQuery, req.query);
    const tables = await sql.value<Array<Record<string, unknown> & { id: number }>>('select studio.tables($1, $2, $3)', [q.schema ?? null, q.id ?? null, opts.exposed]);
    if (q.include_columns !== 'true' || tables.length === 0) return tables;
    const columns = await sql.value<Array<{ table_id: number }>>('select studio.columns($1)', [tables.map((t) => t.id)]);
    return tables.map((t) => ({ ...t, columns: columns.filter((c) => c.table_id === t.id) }));
  }));
  r.get('/tables/:id', json(async (req) => {
    const id = Number(req.params.id);
    const [table] = Number.isInteger(id) ? await sql.value<Array<Record<string, unknown>>>('select studio.tables(null, $1, $2)', [[id], opts.exposed]) : [];
    if (!table) throw studioErrors.notFound('Table');
    return { ...table, columns: await sql.value('select studio.columns($1)', [[id]]) };
  }));
  r.get('/columns', json((req) => sql.value('select studio.columns($1)', [parseBody(TableIdsQuery, req.query).table_id ?? []])));
  r.get('/policies', json((req) => sql.value('select studio.policies($1)', [parseBody(TableIdsQuery, req.query).table_id ?? null])));
  r.get('/indexes', json((req) => sql.value('select studio.indexes($1)', [parseBody(TableIdsQuery, req.query).table_id ?? null])));
  r.get('/triggers', json((req) => sql.value('select studio.triggers($1)', [parseBody(TableIdsQuery, req.query).table_id ?? null])));
  r.get('/functions', json((req) => sql.value('select studio.functions($1)', [parseBody(SchemaQuery, req.query).schema ?? null])));
  r.get('/roles', json(() => sql.value('select studio.roles()')));
  r.get('/extensions', json(() => sql.value('select studio.extensions()')));
  r.get('/publications', json(() => sql.value('select studio.publications()')));
  r.get('/migrations', json(() => sql.rows('select source, name, applied_at from platform.migrations order by applied_at, source, name')));
  r.get('/advisors', json(() => sql.value('select studio.advisors($1)', [opts.exposed])));
  r.get('/cron/jobs', json(() => sql.value('select studio.cron_jobs()')));
  r.get('/cron/jobs/:id/runs', json((req) => sql.value('select studio.cron_runs($1)', [cronJobId(req)])));
  r.get('/queues', json(() => sql.value('select studio.queues()')));
  r.get('/tables/:id/policy-templates', json((req) => sql.value('select studio.policy_templates($1)', [Number(req.params.id)])));
  return r;
}
