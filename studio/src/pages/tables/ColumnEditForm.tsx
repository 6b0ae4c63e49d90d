// A column changed: its name, type, default, nullability and uniqueness;
// only what changed is sent, previewed as SQL, then run.
import { useState, type FormEvent } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { TypeList } from './ColumnFields.tsx';
import type { Column, Table } from './values.ts';

export function ColumnEditForm({ table, column, onDone, onClose }: { table: Table; column: Column; onDone: () => void; onClose: () => void }) {
  const [name, setName] = useState(column.name);
  const [type, setType] = useState(column.type);
  const [dflt, setDefault] = useState(column.default_value ?? '');
  const [notNull, setNotNull] = useState(!column.is_nullable);
  const [unique, setUnique] = useState(column.is_unique);
  const [preview, setPreview] = useState<string>();
  const [error, setError] = useState<Error>();
  const path = { params: { path: { ref: ref(), id: String(table.id), name: column.name } } };
  const body = () => ({
    ...(name !== column.name ? { name } : {}), ...(type !== column.type ? { type } : {}),
    ...(dflt !== (column.default_value ?? '') ? { default: dflt || null } : {}),
    ...(notNull === column.is_nullable ? { nullable: !notNull } : {}), ...(unique !== column.is_unique ? { unique } : {}),
  });
  const review = async (e: FormEvent) => {
    e.preventDefault();
    if (Object.keys(body()).length === 0) return setError(new Error('Nothing changed'));
    try {
      setPreview((await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}/columns/{name}', { ...path, body: { ...body(), preview: true } }))).sql);
    } catch (err) {
      setError(err as Error);
    }
  };
  if (preview) {
    return <SqlPreviewDialog title={`Change column ${column.name}`} sql={preview} onClose={() => setPreview(undefined)} onRun={async () => {
      await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}/columns/{name}', { ...path, body: body() }));
      onDone();
      onClose();
    }} />;
  }
  return (
    <Dialog title={`Edit column ${column.name}`} onClose={onClose}>
      <form className="stack" onSubmit={(e) => void review(e)}>
        <TypeList />
        <label>Name<input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} /></label>
        {column.is_identity ? <p className="muted small">An identity column keeps its type here.</p> : <label>Type<input list="column-types" required value={type} onChange={(e) => setType(e.target.value)} /></label>}
        <label>Default<input value={dflt} placeholder="none" onChange={(e) => setDefault(e.target.value)} /></label>
        <label className="inline"><input type="checkbox" checked={notNull} onChange={(e) => setNotNull(e.target.checked)} /> Not null</label>
        <label className="inline"><input type="checkbox" checked={unique} onChange={(e) => setUnique(e.target.checked)} /> Unique</label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">Review SQL</button>
        </div>
      </form>
    </Dialog>
  );
}
