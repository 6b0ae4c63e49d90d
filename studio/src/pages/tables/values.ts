// A column's values as the grid shows them and as the editors read them back:
// each kind of PostgreSQL type gets its editor, and what an operator types is
// parsed for it (JSON must be JSON, numbers numbers) before anything is sent.
import type { components } from '../../api/client.ts';

export type Column = components['schemas']['Column'];
export type Table = components['schemas']['Table'];
export type Row = Record<string, unknown>;

export type Kind = 'boolean' | 'integer' | 'number' | 'json' | 'array' | 'enum' | 'date' | 'timestamp' | 'text';

const INTEGERS = new Set(['int2', 'int4', 'int8', 'oid']);
const NUMBERS = new Set(['numeric', 'float4', 'float8', 'money']);

export function kindOf(c: Column): Kind {
  if (c.format === 'bool') return 'boolean';
  if (INTEGERS.has(c.format)) return 'integer';
  if (NUMBERS.has(c.format)) return 'number';
  if (c.format === 'json' || c.format === 'jsonb') return 'json';
  if (c.format.startsWith('_')) return 'array';
  if (c.enums.length > 0) return 'enum';
  if (c.format === 'date') return 'date';
  if (c.format === 'timestamp' || c.format === 'timestamptz') return 'timestamp';
  return 'text';
}

/** A value as text in a cell: NULL aside, JSON for structures. */
export function display(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** What the editor starts with. */
export function editText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v, null, 2);
  return String(v);
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** What was typed, as the value to send; an empty field is NULL where the column allows it. */
export function parseInput(c: Column, text: string, asNull: boolean): Parsed {
  if (asNull) return c.is_nullable ? { ok: true, value: null } : { ok: false, error: `${c.name} cannot be NULL` };
  const kind = kindOf(c);
  const t = text.trim();
  switch (kind) {
    case 'boolean':
      return t === 'true' || t === 'false' ? { ok: true, value: t === 'true' } : { ok: false, error: `${c.name}: true or false` };
    case 'integer':
      return /^-?\d+$/.test(t) ? { ok: true, value: t } : { ok: false, error: `${c.name}: a whole number` };
    case 'number':
      return t !== '' && !Number.isNaN(Number(t)) ? { ok: true, value: t } : { ok: false, error: `${c.name}: a number` };
    case 'json':
    case 'array':
      try {
        const value: unknown = JSON.parse(text);
        if (kind === 'array' && !Array.isArray(value)) return { ok: false, error: `${c.name}: a JSON array, like ["a", "b"]` };
        return { ok: true, value };
      } catch (e) {
        return { ok: false, error: `${c.name} is not valid JSON: ${(e as Error).message}` };
      }
    default:
      return { ok: true, value: text };
  }
}

/** The values of the primary key of a row: how the server finds it again. */
export function keyOf(table: Table, row: Row): Row {
  return Object.fromEntries(table.primary_keys.map((k) => [k.name, row[k.name]]));
}

/** "1 row", "2 rows", "10,000 rows". */
export const plural = (n: number, what: string) => `${n.toLocaleString()} ${what}${n === 1 ? '' : 's'}`;
