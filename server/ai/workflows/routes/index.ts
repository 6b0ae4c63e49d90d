// /api/workflows: the routes by concern (crud, graph, deploy; execute and
// executions arrive with the engine), over one store.
import type { RunServices } from '../../runs/follow.ts';
import express, { type RequestHandler, type Router } from 'express';
import type { AiCalls } from '../../calls.ts';
import { workflowStore } from '../store.ts';
import { crudRoutes } from './crud.ts';
import { deployRoutes } from './deploy.ts';
import { graphRoutes } from './graph.ts';
import { executeRoutes } from './execute.ts';
import { triggerRoutes } from './triggers.ts';
import type { WorkflowRuns } from '../runs.ts';

/** `json` parses a body; each route places it after the error shape it declares. */
export function workflowRoutes(deps: { calls: AiCalls; json: RequestHandler; runs: WorkflowRuns; events: RunServices }): Router {
  const r = express.Router();
  const workflows = workflowStore(deps.calls);
  crudRoutes(r, workflows, deps.json);
  graphRoutes(r, workflows, deps.json);
  deployRoutes(r, workflows);
  triggerRoutes(r, deps.calls, deps.json);
  executeRoutes(r, { runs: deps.runs, store: workflows, json: deps.json, events: deps.events });
  return r;
}
