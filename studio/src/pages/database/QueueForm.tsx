// A new queue: its name and whether it is unlogged (faster, lost in a
// crash); previewed as the pgmq.create call it runs.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { PreviewedChange } from '../../components/PreviewedChange.tsx';

export function QueueForm({ onDone, onClose }: { onDone: () => void; onClose: () => void }) {
  const [name, setName] = useState('');
  const [unlogged, setUnlogged] = useState(false);
  const send = (preview: boolean) => must(api.POST('/api/platform/pg-meta/{ref}/queues', { params: { path: { ref: ref() } }, body: { name, unlogged, preview } }));
  return (
    <PreviewedChange title="New queue" change="Create the queue" onClose={onClose}
      preview={async () => (await send(true)).sql}
      run={async () => {
        await send(false);
        onDone();
      }}>
      <label>Name<input required maxLength={47} pattern="[a-z0-9_]+" className="mono" value={name} onChange={(e) => setName(e.target.value)} aria-describedby="queue-name-help" /></label>
      <p id="queue-name-help" className="small muted">Lowercase letters, digits and underscores. Its messages live in <code>pgmq.q_{name || 'name'}</code>, archived ones in <code>pgmq.a_{name || 'name'}</code>.</p>
      <label className="inline"><input type="checkbox" checked={unlogged} onChange={(e) => setUnlogged(e.target.checked)} /> Unlogged (faster; its messages are lost if the server crashes)</label>
    </PreviewedChange>
  );
}
