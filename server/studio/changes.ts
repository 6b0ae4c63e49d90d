// /api/platform/pg-meta/{ref}: changes to the schema. Each answers the SQL it
// runs (built by the studio.*_sql functions of sql/0100); with `preview:
// true` it only answers it, so the Studio shows exactly what will run before
// it runs. A change runs in one transaction and goes to the audit log with
// its SQL (destructive ones included: drop table, drop column, drop policy).
import express, { type Request, type Router } from 'express';
import { z } from 'zod';
import { route } from '../errors.ts';
import type { AdminSql } from './admin-sql.ts';
import { cronJobId } from './meta.ts';
import { parseBody } from './parse.ts';

const Preview = { preview: z.boolean().optional() };
const References = z.object({ schema: z.string().max(63).optional(), table: z.string().min(1).max(63), column: z.string().min(1).max(63), on_delete: z.enum(['CASCADE', 'SET NULL', 'SET DEFAULT', 'RESTRICT', 'NO ACTION']).optional() });
export const ColumnSpec = z.object({
  name: z.string().min(1).max(63), type: z.string().min(1).max(200), default: z.string().max(10_000).nullish(),
  nullable: z.boolean().optional(), primary_key: z.boolean().optional(), unique: z.boolean().optional(),
  identity: z.enum(['always', 'by default']).nullish(), check: z.string().max(10_000).nullish(), comment: z.string().max(10_000).nullish(),
  references: References.nullish(),
});
export const CreateTableBody = z.object({ schema: z.string().min(1).max(63).optional(), name: z.string().min(1).max(63), comment: z.string().max(10_000).nullish(), rls: z.boolean().optional(), columns: z.array(ColumnSpec).min(1).max(1600), ...Preview });
export const AlterTableBody = z.object({ name: z.string().min(1).max(63).optional(), comment: z.string().max(10_000).nullish(), rls_enabled: z.boolean().optional(), rls_forced: z.boolean().optional(), realtime: z.boolean().optional(), ...Preview });
export const DropBody = z.object({ cascade: z.boolean().optional(), ...Preview });
export const AddColumnBody = ColumnSpec.extend(Preview);
export const AlterColumnBody = z.object({ name: z.string().min(1).max(63).optional(), type: z.string().min(1).max(200).optional(), default: z.string().max(10_000).nullish(), nullable: z.boolean().optional(), unique: z.boolean().optional(), comment: z.string().max(10_000).nullish(), ...Preview });
export const PolicyBody = z.object({
  name: z.string().min(1).max(63), action: z.enum(['PERMISSIVE', 'RESTRICTIVE']).optional(), command: z.enum(['ALL', 'SELECT', 'INSERT', 'UPDATE', 'DELETE']).optional(),
  roles: z.array(z.string().min(1).max(63)).max(50).optional(), using: z.string().max(10_000).nullish(), check: z.string().max(10_000).nullish(), ...Preview,
});
export const ExtensionBody = z.object({ name: z.string().regex(/^[a-z0-9_-]{1,63}$/, 'an extension name'), schema: z.string().min(1).max(63).optional(), ...Preview });
export const PreviewOnly = z.object(Preview);
export const CronJobBody = z.object({ name: z.string().trim().min(1).max(200), schedule: z.string().trim().min(1).max(200), command: z.string().trim().min(1).max(100_000), ...Preview });
export const CronJobPatch = z.object({ schedule: z.string().trim().min(1).max(200).optional(), command: z.string().trim().min(1).max(100_000).optional(), active: z.boolean().optional(), ...Preview });
export const QueueBody = z.object({ name: z.string().regex(/^[a-z0-9_]{1,47}$/, 'lowercase letters, digits and underscores, at most 47'), unlogged: z.boolean().optional(), ...Preview });

/** Without `preview` from the body. */
const spec = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([k, v]) => k !== 'preview' && v !== undefined));

export function changeRoutes(opts: { sql: AdminSql }): Router {
  const { sql } = opts;
  const r = express.Router({ mergeParams: true });
  const tableId = (req: Request) => Number(req.params.id);

  /** Builds the SQL, then answers it (preview) or runs it, recording it as `action` on `target`. */
  const change = (schema: z.ZodType<{ preview?: boolean | undefined }>, action: string, build: (req: Request, body: Record<string, unknown>) => Promise<{ sql: string; target: string }>) =>
    route(async (req, res) => {
      const body = parseBody(schema, req.body) as Record<string, unknown> & { preview?: boolean };
      const built = await build(req, spec(body));
      if (!body.preview) await sql.change(req, action, built.target, built.sql);
      res.json({ sql: built.sql, ran: !body.preview });
    });
  const tableName = async (id: number) => sql.value<string>('select studio.require_table($1)', [id]);

  r.post('/tables', change(CreateTableBody, 'create_table', async (_req, b) => ({ sql: await sql.value('select studio.create_table_sql($1)', [b]), target: `${b.schema ?? 'public'}.${b.name}` })));
  r.patch('/tables/:id', change(AlterTableBody, 'alter_table', async (req, b) => ({ sql: await sql.value('select studio.alter_table_sql($1, $2)', [tableId(req), b]), target: await tableName(tableId(req)) })));
  r.delete('/tables/:id', change(DropBody, 'drop_table', async (req, b) => ({ sql: await sql.value('select studio.drop_table_sql($1, $2)', [tableId(req), b.cascade === true]), target: await tableName(tableId(req)) })));
  r.post('/tables/:id/columns', change(AddColumnBody, 'add_column', async (req, b) => ({ sql: await sql.value('select studio.add_column_sql($1, $2)', [tableId(req), b]), target: `${await tableName(tableId(req))}.${String(b.name)}` })));
  r.patch('/tables/:id/columns/:name', change(AlterColumnBody, 'alter_column', async (req, b) => ({ sql: await sql.value('select studio.alter_column_sql($1, $2, $3)', [tableId(req), req.params.name, b]), target: `${await tableName(tableId(req))}.${String(req.params.name)}` })));
  r.delete('/tables/:id/columns/:name', change(PreviewOnly, 'drop_column', async (req) => ({ sql: await sql.value('select studio.drop_column_sql($1, $2)', [tableId(req), req.params.name]), target: `${await tableName(tableId(req))}.${String(req.params.name)}` })));
  r.post('/tables/:id/policies', change(PolicyBody, 'create_policy', async (req, b) => ({ sql: await sql.value('select studio.create_policy_sql($1, $2)', [tableId(req), b]), target: `${await tableName(tableId(req))}: ${String(b.name)}` })));
  r.put('/tables/:id/policies/:name', change(PolicyBody, 'replace_policy', async (req, b) => ({ sql: await sql.value('select studio.replace_policy_sql($1, $2, $3)', [tableId(req), req.params.name, b]), target: `${await tableName(tableId(req))}: ${String(req.params.name)}` })));
  r.delete('/tables/:id/policies/:name', change(PreviewOnly, 'drop_policy', async (req) => ({ sql: await sql.value('select studio.drop_policy_sql($1, $2)', [tableId(req), req.params.name]), target: `${await tableName(tableId(req))}: ${String(req.params.name)}` })));
  r.post('/extensions', change(ExtensionBody, 'enable_extension', async (_req, b) => ({ sql: await sql.value('select studio.enable_extension_sql($1, $2)', [b.name, b.schema ?? 'extensions']), target: String(b.name) })));
  r.delete('/extensions/:name', change(PreviewOnly, 'disable_extension', async (req) => ({ sql: await sql.value('select studio.disable_extension_sql($1)', [req.params.name]), target: String(req.params.name) })));
  r.post('/cron/jobs', change(CronJobBody, 'schedule_cron_job', async (_req, b) => ({ sql: await sql.value('select studio.cron_schedule_sql($1)', [b]), target: String(b.name) })));
  r.patch('/cron/jobs/:id', change(CronJobPatch, 'alter_cron_job', async (req, b) => ({ sql: await sql.value('select studio.cron_alter_sql($1, $2)', [cronJobId(req), b]), target: `cron job ${cronJobId(req)}` })));
  r.delete('/cron/jobs/:id', change(PreviewOnly, 'unschedule_cron_job', async (req) => ({ sql: await sql.value('select studio.cron_unschedule_sql($1)', [cronJobId(req)]), target: `cron job ${cronJobId(req)}` })));
  r.post('/queues', change(QueueBody, 'create_queue', async (_req, b) => ({ sql: await sql.value('select studio.queue_create_sql($1)', [b]), target: String(b.name) })));
  r.post('/queues/:name/purge', change(PreviewOnly, 'purge_queue', async (req) => ({ sql: await sql.value('select studio.queue_purge_sql($1)', [req.params.name]), target: String(req.params.name) })));
  r.delete('/queues/:name', change(PreviewOnly, 'drop_queue', async (req) => ({ sql: await sql.value('select studio.queue_drop_sql($1)', [req.params.name]), target: String(req.params.name) })));
  return r;
}
