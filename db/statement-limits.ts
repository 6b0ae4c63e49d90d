// How long one statement may run, and who stops it (containment item 3).
//
//   per API role     as PostgREST does: the role's own `statement_timeout`
//                    setting (ALTER ROLE authenticated SET statement_timeout =
//                    '8s'; sql/0053 sets Supabase's values), read at start and on
//                    NOTIFY pgrst, 'reload schema', applied per transaction
//                    with set_config (SET LOCAL ROLE does not apply role settings);
//                    a role with none gets the fallback (DB_STATEMENT_TIMEOUT)
//   inside a job     JOB_STATEMENT_TIMEOUT, whatever role the job acts as: a
//                    job's statements are the platform's long work
//   client gone      a request's departure cancels its running statement
//                    (CancelRequest on a side connection), and the connection
//                    is dropped, so a late cancel can never hit another request
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

const API_ROLES = ['anon', 'authenticated', 'service_role'];
const roleTimeouts = new Map<string, string>();
const limits = { fallback: '8s', job: '10min' };
const jobScope = new AsyncLocalStorage<boolean>();

/** The fallback for roles without their own setting, and the jobs' limit (server/config.ts). */
export function configureStatementLimits(opts: { fallback: string; job: string }): void {
  limits.fallback = opts.fallback;
  limits.job = opts.job;
}

/** Reads the API roles' own statement_timeout settings (database-specific ones win). */
export async function loadRoleTimeouts(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ rolname: string; timeout: string | null }>(
    `select r.rolname,
            (select substr(c, length('statement_timeout=') + 1)
               from pg_db_role_setting s, unnest(s.setconfig) c
              where s.setrole = r.oid and s.setdatabase in (0, (select oid from pg_database where datname = current_database()))
                and c like 'statement_timeout=%'
              order by s.setdatabase desc limit 1) as timeout
       from pg_roles r where r.rolname = any ($1)`, [API_ROLES]);
  roleTimeouts.clear();
  for (const r of rows) if (r.timeout !== null) roleTimeouts.set(r.rolname, r.timeout);
}

/** The statement_timeout a transaction as this role gets now. */
export function statementTimeoutFor(role: string): string {
  if (jobScope.getStore()) return limits.job;
  return roleTimeouts.get(role) ?? limits.fallback;
}

/** Runs a job's work under the jobs' statement limit. */
export function asJob<T>(fn: () => T): T {
  return jobScope.run(true, fn);
}

type Cancellable = { processID: number | null; secretKey: number | null; activeQuery: unknown };

/** A request's client leaving, as cheaply as a listener on its response (no AbortController per request). */
export type Departure = {
  /** Whether the client has already gone. */
  gone: () => boolean;
  /** Calls `cb` if the client goes before the answer is written; answers a function that stops listening. */
  onGone: (cb: () => void) => () => void;
};

/**
 * While `client` is checked out, the client's departure cancels the
 * statement it is running. Answers a release check: true when a cancel was
 * sent, so the caller destroys the connection instead of pooling it.
 */
export function cancelOnDeparture(pool: pg.Pool, client: pg.PoolClient, departure: Departure | undefined): { done: () => boolean } {
  if (!departure) return NO_WATCH;
  let sent = false;
  const off = departure.onGone(() => {
    const target = client as unknown as Cancellable;
    if (sent || target.processID === null || !target.activeQuery) return;
    sent = true;
    const side = new pg.Client((pool as unknown as { options: pg.ClientConfig }).options);
    (side as unknown as { connection: { on: (e: string, f: () => void) => void } }).connection.on('error', () => undefined);
    (side as unknown as { cancel: (c: unknown, q: unknown) => void }).cancel(target, target.activeQuery);
  });
  return {
    done: () => {
      off();
      return sent;
    },
  };
}
const NO_WATCH = { done: () => false };

/** What a request whose client has already left gets instead of a connection (nobody reads it). */
export function clientGone(): Error {
  return Object.assign(new Error('The client closed the request'), { code: '57014' });
}
