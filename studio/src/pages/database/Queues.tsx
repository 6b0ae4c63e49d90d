// Database -> Queues: the pgmq queues (sql/0119) with their metrics; create,
// purge and drop each, every change shown as the pgmq call it runs.
import { useState } from 'react';
import { api, must, ref, type components } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { QueueForm } from './QueueForm.tsx';

type Queue = components['schemas']['Queue'];
const age = (seconds: number | null) => (seconds === null ? '' : seconds < 120 ? `${seconds} s` : seconds < 7200 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds / 3600)} h`);

export function Queues() {
  const queues = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/queues', { params: { path: { ref: ref() } } })), []);
  const [creating, setCreating] = useState(false);
  const [change, setChange] = useState<{ title: string; sql: string; run: () => Promise<void> }>();
  const [error, setError] = useState<Error>();
  const ask = async (q: Queue, what: 'purge' | 'drop') => {
    const p = { params: { path: { ref: ref(), name: q.queue_name } } };
    const call = (preview: boolean) => what === 'purge'
      ? must(api.POST('/api/platform/pg-meta/{ref}/queues/{name}/purge', { ...p, body: { preview } }))
      : must(api.DELETE('/api/platform/pg-meta/{ref}/queues/{name}', { ...p, body: { preview } }));
    try {
      const { sql } = await call(true);
      setChange({ title: `${what === 'purge' ? 'Delete every message of' : 'Drop'} ${q.queue_name}`, sql, run: async () => { await call(false); queues.reload(); } });
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <>
      <PageHeader title="Queues">
        <button type="button" onClick={queues.reload}>Refresh</button>
        <button type="button" className="primary" onClick={() => setCreating(true)}>New queue</button>
      </PageHeader>
      <p className="small muted">pgmq&apos;s API in SQL (<code>pgmq.send</code>, <code>pgmq.read</code>, <code>pgmq.archive</code>); clients use <code>pgmq_public</code> through the API once it is exposed and the queue&apos;s table grants and policies allow.</p>
      <ErrorNote error={queues.error ?? error} />
      {queues.loading && !queues.value ? <Loading what="queues" /> : (queues.value ?? []).length === 0 ? <p>No queues yet. Create one here or with <code>select pgmq.create(…)</code>.</p> : (
        <table className="list-table">
          <caption className="sr-only">Queues</caption>
          <thead><tr><th scope="col">Queue</th><th scope="col">Messages</th><th scope="col">Visible now</th><th scope="col">Oldest</th><th scope="col">Sent in all</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {(queues.value ?? []).map((q) => (
              <tr key={q.queue_name}>
                <td className="mono">{q.queue_name}{q.is_unlogged ? <span className="muted"> (unlogged)</span> : ''}</td>
                <td>{q.queue_length}</td>
                <td>{q.queue_visible_length}</td>
                <td>{age(q.oldest_msg_age_sec)}</td>
                <td>{q.total_messages}</td>
                <td className="actions">
                  <button type="button" onClick={() => void ask(q, 'purge')} aria-label={`Delete every message of ${q.queue_name}`}>Purge</button>
                  <button type="button" className="danger" onClick={() => void ask(q, 'drop')} aria-label={`Drop ${q.queue_name}`}>Drop</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating && <QueueForm onDone={queues.reload} onClose={() => setCreating(false)} />}
      {change && <SqlPreviewDialog title={change.title} sql={change.sql} danger onClose={() => setChange(undefined)} onRun={change.run} />}
    </>
  );
}
