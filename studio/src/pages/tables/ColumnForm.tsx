// A column added to a table, previewed as SQL, then run.
import { useState, type FormEvent } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { ColumnFields, columnBody, emptyColumn, TypeList } from './ColumnFields.tsx';
import type { Table } from './values.ts';

export function ColumnForm({ table, tables, onDone, onClose }: { table: Table; tables: Table[]; onDone: () => void; onClose: () => void }) {
  const [column, setColumn] = useState(emptyColumn());
  const [preview, setPreview] = useState<string>();
  const [error, setError] = useState<Error>();
  const path = { params: { path: { ref: ref(), id: String(table.id) } } };
  const review = async (e: FormEvent) => {
    e.preventDefault();
    try {
      setPreview((await must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/columns', { ...path, body: { ...columnBody(column, table.schema), preview: true } }))).sql);
    } catch (err) {
      setError(err as Error);
    }
  };
  if (preview) {
    return <SqlPreviewDialog title={`Add ${column.name} to ${table.name}`} sql={preview} onClose={() => setPreview(undefined)} onRun={async () => {
      await must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/columns', { ...path, body: columnBody(column, table.schema) }));
      onDone();
      onClose();
    }} />;
  }
  return (
    <Dialog title={`Add a column to ${table.name}`} onClose={onClose} wide>
      <form className="stack" onSubmit={(e) => void review(e)}>
        <TypeList />
        <ColumnFields index={0} value={column} tables={tables} onChange={setColumn} />
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">Review SQL</button>
        </div>
      </form>
    </Dialog>
  );
}
