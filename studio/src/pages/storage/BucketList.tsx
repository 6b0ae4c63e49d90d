// The buckets: made, changed, emptied and deleted here (emptying and
// deleting are asked first, and go to the audit log).
import { useState } from 'react';
import { Link } from 'react-router';
import { api, must, ref, type components } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { BucketForm } from './BucketForm.tsx';

type Bucket = components['schemas']['Bucket'];

export function BucketList() {
  const notify = useToast();
  const buckets = useAsync(() => must(api.GET('/api/platform/storage/{ref}/v1/bucket', { params: { path: { ref: ref() } } })), []);
  const [form, setForm] = useState<{ bucket?: Bucket }>();
  const [confirm, setConfirm] = useState<{ bucket: Bucket; empty: boolean }>();
  return (
    <>
      <PageHeader title="Storage"><button type="button" className="primary" onClick={() => setForm({})}>New bucket</button></PageHeader>
      <ErrorNote error={buckets.error} />
      {buckets.loading && !buckets.value ? <Loading what="buckets" /> : buckets.value?.length === 0 ? <p>No buckets yet.</p> : (
        <table className="list-table">
          <caption className="sr-only">Buckets</caption>
          <thead><tr><th scope="col">Bucket</th><th scope="col">Access</th><th scope="col">Size limit</th><th scope="col">MIME types</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {buckets.value?.map((b) => (
              <tr key={b.id}>
                <td><Link to={`/storage/${encodeURIComponent(b.id)}`}>{b.name}</Link></td>
                <td>{b.public ? <span className="badge badge-warn">public</span> : 'private'}</td>
                <td>{b.file_size_limit ? `${b.file_size_limit.toLocaleString()} bytes` : 'server limit'}</td>
                <td>{b.allowed_mime_types?.join(', ') || 'any'}</td>
                <td className="actions">
                  <button type="button" onClick={() => setForm({ bucket: b })}>Edit</button>
                  <button type="button" onClick={() => setConfirm({ bucket: b, empty: true })}>Empty</button>
                  <button type="button" className="danger" onClick={() => setConfirm({ bucket: b, empty: false })}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {form && <BucketForm bucket={form.bucket} onClose={() => setForm(undefined)} onDone={() => { buckets.reload(); notify('Bucket saved'); }} />}
      {confirm && (
        <ConfirmDialog title={`${confirm.empty ? 'Empty' : 'Delete'} bucket ${confirm.bucket.name}`} action={confirm.empty ? 'Empty bucket' : 'Delete bucket'}
          message={confirm.empty ? 'Every file in it is deleted. This cannot be undone.' : 'The bucket is deleted (it must be empty first).'}
          onClose={() => setConfirm(undefined)}
          onConfirm={async () => {
            const path = { params: { path: { ref: ref(), id: confirm.bucket.id } } };
            if (confirm.empty) await must(api.POST('/api/platform/storage/{ref}/v1/bucket/{id}/empty', path));
            else await must(api.DELETE('/api/platform/storage/{ref}/v1/bucket/{id}', path));
            notify(`Bucket ${confirm.bucket.name} ${confirm.empty ? 'emptied' : 'deleted'}`);
            buckets.reload();
          }} />
      )}
    </>
  );
}
