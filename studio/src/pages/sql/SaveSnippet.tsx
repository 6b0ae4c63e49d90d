// Saving the editor's text as a snippet (a new one, or the one open), with a name and a folder.
import { useState } from 'react';
import { api, must, type components } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';

export function SaveSnippet({ current, text, onClose, onSaved }: { current: components['schemas']['Snippet'] | undefined; text: string; onClose: () => void; onSaved: (id: string) => void }) {
  const [name, setName] = useState(current?.name ?? '');
  const [folder, setFolder] = useState(current?.folder ?? '');
  const [error, setError] = useState<Error>();
  const save = async () => {
    try {
      const saved = current
        ? await must(api.PATCH('/api/platform/studio/snippets/{id}', { params: { path: { id: current.id } }, body: { name, folder, sql: text } }))
        : await must(api.POST('/api/platform/studio/snippets', { body: { name, folder, sql: text } }));
      onSaved(saved.id);
      onClose();
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <Dialog title={current ? 'Save snippet' : 'Save as snippet'} onClose={onClose}>
      <form className="stack" onSubmit={(e) => { e.preventDefault(); void save(); }}>
        <label>Name<input required value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>Folder<input value={folder} placeholder="none" onChange={(e) => setFolder(e.target.value)} /></label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">Save</button>
        </div>
      </form>
    </Dialog>
  );
}
