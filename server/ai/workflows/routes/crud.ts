// /api/workflows: list, create, get (with its graph), patch, delete (spec 4.7).
// Get answers {error, error_code}; the others {error}.
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { errorShape, route } from '../../../errors.ts';
import { aiCodedShape, aiErrors } from '../../errors.ts';
import { parse } from '../../parse.ts';
import type { workflowStore, WorkflowRow } from '../store.ts';
import { workflowIdOf } from './ids.ts';

export const CreateWorkflow = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200, 'name must be at most 200 characters'),
  description: z.string().max(10_000).nullable().optional(),
});
export const UpdateWorkflow = CreateWorkflow.partial();
export const WorkflowPage = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50), offset: z.coerce.number().int().min(0).default(0) });

export const workflowJson = (w: WorkflowRow) => ({
  id: w.id, name: w.name, description: w.description, owner_id: w.owner_id, deployed: w.deployed, active_version: w.active_version,
  armed_until: w.armed_until && new Date(w.armed_until) > new Date() ? w.armed_until : null, created_at: w.created_at, updated_at: w.updated_at,
});

export function crudRoutes(r: Router, workflows: ReturnType<typeof workflowStore>, json: RequestHandler): void {
  r.get('/', route(async (req, res) => {
    const q = parse(WorkflowPage, req.query);
    const page = await workflows.list(req, q.limit, q.offset);
    res.json({ items: page.items.map(workflowJson), total: page.total, limit: q.limit, offset: q.offset });
  }));

  // Before /:id, which it would otherwise be taken for.
  r.get('/block-types', route(async (req, res) => {
    res.json(await workflows.blockTypes(req));
  }));

  r.post('/', json, route(async (req, res) => {
    const body = parse(CreateWorkflow, req.body);
    const created = await workflows.create(req, body.name, body.description ?? null);
    res.status(201).json({ ...workflowJson(created), blocks: [], edges: [] });
  }));

  r.get('/:id', errorShape(aiCodedShape), route(async (req, res) => {
    const w = await workflows.get(req, workflowIdOf(req));
    res.json({ ...workflowJson(w), blocks: w.graph.blocks, edges: w.graph.edges });
  }));

  r.patch('/:id', json, route(async (req, res) => {
    const id = workflowIdOf(req);
    const body = parse(UpdateWorkflow, req.body);
    if (body.name === undefined && body.description === undefined) throw aiErrors.validation('No fields to update: send name or description');
    res.json(workflowJson(await workflows.update(req, id, body)));
  }));

  r.delete('/:id', route(async (req, res) => {
    const id = workflowIdOf(req);
    await workflows.remove(req, id);
    res.json({ message: 'Workflow deleted', id });
  }));
}
