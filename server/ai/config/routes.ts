// GET /api/config/kb-defaults (spec 4.13): strategies, retrievers, reranker,
// enrichment and extraction defaults, all from SQL (ai.kb_defaults), so a
// new strategy is a row and no contract change.
import express, { type Router } from 'express';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';

export function configRoutes(calls: AiCalls): Router {
  const r = express.Router();
  r.get('/kb-defaults', route(async (req, res) => {
    const [row] = await calls.call<{ defaults: unknown }>(req, 'select ai.kb_defaults() as defaults', []);
    res.json(row!.defaults);
  }));
  return r;
}
