// GET /api/config/kb-defaults (spec 4.13): strategies, retrievers, reranker,
// enrichment and extraction defaults, all from SQL (ai.kb_defaults), so a
// new strategy is a row and no contract change.
import express, { type Request, type Router } from 'express';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';

const kbDefaults = async (calls: AiCalls, req: Request) => (await calls.call<{ defaults: unknown }>(req, 'select ai.kb_defaults() as defaults', []))[0]!.defaults;

export function configRoutes(calls: AiCalls): Router {
  const r = express.Router();
  r.get('/kb-defaults', route(async (req, res) => {
    res.json(await kbDefaults(calls, req));
  }));
  return r;
}
