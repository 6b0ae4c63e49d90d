// A table renamed or described, previewed as SQL, then run.
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, must, ref } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import type { Table } from './values.ts';

export function TableSettingsForm({ table, onDone, onClose }: { table: Table; onDone: () => void; onClose: () => void }) {
  const navigate = useNavigate();
  const [name, setName] = useState(table.name);
  const [comment, setComment] = useState(table.comment ?? '');
  const [preview, setPreview] = useState<string>();
  const [error, setError] = useState<Error>();
  const path = { params: { path: { ref: ref(), id: String(table.id) } } };
  const body = () => ({ ...(name !== table.name ? { name } : {}), ...(comment !== (table.comment ?? '') ? { comment: comment || null } : {}) });
  const review = async (e: FormEvent) => {
    e.preventDefault();
    if (Object.keys(body()).length === 0) return setError(new Error('Nothing changed'));
    try {
      setPreview((await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: { ...body(), preview: true } }))).sql);
    } catch (err) {
      setError(err as Error);
    }
  };
  if (preview) {
    return <SqlPreviewDialog title={`Change table ${table.name}`} sql={preview} onClose={() => setPreview(undefined)} onRun={async () => {
      await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: body() }));
      onDone();
      onClose();
      if (name !== table.name) navigate(`/tables/${encodeURIComponent(table.schema)}/${encodeURIComponent(name)}?view=structure`);
    }} />;
  }
  return (
    <Dialog title={`Table ${table.name}`} onClose={onClose}>
      <form className="stack" onSubmit={(e) => void review(e)}>
        <label>Name<input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>Description<textarea rows={3} value={comment} onChange={(e) => setComment(e.target.value)} /></label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">Review SQL</button>
        </div>
      </form>
    </Dialog>
  );
}
