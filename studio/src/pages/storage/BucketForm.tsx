// A bucket, new or changed: public or not, its file size limit and the MIME
// types it takes (empty: any).
import { useState, type FormEvent } from 'react';
import { api, must, ref, type components } from '../../api/client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';

type Bucket = components['schemas']['Bucket'];

export function BucketForm({ bucket, onDone, onClose }: { bucket?: Bucket | undefined; onDone: () => void; onClose: () => void }) {
  const [name, setName] = useState(bucket?.name ?? '');
  const [isPublic, setPublic] = useState(bucket?.public ?? false);
  const [limit, setLimit] = useState(bucket?.file_size_limit ? String(bucket.file_size_limit) : '');
  const [types, setTypes] = useState((bucket?.allowed_mime_types ?? []).join(', '));
  const [error, setError] = useState<Error>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const rules = { public: isPublic, file_size_limit: limit ? Number(limit) : null, allowed_mime_types: types.trim() ? types.split(',').map((t) => t.trim()).filter(Boolean) : null };
    try {
      if (bucket) await must(api.PUT('/api/platform/storage/{ref}/v1/bucket/{id}', { params: { path: { ref: ref(), id: bucket.id } }, body: rules }));
      else await must(api.POST('/api/platform/storage/{ref}/v1/bucket', { params: { path: { ref: ref() } }, body: { name, ...rules } }));
      onDone();
      onClose();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <Dialog title={bucket ? `Edit bucket ${bucket.name}` : 'New bucket'} onClose={onClose}>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        {!bucket && <label>Name<input required pattern="[A-Za-z0-9_.\-]+" value={name} onChange={(e) => setName(e.target.value)} /></label>}
        <label className="inline"><input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} /> Public (anyone with a link reads its files)</label>
        <label>File size limit in bytes<input type="number" min={1} value={limit} placeholder="the server's limit" onChange={(e) => setLimit(e.target.value)} /></label>
        <label>Allowed MIME types<input value={types} placeholder="any, or like image/*, application/pdf" onChange={(e) => setTypes(e.target.value)} /></label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary">{bucket ? 'Save' : 'Create bucket'}</button>
        </div>
      </form>
    </Dialog>
  );
}
