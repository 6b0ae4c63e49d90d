// PUT /api/workflows/{id}/graph: the whole draft graph replaced, or nothing
// changed; every rule is SQL's (ai.put_graph). Answers {error, error_code}.
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { errorShape, route } from '../../../errors.ts';
import { aiCodedShape } from '../../errors.ts';
import { parse } from '../../parse.ts';
import type { workflowStore } from '../store.ts';
import { workflowIdOf } from './ids.ts';

// The shape of blocks and edges is checked in SQL, which names the block or edge at fault.
export const GraphBody = z.object({ blocks: z.custom<unknown>((v) => v !== undefined, { message: 'blocks is required' }), edges: z.unknown().optional() });

export function graphRoutes(r: Router, workflows: ReturnType<typeof workflowStore>, json: RequestHandler): void {
  r.put('/:id/graph', errorShape(aiCodedShape), json, route(async (req, res) => {
    const id = workflowIdOf(req);
    const body = parse(GraphBody, req.body);
    res.json(await workflows.putGraph(req, id, body.blocks, body.edges));
  }));
}
