// Custom tools in SQL (ai.tools), as the caller: the access model's policies
// decide what they see and change. config.headers is sealed in the same
// transaction as each write (encrypted, stored masked: sql/0056); the
// service role reads the values, everyone else the masks.
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { ownedRows } from '../owned.ts';
import type { ResourceSecrets } from './secrets.ts';

export type ToolRow = { id: string; owner_id: string | null; name: string; description: string; type: string; input_schema: unknown; config: unknown; created_at: Date; updated_at: Date };
export type ToolFields = { name?: string | undefined; description?: string | undefined; type?: string | undefined; input_schema?: unknown; config?: unknown };

const COLUMNS = 'id, owner_id, name, description, type, input_schema, config, created_at, updated_at';

export function toolStore(calls: AiCalls, secrets: ResourceSecrets) {
  const { refuse } = ownedRows(calls, 'ai.tools', 'tools', () => aiErrors.notFound('Tool'));
  /** The service role reads header values; everyone else their masks. */
  const shown = (req: Request, rows: ToolRow[]) => (req.auth!.role === 'service_role' ? secrets.reveal('ai.tools', rows as Array<ToolRow & { config: Record<string, unknown> }>) : Promise.resolve(rows));
  return {
    list: async (req: Request) => shown(req, await calls.call<ToolRow>(req, `select ${COLUMNS} from ai.tools order by created_at, id`, [])),
    get: async (req: Request, id: string) => {
      const [row] = await calls.call<ToolRow>(req, `select ${COLUMNS} from ai.tools where id = $1`, [id]);
      if (!row) throw aiErrors.notFound('Tool');
      return (await shown(req, [row]))[0]!;
    },
    /** The tool as a run calls it: read as the caller (404 when they cannot see it), its headers decrypted for the runner alone. */
    forRun: async (req: Request, id: string) => {
      const [row] = await calls.call<ToolRow & { config: Record<string, unknown> }>(req, `select ${COLUMNS} from ai.tools where id = $1`, [id]);
      if (!row) throw aiErrors.notFound('Tool');
      return (await secrets.reveal('ai.tools', [row]))[0]!;
    },
    create: async (req: Request, t: Required<Omit<ToolFields, 'config'>> & { config: unknown }) => {
      const row = await calls.transaction(req, async (c) => {
        const [made] = (await c.query<ToolRow>(`insert into ai.tools (name, description, type, input_schema, config) values ($1, $2, $3, $4, $5) returning id`, [
          t.name, t.description, t.type, JSON.stringify(t.input_schema), JSON.stringify(t.config ?? {}),
        ])).rows;
        await secrets.seal(c, 'ai.tools', made!.id);
        return (await c.query<ToolRow>(`select ${COLUMNS} from ai.tools where id = $1`, [made!.id])).rows[0]!;
      });
      return (await shown(req, [row]))[0]!;
    },
    update: async (req: Request, id: string, t: ToolFields) => {
      const row = await calls.transaction(req, async (c) => {
        const [changed] = (await c.query<{ id: string }>(`update ai.tools set
            name = coalesce($2, name), description = coalesce($3, description), type = coalesce($4, type),
            input_schema = coalesce($5::jsonb, input_schema), config = coalesce($6::jsonb, config)
          where id = $1 returning id`, [
          id, t.name ?? null, t.description ?? null, t.type ?? null, t.input_schema === undefined ? null : JSON.stringify(t.input_schema), t.config === undefined ? null : JSON.stringify(t.config),
        ])).rows;
        if (!changed) return undefined;
        await secrets.seal(c, 'ai.tools', id);
        return (await c.query<ToolRow>(`select ${COLUMNS} from ai.tools where id = $1`, [id])).rows[0]!;
      });
      return row ? (await shown(req, [row]))[0]! : refuse(req, id);
    },
    remove: async (req: Request, id: string) => {
      const rows = await calls.call<{ id: string }>(req, 'delete from ai.tools where id = $1 returning id', [id]);
      if (rows.length === 0) await refuse(req, id);
    },
  };
}
