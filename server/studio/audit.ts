// Who did what in the control plane (studio.audit_log, sql/0098): the
// operator, the time, the action and its target, and the SQL or call it
// ran. Destructive actions (drop, delete, empty, ban) are always recorded;
// reads are not.
import type { Request } from 'express';
import type pg from 'pg';

export async function audit(pool: pg.Pool, req: Request, operator: { id: string | null; email: string }, action: string, target: string | null, detail: Record<string, unknown>): Promise<void> {
  await pool.query('select studio.record($1, $2, $3, $4, $5, $6)', [operator.id, operator.email, action, target, JSON.stringify(detail), req.ip ?? null]);
}
