// A new row (or a copy of one): a field per column fitted to its type; a
// field left on "default" is not sent, so the column's default applies
// (identity and generated columns always are); an empty field of a column
// that takes NULL is NULL. A foreign key's value can be looked up in the
// referenced table.
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { ForeignKeyPicker } from './ForeignKeyPicker.tsx';
import { editText, kindOf, parseInput, type Column, type Row } from './values.ts';

type Field = { text: string; mode: 'value' | 'default' | 'null' };

export function RowForm({ title, columns, from, onSave, onClose }: { title: string; columns: Column[]; from?: Row | undefined; onSave: (row: Row) => Promise<void>; onClose: () => void }) {
  const writable = columns.filter((c) => !c.is_generated && c.identity_generation !== 'ALWAYS');
  const [fields, setFields] = useState<Record<string, Field>>(() => Object.fromEntries(writable.map((c) => {
    const copy = from && !c.is_primary_key && !c.is_identity ? from[c.name] : undefined;
    const mode: Field['mode'] = copy !== undefined ? (copy === null ? 'null' : 'value') : c.default_value || c.is_identity ? 'default' : 'value';
    return [c.name, { text: editText(copy), mode }];
  })));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [picking, setPicking] = useState<Column>();
  const set = (name: string, patch: Partial<Field>) => setFields((f) => ({ ...f, [name]: { ...f[name]!, ...patch } }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const row: Row = {};
    for (const c of writable) {
      const f = fields[c.name]!;
      if (f.mode === 'default') continue;
      const parsed = parseInput(c, f.text, f.mode === 'null' || (f.text === '' && c.is_nullable));
      if (!parsed.ok) return setError(parsed.error);
      row[c.name] = parsed.value;
    }
    setBusy(true);
    try {
      await onSave(row);
      onClose();
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  return (
    <Dialog title={title} onClose={onClose} wide>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        {writable.map((c) => {
          const f = fields[c.name]!;
          const kind = kindOf(c);
          const id = `field-${c.name}`;
          return (
            <fieldset key={c.name} className="row-field">
              <legend>{c.name} <span className="muted">{c.type}{c.is_nullable ? '' : ', required'}</span></legend>
              <div className="row-field-line">
                <select aria-label={`${c.name}: value, default or NULL`} value={f.mode} onChange={(e) => set(c.name, { mode: e.target.value as Field['mode'] })}>
                  <option value="value">Value</option>
                  {(c.default_value || c.is_identity) && <option value="default">Default{c.default_value ? ` (${c.default_value})` : ''}</option>}
                  {c.is_nullable && <option value="null">NULL</option>}
                </select>
                {f.mode === 'value' && (kind === 'boolean' || kind === 'enum' ? (
                  <select id={id} aria-label={c.name} value={f.text} onChange={(e) => set(c.name, { text: e.target.value })}>
                    <option value="">Choose…</option>
                    {(kind === 'boolean' ? ['true', 'false'] : c.enums).map((v) => <option key={v} value={v}>{v}</option>)}
                  </select>
                ) : kind === 'json' || kind === 'array' ? (
                  <textarea id={id} aria-label={c.name} rows={3} value={f.text} placeholder={c.is_nullable ? 'NULL' : kind === 'array' ? '["a", "b"]' : '{"key": "value"}'} onChange={(e) => set(c.name, { text: e.target.value })} />
                ) : (
                  <input id={id} aria-label={c.name} type={kind === 'date' ? 'date' : 'text'} value={f.text} placeholder={c.is_nullable ? 'NULL' : undefined} onChange={(e) => set(c.name, { text: e.target.value })} />
                ))}
                {f.mode === 'value' && c.foreign_key && <button type="button" onClick={() => setPicking(c)}>Look up {c.foreign_key.table}</button>}
              </div>
            </fieldset>
          );
        })}
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary" disabled={busy}>Save row</button>
        </div>
      </form>
      {picking && <ForeignKeyPicker column={picking} onClose={() => setPicking(undefined)} onPick={(v) => set(picking.name, { text: editText(v), mode: 'value' })} />}
    </Dialog>
  );
}
