// GET /api/usage: model calls in a window with totals by model and feature.
// A user sees their own calls (ai.usage policy); the service role sees all
// and may filter by user.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { parse } from '../parse.ts';
import { usageReport } from './ledger.ts';

export const UsageQuery = z.object({
  from: z.iso.datetime({ offset: true, message: 'from must be an ISO 8601 timestamp' }).optional(),
  to: z.iso.datetime({ offset: true, message: 'to must be an ISO 8601 timestamp' }).optional(),
  feature: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  user: z.uuid({ message: 'user must be a user id' }).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export function usageRoutes(calls: AiCalls): Router {
  const r = express.Router();
  r.get('/', route(async (req, res) => {
    const q = parse(UsageQuery, req.query);
    res.json(await usageReport(calls, req, q));
  }));
  return r;
}
