// The settings registry in SQL (sql/0020_ai_settings.sql), as the caller:
// signed-in users read, the service role writes (grants decide).
import type { Request } from 'express';
import type { AiCalls } from '../calls.ts';

export type SettingRow = { key: string; category: string; type: string; default_value: string; override: string | null; value: string; description: string;
  min_value: string | null; max_value: string | null; options: string[] | null; updated_at: Date | null };
export type CategoryRow = { name: string; label: string; description: string };

export function settingsStore(calls: AiCalls, masterKey: string) {
  return {
    list: (req: Request) => calls.call<SettingRow>(req, 'select * from ai.settings_list()', []),
    categories: (req: Request) => calls.call<CategoryRow>(req, 'select name, label, description from ai.setting_categories order by position', []),
    /** All or nothing; answers the keys written. */
    put: async (req: Request, settings: Record<string, unknown>) =>
      (await calls.call<{ key: string }>(req, 'select k as key from ai.put_settings($1, $2) k', [JSON.stringify(settings), masterKey])).map((r) => r.key),
    remove: async (req: Request, key: string) => (await calls.call<{ key: string; default_value: string }>(req, 'select * from ai.delete_setting($1)', [key]))[0]!,
    resetCategory: async (req: Request, category: string) => (await calls.call<{ key: string }>(req, 'select k as key from ai.reset_category($1) k', [category])).map((r) => r.key),
  };
}
