// Renaming or moving a file: its new full name in the bucket.
import { useState, type FormEvent } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';

export function MoveDialog({ bucket, name, onDone, onClose }: { bucket: string; name: string; onDone: () => void; onClose: () => void }) {
  const [target, setTarget] = useState(name);
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await must(api.POST('/api/platform/storage/{ref}/v1/object/move', { params: { path: { ref: ref() } }, body: { bucketId: bucket, sourceKey: name, destinationKey: target } }));
      onDone();
      onClose();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <Dialog title={`Rename or move ${name}`} onClose={onClose}>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <label>New name (folders with /)<input required value={target} onChange={(e) => setTarget(e.target.value)} /></label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">Move</button>
        </div>
      </form>
    </Dialog>
  );
}
