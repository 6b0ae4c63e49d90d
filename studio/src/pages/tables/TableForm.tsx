// A new table: its name, row level security (on, as Supabase makes them),
// and its columns; previewed as the SQL the server will run, then run.
import { useState, type FormEvent } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { ColumnFields, columnBody, emptyColumn, TypeList, type ColumnSpec } from './ColumnFields.tsx';
import type { Table } from './values.ts';

export function TableForm({ schema, tables, onDone, onClose }: { schema: string; tables: Table[]; onDone: (name: string) => void; onClose: () => void }) {
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [rls, setRls] = useState(true);
  const [columns, setColumns] = useState<ColumnSpec[]>([{ ...emptyColumn(), name: 'id', type: 'bigint', identity: 'by default', primary_key: true, nullable: false }, { ...emptyColumn(), name: 'created_at', type: 'timestamptz', default: 'now()', nullable: false }]);
  const [preview, setPreview] = useState<string>();
  const [error, setError] = useState<Error>();
  const body = () => ({ schema, name, rls, ...(comment ? { comment } : {}), columns: columns.map((c) => columnBody(c, schema)) });
  const path = { params: { path: { ref: ref() } } };

  const review = async (e: FormEvent) => {
    e.preventDefault();
    try {
      setPreview((await must(api.POST('/api/platform/pg-meta/{ref}/tables', { ...path, body: { ...body(), preview: true } }))).sql);
    } catch (err) {
      setError(err as Error);
    }
  };
  if (preview) {
    return <SqlPreviewDialog title={`Create ${schema}.${name}`} sql={preview} onClose={() => setPreview(undefined)} onRun={async () => {
      await must(api.POST('/api/platform/pg-meta/{ref}/tables', { ...path, body: body() }));
      onDone(name);
      onClose();
    }} />;
  }
  return (
    <Dialog title={`New table in ${schema}`} onClose={onClose} wide>
      <form className="stack" onSubmit={(e) => void review(e)}>
        <TypeList />
        <label>Name<input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>Description<input value={comment} onChange={(e) => setComment(e.target.value)} /></label>
        <label className="inline"><input type="checkbox" checked={rls} onChange={(e) => setRls(e.target.checked)} /> Row level security (recommended: without it, anyone with the anon key reads and writes every row)</label>
        {columns.map((c, i) => (
          <div key={i} className="column-row">
            <ColumnFields index={i} value={c} tables={tables} onChange={(next) => setColumns((cs) => cs.map((x, j) => (j === i ? next : x)))} />
            <button type="button" aria-label={`Remove column ${i + 1}`} onClick={() => setColumns((cs) => cs.filter((_, j) => j !== i))}>Remove</button>
          </div>
        ))}
        <button type="button" onClick={() => setColumns((cs) => [...cs, emptyColumn()])}>Add column</button>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">Review SQL</button>
        </div>
      </form>
    </Dialog>
  );
}
