// Hooks of an agent (/api/agents/{id}/hooks) or an orchestration
// (/api/orchestrations/{id}/hooks), spec 2.3b, 4.9, 4.10. Agents store `event`
// and `type` as given (an unknown event never fires); orchestrations require
// `type` to be http, rule or approval and a `config`. `config` is an object,
// and an http hook's names its url. Hooks are immutable: list, create and
// delete only (for agents, listing and deleting are our decision; spec: not shown).
// config.headers is encrypted at rest and answered masked to all but the
// service role (sql/0056); the hook runner gets the values.
import type { Request, Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { idOf, parse } from '../parse.ts';
import type { ResourceSecrets } from '../tools/secrets.ts';

/** Where a family of hooks lives and how its parent is checked. */
export type HookParent = {
  table: 'ai.agent_hooks' | 'ai.orchestration_hooks';
  column: 'agent_id' | 'orchestration_id';
  label: string;
  /** 404 unless the caller can see the parent. */
  get: (req: Request, id: string) => Promise<unknown>;
  /** 404 or 403 unless the caller may change the parent. */
  requireOwn: (req: Request, id: string) => Promise<void>;
  /** Orchestrations: type one of http, rule, approval, and config required. */
  strict: boolean;
};

const HOOK_TYPES = ['http', 'rule', 'approval'] as const;

export const hookBody = (strict: boolean) => z.object({
  event: z.string({ error: 'event is required' }).min(1, 'event is required').max(100),
  type: strict
    ? z.enum(HOOK_TYPES, { error: 'type is required: http, rule or approval' })
    : z.string({ error: 'type is required' }).min(1, 'type is required').max(50),
  config: strict
    ? z.record(z.string(), z.unknown(), { error: 'config is required: an object' })
    : z.record(z.string(), z.unknown(), { error: 'config must be an object' }).default({}),
  matcher: z.string({ error: 'matcher must be a tool name' }).max(200).nullable().optional(),
  enabled: z.boolean({ error: 'enabled must be true or false' }).default(true),
  position: z.number({ error: 'position must be an integer' }).int('position must be an integer').min(-2147483648).max(2147483647).default(0),
}).superRefine((h, ctx) => {
  if (h.type !== 'http') return;
  const url = h.config.url;
  let ok = false;
  try {
    ok = typeof url === 'string' && ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {
    ok = false;
  }
  if (!ok) ctx.addIssue({ code: 'custom', path: ['config', 'url'], message: 'an http hook needs config.url, an http or https URL' });
});

export function hookRoutes(r: Router, calls: AiCalls, secrets: ResourceSecrets, parent: HookParent): void {
  const { table, column, label } = parent;
  const columns = `id, ${column}, event, type, config, matcher, enabled, position, created_at`;
  const body = hookBody(parent.strict);
  r.get('/:id/hooks', route(async (req, res) => {
    const id = idOf(req.params.id, label);
    await parent.get(req, id);
    const rows = await calls.call<{ id: string; config: Record<string, unknown> }>(req, `select ${columns} from ${table} where ${column} = $1 order by position, created_at, id`, [id]);
    res.json(req.auth!.role === 'service_role' ? await secrets.reveal(table, rows) : rows);
  }));
  r.post('/:id/hooks', route(async (req, res) => {
    const id = idOf(req.params.id, label);
    const h = parse(body, req.body);
    await parent.requireOwn(req, id);
    // config.headers is sealed in the same transaction: encrypted, stored masked (sql/0056).
    const row = await calls.transaction(req, async (c) => {
      const [made] = (await c.query<{ id: string }>(`insert into ${table} (${column}, event, type, config, matcher, enabled, position)
          values ($1, $2, $3, $4, $5, $6, $7) returning id`, [id, h.event, h.type, JSON.stringify(h.config), h.matcher ?? null, h.enabled, h.position])).rows;
      await secrets.seal(c, table, made!.id);
      return (await c.query<{ id: string; config: Record<string, unknown> }>(`select ${columns} from ${table} where id = $1`, [made!.id])).rows[0]!;
    });
    res.status(201).json(req.auth!.role === 'service_role' ? (await secrets.reveal(table, [row]))[0] : row);
  }));
  const immutable = route(async () => {
    throw aiErrors.methodNotAllowed('Hooks are immutable: delete the hook and create it again');
  });
  r.put('/:id/hooks/:hookId', immutable);
  r.patch('/:id/hooks/:hookId', immutable);
  r.delete('/:id/hooks/:hookId', route(async (req, res) => {
    const id = idOf(req.params.id, label);
    const hookId = idOf(req.params.hookId, 'Hook');
    await parent.get(req, id);
    const [seen] = await calls.call(req, `select id from ${table} where id = $1 and ${column} = $2`, [hookId, id]);
    if (!seen) throw aiErrors.notFound('Hook');
    await parent.requireOwn(req, id);
    await calls.call(req, `delete from ${table} where id = $1 and ${column} = $2`, [hookId, id]);
    res.json({ message: 'Hook deleted', id: hookId });
  }));
}
