// A workflow's triggers beyond its webhook (sql/0124): a schedule, a row
// change or a queue. SQL (ai.add_workflow_trigger) checks who may add which
// and installs it; the routes validate the shape and pass it on. Answers {error}.
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { route } from '../../../errors.ts';
import type { AiCalls } from '../../calls.ts';
import { aiErrors } from '../../errors.ts';
import { parse, UUID } from '../../parse.ts';
import { workflowIdOf } from './ids.ts';

const name = z.string().trim().min(1).max(63);
export const AddTrigger = z.union([
  z.object({ type: z.literal('schedule'), schedule: z.string().trim().min(1).max(200) }),
  z.object({
    type: z.literal('row_change'), schema: name.optional(), table: name,
    events: z.array(z.enum(['INSERT', 'UPDATE', 'DELETE'])).min(1).max(3).optional(),
    condition: z.record(z.string(), z.unknown()).nullable().optional(),
  }),
  z.object({
    type: z.literal('queue'), queue: name, max_attempts: z.number().int().min(1).max(100).optional(),
    visibility_timeout: z.number().int().min(10).max(86_400).optional(), dead_letter_queue: name.optional(),
  }),
], { error: 'type: schedule, row_change or queue' });

type TriggerRow = { id: string; workflow_id: string; type: string; config: Record<string, unknown>; created_at: Date };
const triggerJson = (t: TriggerRow) => ({ id: t.id, workflow_id: t.workflow_id, type: t.type, config: t.config, created_at: t.created_at });

export function triggerRoutes(r: Router, calls: AiCalls, json: RequestHandler): void {
  r.get('/:id/triggers', route(async (req, res) => {
    const id = workflowIdOf(req);
    const [workflow] = await calls.call(req, 'select 1 from ai.workflows where id = $1', [id]);
    if (!workflow) throw aiErrors.workflowNotFound();
    res.json((await calls.call<TriggerRow>(req, 'select * from ai.workflow_triggers where workflow_id = $1 order by created_at, id', [id])).map(triggerJson));
  }));

  r.post('/:id/triggers', json, route(async (req, res) => {
    const { type, ...config } = parse(AddTrigger, req.body);
    const [row] = await calls.call<TriggerRow>(req, 'select * from ai.add_workflow_trigger($1, $2, $3)', [workflowIdOf(req), type, JSON.stringify(config)]);
    res.status(201).json(triggerJson(row!));
  }));

  r.delete('/:id/triggers/:triggerId', route(async (req, res) => {
    const triggerId = String(req.params.triggerId);
    if (!UUID.test(triggerId)) throw aiErrors.notFound('Trigger');
    await calls.call(req, 'select ai.remove_workflow_trigger($1, $2)', [workflowIdOf(req), triggerId.toLowerCase()]);
    res.json({ message: 'Trigger deleted', id: triggerId.toLowerCase() });
  }));
}
