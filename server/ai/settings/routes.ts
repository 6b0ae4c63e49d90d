// /api/settings (spec 4.17): the registry with overrides, masked; changes
// with the service-role key, validated all-or-nothing in SQL.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { parse } from '../parse.ts';
import { settingsStore } from './store.ts';

export const SettingsPutBody = z.object({ settings: z.record(z.string(), z.unknown()) });
export const SettingsResetBody = z.object({ category: z.string().min(1, 'category is required') });

export function settingsRoutes(calls: AiCalls, masterKey: string): Router {
  const r = express.Router();
  const settings = settingsStore(calls, masterKey);

  r.get('/', route(async (req, res) => {
    const [rows, categories] = await Promise.all([settings.list(req), settings.categories(req)]);
    res.json({
      settings: rows.map((s) => ({
        key: s.key, category: s.category, type: s.type, default: s.type === 'secret' ? '' : s.default_value, override: s.override, value: s.value,
        description: s.description, ...(s.min_value !== null ? { min: Number(s.min_value) } : {}), ...(s.max_value !== null ? { max: Number(s.max_value) } : {}),
        ...(s.options ? { options: s.options } : {}), is_overridden: s.override !== null, updated_at: s.updated_at,
      })),
      categories: categories.map((c) => ({ ...c, count: rows.filter((s) => s.category === c.name).length })),
    });
  }));

  r.put('/', route(async (req, res) => {
    const body = parse(SettingsPutBody, req.body);
    res.json({ updated: await settings.put(req, body.settings) });
  }));

  r.delete('/:key', route(async (req, res) => {
    const row = await settings.remove(req, String(req.params.key));
    res.json({ key: row.key, default: row.default_value });
  }));

  r.post('/reset-category', route(async (req, res) => {
    const body = parse(SettingsResetBody, req.body);
    res.json({ category: body.category, reset: await settings.resetCategory(req, body.category) });
  }));

  return r;
}
