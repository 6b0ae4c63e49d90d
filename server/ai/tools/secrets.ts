// Headers inside resources (custom tools' and HTTP hooks' config.headers):
// encrypted at rest with the master key and stored masked in config
// (sql/0056). Written rows are sealed in the writer's transaction; the
// values are decrypted only here, for the runner and for the service role.
import type pg from 'pg';
import type { AiCalls } from '../calls.ts';

export type SealedTable = 'ai.tools' | 'ai.agent_hooks' | 'ai.orchestration_hooks';
type WithConfig = { id: string; config: Record<string, unknown> | null };

export type ResourceSecrets = ReturnType<typeof resourceSecrets>;

export function resourceSecrets(calls: AiCalls, masterKey: string) {
  return {
    /** Seals the row the caller just wrote on `c` (same transaction): its headers encrypted, config showing their masks. */
    seal: async (c: pg.PoolClient, table: SealedTable, id: string): Promise<void> => {
      await c.query('select ai.seal_headers($1::regclass, $2, $3)', [table, id, masterKey]);
    },
    /** Rows with their config.headers decrypted: for the runner, and for answers to the service role. */
    reveal: async <R extends WithConfig>(table: SealedTable, rows: R[]): Promise<R[]> => {
      const ids = rows.filter((r) => r.config && typeof r.config === 'object' && 'headers' in r.config).map((r) => r.id);
      if (ids.length === 0) return rows;
      const found = await calls.asService<{ id: string; headers: string | null }>(
        `select id, case when headers_encrypted is null then null else ai.decrypt(headers_encrypted, $2) end as headers from ${table} where id = any($1::uuid[])`, [ids, masterKey]);
      const plain = new Map(found.map((f) => [f.id, f.headers === null ? {} : JSON.parse(f.headers) as Record<string, string>]));
      return rows.map((r) => (plain.has(r.id) ? { ...r, config: { ...r.config, headers: plain.get(r.id) } } : r));
    },
    /** Seals what was stored before headers were sealed (the server alone holds the key): at start. */
    sealAll: async (): Promise<number> => (await calls.asService<{ n: number }>('select ai.seal_all_headers($1) as n', [masterKey]))[0]!.n,
  };
}
