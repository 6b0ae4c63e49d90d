// A table renamed or described, previewed as SQL, then run.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, must, ref } from '../../api/client.ts';
import { PreviewedChange } from '../../components/PreviewedChange.tsx';
import type { Table } from './values.ts';

export function TableSettingsForm({ table, onDone, onClose }: { table: Table; onDone: () => void; onClose: () => void }) {
  const navigate = useNavigate();
  const [name, setName] = useState(table.name);
  const [comment, setComment] = useState(table.comment ?? '');
  const body = () => ({ ...(name !== table.name ? { name } : {}), ...(comment !== (table.comment ?? '') ? { comment: comment || null } : {}) });
  const send = (preview: boolean) => must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { params: { path: { ref: ref(), id: String(table.id) } }, body: { ...body(), preview } }));
  return (
    <PreviewedChange title={`Table ${table.name}`} change={`Change table ${table.name}`} onClose={onClose}
      preview={async () => {
        if (Object.keys(body()).length === 0) throw new Error('Nothing changed');
        return (await send(true)).sql;
      }}
      run={async () => {
        await send(false);
        onDone();
        if (name !== table.name) navigate(`/tables/${encodeURIComponent(table.schema)}/${encodeURIComponent(name)}?view=structure`);
      }}>
      <label>Name<input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} /></label>
      <label>Description<textarea rows={3} value={comment} onChange={(e) => setComment(e.target.value)} /></label>
    </PreviewedChange>
  );
}
