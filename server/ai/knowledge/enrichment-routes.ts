// /api/knowledge-bases/{id}/enrichment (spec 2.11, 3.3, 4.13): the config
// and its metadata table (rules and states in sql/0045), runs, results.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import { idOf, parse, UUID } from '../parse.ts';
import type { KbStore } from './store.ts';

export const EnrichmentBody = z.object({
  fields: z.array(z.unknown(), { error: 'fields is required: an array of {name, description, type, enum_values}' }),
  llm_model: z.string({ error: 'llm_model must be a string' }).min(1, 'llm_model must not be empty').optional(),
  max_tokens: z.number({ error: 'max_tokens must be an integer' }).int('max_tokens must be an integer').optional(),
  use_multimodal: z.boolean({ error: 'use_multimodal must be a boolean' }).optional(),
});
const itemIdsRule = 'item_ids is required: item ids separated by commas';
export const EnrichmentResultsQuery = z.object({
  item_ids: z.string({ error: itemIdsRule }).meta({ description: 'Item ids separated by commas' })
    .transform((raw) => raw.split(',').map((s) => s.trim()).filter(Boolean))
    .superRefine((ids, ctx) => {
      if (!ids.length) return void ctx.addIssue({ code: 'custom', message: itemIdsRule });
      const bad = ids.find((s) => !UUID.test(s));
      if (bad) ctx.addIssue({ code: 'custom', message: `${bad} is not an item id` });
    })
    .transform((ids) => ids.map((s) => s.toLowerCase())),
});
export const EnrichmentRunBody = z.object({ incremental: z.boolean({ error: 'incremental must be a boolean' }).optional(), retry_failed: z.boolean({ error: 'retry_failed must be a boolean' }).optional() });

export function kbEnrichmentRoutes(kbs: KbStore): Router {
  const r = express.Router({ mergeParams: true });
  const kbId = (req: express.Request) => idOf(req.params.id, 'Knowledge base');

  r.put('/enrichment', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(EnrichmentBody, req.body);
    res.json(await kbs.putEnrichment(req, id, body));
  }));

  r.get('/enrichment', route(async (req, res) => {
    const id = kbId(req);
    await kbs.get(req, id);
    res.json({ config: await kbs.enrichment(req, id) });
  }));

  r.delete('/enrichment', route(async (req, res) => {
    const id = kbId(req);
    await kbs.deleteEnrichment(req, id);
    res.json({ message: 'Enrichment config and metadata table deleted', knowledge_base_id: id });
  }));

  r.post('/enrichment/run', route(async (req, res) => {
    const id = kbId(req);
    const body = parse(EnrichmentRunBody, req.body ?? {});
    res.status(202).json(await kbs.runEnrichment(req, id, body.incremental ?? false, body.retry_failed ?? false));
  }));

  // Values per item from the metadata table; items whose enrichment failed are in item_errors.
  r.get('/enrichment/results', route(async (req, res) => {
    const id = kbId(req);
    const { item_ids: ids } = parse(EnrichmentResultsQuery, req.query);
    res.json(await kbs.enrichmentResults(req, id, ids));
  }));

  return r;
}
