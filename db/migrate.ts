// Applies ordered SQL migrations: the platform's (sql/) first, then the user's
// (MIGRATIONS_DIR). Each file runs once, in its own transaction, recorded with
// a sha256 checksum. A session advisory lock serialises concurrent runners
// (replicas starting together): the second waits, then finds nothing to do.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const PLATFORM_MIGRATIONS_DIR = fileURLToPath(new URL('../sql/', import.meta.url));

// An arbitrary constant, so every runner of every version takes the same lock.
const LOCK_KEY = 7_316_203_948_112n;

export type MigrationSource = 'platform' | 'user';

export type MigrationFile = { source: MigrationSource; name: string; file: string; sql: string; checksum: string };

export type MigrateResult = { applied: Array<{ source: MigrationSource; name: string }>; skipped: number };

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

export function checksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

export async function readMigrations(dir: string, source: MigrationSource): Promise<MigrationFile[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith('.sql'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && source === 'user') return [];
    throw err;
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)); // byte order, locale independent
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name);
      const sql = await fs.readFile(file, 'utf8');
      return { source, name, file, sql, checksum: checksum(sql) };
    }),
  );
}

type Progress = (event: { source: MigrationSource; name: string; ms: number }) => void;

/** Supabase's extensions whose API pgbase's own migrations provide, with the migration that does. */
const PROVIDED_EXTENSIONS: Record<string, string> = { supabase_vault: '0118_vault.sql', pgmq: '0119_pgmq.sql', pg_cron: '0121_cron.sql', pg_net: '0123_net.sql' };

/**
 * Why migrating must stop, or null: one of those extensions is installed in
 * the database and pgbase's migration for the same schema is still to run
 * (two implementations of one API would fight over its tables). The
 * migrations 0119, 0121 and 0123 check it themselves too, for a DBA running them by hand.
 */
export function extensionClash(installed: string[], pending: string[]): string | null {
  const clashes = Object.entries(PROVIDED_EXTENSIONS).filter(([ext, file]) => installed.includes(ext) && pending.includes(file));
  if (clashes.length === 0) return null;
  return clashes.map(([ext, file]) => `The ${ext} extension is installed in this database, and pgbase provides its API itself (sql/${file}). `
    + 'Drop the extension after moving its data out (docs/database.md), or point pgbase at another database.').join('\n');
}

export async function migrate(
  connectionString: string,
  opts: { platformDir?: string; userDir?: string | undefined; onApplied?: Progress } = {},
): Promise<MigrateResult> {
  const files = [
    ...(await readMigrations(opts.platformDir ?? PLATFORM_MIGRATIONS_DIR, 'platform')),
    ...(opts.userDir ? await readMigrations(opts.userDir, 'user') : []),
  ];
  const lock = new pg.Client({ connectionString, application_name: 'pgbase:migrate' });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [LOCK_KEY.toString()]);
    await lock.query(`
      create schema if not exists platform;
      revoke all on schema platform from public;
      create table if not exists platform.migrations (
        source text not null check (source in ('platform', 'user')),
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now(),
        primary key (source, name)
      );`);
    const { rows } = await lock.query<{ source: MigrationSource; name: string; checksum: string }>(
      'select source, name, checksum from platform.migrations',
    );
    const recorded = new Map(rows.map((r) => [`${r.source}/${r.name}`, r.checksum]));

    // Refuse before applying anything: a changed applied file means the
    // database and the code disagree, and only a person can say which is right.
    const changed = files.filter((f) => recorded.has(`${f.source}/${f.name}`) && recorded.get(`${f.source}/${f.name}`) !== f.checksum);
    if (changed.length > 0) {
      throw new MigrationError(
        changed
          .map((f) => `Migration ${f.file} was changed after it was applied (recorded checksum ${recorded.get(`${f.source}/${f.name}`)!.slice(0, 12)}, file now ${f.checksum.slice(0, 12)}). Restore it and put the change in a new migration.`)
          .join('\n'),
      );
    }

    const { rows: installed } = await lock.query<{ extname: string }>('select extname from pg_extension');
    const clash = extensionClash(installed.map((r) => r.extname), files.filter((f) => f.source === 'platform' && !recorded.has(`platform/${f.name}`)).map((f) => f.name));
    if (clash) throw new MigrationError(clash);

    const result: MigrateResult = { applied: [], skipped: 0 };
    for (const f of files) {
      if (recorded.has(`${f.source}/${f.name}`)) {
        result.skipped++;
        continue;
      }
      const started = Date.now();
      await applyOne(connectionString, f);
      result.applied.push({ source: f.source, name: f.name });
      opts.onApplied?.({ source: f.source, name: f.name, ms: Date.now() - started });
    }
    return result;
  } finally {
    // Closing the session releases the advisory lock too.
    await lock.end().catch(() => undefined);
  }
}

// Each file gets a fresh session: what one migration SETs (search_path, role)
// cannot leak into the next, and database-level defaults an earlier file
// changed (ALTER DATABASE ... SET) are in effect, as on any later boot.
async function applyOne(connectionString: string, f: MigrationFile): Promise<void> {
  const client = new pg.Client({ connectionString, application_name: `pgbase:migrate:${f.name}` });
  await client.connect();
  try {
    await client.query('begin');
    await client.query(f.sql);
    await client.query('reset role');
    await client.query('insert into platform.migrations (source, name, checksum) values ($1, $2, $3)', [f.source, f.name, f.checksum]);
    await client.query('commit');
  } catch (err) {
    const e = err as { message?: string; position?: string; code?: string };
    const where = e.position ? ` at ${lineOf(f.sql, Number(e.position))}` : '';
    throw new MigrationError(`Migration ${f.file} failed${where}: ${e.message ?? String(err)}${e.code ? ` (SQLSTATE ${e.code})` : ''}`, { cause: err });
  } finally {
    await client.end().catch(() => undefined);
  }
}

function lineOf(sql: string, position: number): string {
  const line = sql.slice(0, Math.max(0, position - 1)).split('\n').length;
  return `line ${line}`;
}
