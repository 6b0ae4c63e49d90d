// /api/agents/{id}/hooks (spec 2.3b, 4.9): an agent's hooks. `event` and
// `type` are stored as given (an unknown event never fires); `config` must be
// an object, and an http hook's must name its url. Hooks are immutable: list,
// create and delete only (listing and deleting are our decision; spec: not shown).
import type { Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { aiErrors } from '../errors.ts';
import { parse } from '../parse.ts';
import type { agentStore } from './store.ts';

type Agents = ReturnType<typeof agentStore>;
const HOOK = 'id, agent_id, event, type, config, matcher, enabled, position, created_at';

const Hook = z.object({
  event: z.string({ error: 'event is required' }).min(1, 'event is required').max(100),
  type: z.string({ error: 'type is required' }).min(1, 'type is required').max(50),
  config: z.record(z.string(), z.unknown(), { error: 'config must be an object' }).default({}),
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

export function hookRoutes(r: Router, calls: AiCalls, agents: Agents, idOf: (raw: unknown, what: string) => string): void {
  r.get('/:id/hooks', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    await agents.get(req, id);
    res.json(await calls.call(req, `select ${HOOK} from ai.agent_hooks where agent_id = $1 order by position, created_at, id`, [id]));
  }));
  r.post('/:id/hooks', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const h = parse(Hook, req.body);
    await agents.requireOwn(req, id);
    const [row] = await calls.call(req, `insert into ai.agent_hooks (agent_id, event, type, config, matcher, enabled, position)
        values ($1, $2, $3, $4, $5, $6, $7) returning ${HOOK}`, [id, h.event, h.type, JSON.stringify(h.config), h.matcher ?? null, h.enabled, h.position]);
    res.status(201).json(row);
  }));
  const immutable = route(async () => {
    throw aiErrors.methodNotAllowed('Hooks are immutable: delete the hook and create it again');
  });
  r.put('/:id/hooks/:hookId', immutable);
  r.patch('/:id/hooks/:hookId', immutable);
  r.delete('/:id/hooks/:hookId', route(async (req, res) => {
    const id = idOf(req.params.id, 'Agent');
    const hookId = idOf(req.params.hookId, 'Hook');
    await agents.get(req, id);
    const [seen] = await calls.call(req, 'select id from ai.agent_hooks where id = $1 and agent_id = $2', [hookId, id]);
    if (!seen) throw aiErrors.notFound('Hook');
    await agents.requireOwn(req, id);
    await calls.call(req, 'delete from ai.agent_hooks where id = $1 and agent_id = $2', [hookId, id]);
    res.json({ message: 'Hook deleted', id: hookId });
  }));
}
