// The one way features read settings: typed, from the database on each use,
// so a change applies to the next run without a restart. Secrets come back
// decrypted here and nowhere else.
import type pg from 'pg';

export type SettingValue = string | number | boolean;

export type Settings = {
  /** A setting in force, typed by its registry type (integer and number as numbers, boolean as a boolean). */
  get: (key: string) => Promise<SettingValue>;
  number: (key: string) => Promise<number>;
  string: (key: string) => Promise<string>;
  boolean: (key: string) => Promise<boolean>;
};

export function settingsAccessor(adminPool: pg.Pool, masterKey: string): Settings {
  const get = async (key: string): Promise<SettingValue> => {
    const { rows } = await adminPool.query<{ type: string; value: string }>('select type, value from ai.setting_value($1, $2)', [key, masterKey]);
    const row = rows[0];
    if (!row) throw new Error(`unknown setting ${key}`);
    if (row.type === 'integer' || row.type === 'number') return Number(row.value);
    if (row.type === 'boolean') return row.value === 'true';
    return row.value;
  };
  const typed = <T extends SettingValue>(kind: string) => async (key: string): Promise<T> => {
    const value = await get(key);
    if (typeof value !== kind) throw new Error(`setting ${key} is a ${typeof value}, not a ${kind}`);
    return value as T;
  };
  return { get, number: typed<number>('number'), string: typed<string>('string'), boolean: typed<boolean>('boolean') };
}
