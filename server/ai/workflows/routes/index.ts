// /api/workflows: the routes by concern (crud, graph, deploy; execute and
// executions arrive with the engine), over one store.
import express, { type RequestHandler, type Router } from 'express';
import type { AiCalls } from '../../calls.ts';
import { workflowStore } from '../store.ts';
import { crudRoutes } from './crud.ts';
import { deployRoutes } from './deploy.ts';
import { graphRoutes } from './graph.ts';

/** `json` parses a body; each route places it after the error shape it declares. */
export function workflowRoutes(calls: AiCalls, json: RequestHandler): Router {
  const r = express.Router();
  const workflows = workflowStore(calls);
  crudRoutes(r, workflows, json);
  graphRoutes(r, workflows, json);
  deployRoutes(r, workflows);
  return r;
}
