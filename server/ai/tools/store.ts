// Custom tools in SQL (ai.tools), as the caller: the access model's policies
// decide what they see and change.
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { ownedRows } from '../owned.ts';

export type ToolRow = { id: string; owner_id: string | null; name: string; description: string; type: string; input_schema: unknown; config: unknown; created_at: Date; updated_at: Date };
export type ToolFields = { name?: string | undefined; description?: string | undefined; type?: string | undefined; input_schema?: unknown; config?: unknown };

const COLUMNS = 'id, owner_id, name, description, type, input_schema, config, created_at, updated_at';

export function toolStore(calls: AiCalls) {
  const { refuse } = ownedRows(calls, 'ai.tools', 'tools', () => aiErrors.notFound('Tool'));
  return {
    list: (req: Request) => calls.call<ToolRow>(req, `select ${COLUMNS} from ai.tools order by created_at, id`, []),
    get: async (req: Request, id: string) => {
      const [row] = await calls.call<ToolRow>(req, `select ${COLUMNS} from ai.tools where id = $1`, [id]);
      if (!row) throw aiErrors.notFound('Tool');
      return row;
    },
    create: async (req: Request, t: Required<Omit<ToolFields, 'config'>> & { config: unknown }) => {
      const [row] = await calls.call<ToolRow>(req, `insert into ai.tools (name, description, type, input_schema, config) values ($1, $2, $3, $4, $5) returning ${COLUMNS}`, [
        t.name, t.description, t.type, JSON.stringify(t.input_schema), JSON.stringify(t.config ?? {}),
      ]);
      return row!;
    },
    update: async (req: Request, id: string, t: ToolFields) => {
      const [row] = await calls.call<ToolRow>(req, `update ai.tools set
          name = coalesce($2, name), description = coalesce($3, description), type = coalesce($4, type),
          input_schema = coalesce($5::jsonb, input_schema), config = coalesce($6::jsonb, config)
        where id = $1 returning ${COLUMNS}`, [
        id, t.name ?? null, t.description ?? null, t.type ?? null, t.input_schema === undefined ? null : JSON.stringify(t.input_schema), t.config === undefined ? null : JSON.stringify(t.config),
      ]);
      return row ?? refuse(req, id);
    },
    remove: async (req: Request, id: string) => {
      const rows = await calls.call<{ id: string }>(req, 'delete from ai.tools where id = $1 returning id', [id]);
      if (rows.length === 0) await refuse(req, id);
    },
  };
}
