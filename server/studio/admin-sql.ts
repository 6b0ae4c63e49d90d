// How the control plane runs SQL for an operator: on the admin login (as
// Supabase Studio runs as postgres), each call one transaction with its own
// statement_timeout, so a slow catalogue read or a forgotten lock cannot
// hold a connection. A change the Studio previewed runs exactly as shown and
// is recorded in the audit log with its SQL. Errors PostgreSQL raised for
// the request (bad values, unknown names, constraints) answer 4xx with their
// SQLSTATE as the code.
import type { Request } from 'express';
import type pg from 'pg';
import { fromPostgresError } from '../errors.ts';
import { audit } from './audit.ts';

export type AdminSql = {
  /** One statement (with parameters) in its own transaction; the rows. */
  rows: <T extends pg.QueryResultRow>(sql: string, values?: unknown[], timeoutMs?: number) => Promise<T[]>;
  /** The first column of the first row of a statement that answers one value (a studio.* function). */
  value: <T>(sql: string, values?: unknown[], timeoutMs?: number) => Promise<T>;
  /** SQL text the Studio showed (DDL, one or more statements), run in one transaction and audited. */
  change: (req: Request, action: string, target: string, sql: string) => Promise<void>;
};

export function adminSql(pool: pg.Pool, defaults: { timeoutMs: number }): AdminSql {
  const inTransaction = async <T>(timeoutMs: number, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(`select set_config('statement_timeout', $1, true)`, [`${Math.max(1, Math.round(timeoutMs))}ms`]);
      const out = await fn(client);
      await client.query('commit');
      return out;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      // What the SQL refused (a value, a name, a constraint) is the operator's to fix: 4xx with its SQLSTATE, as REST answers it.
      throw fromPostgresError(err, 'service_role');
    } finally {
      client.release();
    }
  };
  const rows = <T extends pg.QueryResultRow>(sql: string, values: unknown[] = [], timeoutMs = defaults.timeoutMs) =>
    inTransaction(timeoutMs, async (c) => (await c.query<T>(sql, values)).rows);
  return {
    rows,
    value: async <T>(sql: string, values: unknown[] = [], timeoutMs = defaults.timeoutMs) => {
      const [row] = await rows<Record<string, unknown>>(sql, values, timeoutMs);
      return Object.values(row ?? {})[0] as T;
    },
    change: async (req, action, target, sql) => {
      await inTransaction(defaults.timeoutMs, (c) => c.query(sql));
      await audit(pool, req, req.operator!, action, target, { sql });
    },
  };
}
