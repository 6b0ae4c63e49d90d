// /api/settings (spec 4.17): the registry with overrides, masked; changes
// with the service-role key, validated all-or-nothing in SQL.
import express, { type Router } from 'express';
import { z } from 'zod';
import { route } from '../../errors.ts';
import type { AiCalls } from '../calls.ts';
import { parse } from '../parse.ts';

type Row = { key: string; category: string; type: string; default_value: string; override: string | null; value: string; description: string;
  min_value: string | null; max_value: string | null; options: string[] | null; updated_at: Date | null };

const PutBody = z.object({ settings: z.record(z.string(), z.unknown()) });
const ResetBody = z.object({ category: z.string().min(1, 'category is required') });

export function settingsRoutes(calls: AiCalls, masterKey: string): Router {
  const r = express.Router();

  r.get('/', route(async (req, res) => {
    const [rows, categories] = await Promise.all([
      calls.call<Row>(req, 'select * from ai.settings_list()', []),
      calls.call<{ name: string; label: string; description: string }>(req, 'select name, label, description from ai.setting_categories order by position', []),
    ]);
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
    const body = parse(PutBody, req.body);
    const rows = await calls.call<{ put_settings: string }>(req, 'select ai.put_settings($1, $2)', [JSON.stringify(body.settings), masterKey]);
    res.json({ updated: rows.map((row) => row.put_settings) });
  }));

  r.delete('/:key', route(async (req, res) => {
    const [row] = await calls.call<{ key: string; default_value: string }>(req, 'select * from ai.delete_setting($1)', [req.params.key]);
    res.json({ key: row!.key, default: row!.default_value });
  }));

  r.post('/reset-category', route(async (req, res) => {
    const body = parse(ResetBody, req.body);
    const rows = await calls.call<{ reset_category: string }>(req, 'select ai.reset_category($1)', [body.category]);
    res.json({ category: body.category, reset: rows.map((row) => row.reset_category) });
  }));

  return r;
}
