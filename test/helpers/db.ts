// One database per test file on the run's cluster, so files run in parallel.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function clusterUrl(): string {
  const url = process.env.TEST_PG_URL;
  if (!url) throw new Error('TEST_PG_URL is not set: run the tests with `npm test`');
  return url;
}

export function databaseUrl(name: string, base = clusterUrl()): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function freshDatabase(base = clusterUrl()): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    name,
    url: databaseUrl(name, base),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function query<T extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
