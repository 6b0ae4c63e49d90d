// A column changed: its name, type, default, nullability and uniqueness;
// only what changed is sent, previewed as SQL, then run.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { PreviewedChange } from '../../components/PreviewedChange.tsx';
import { TypeList } from './ColumnFields.tsx';
import type { Column, Table } from './values.ts';

export function ColumnEditForm({ table, column, onDone, onClose }: { table: Table; column: Column; onDone: () => void; onClose: () => void }) {
  const [name, setName] = useState(column.name);
  const [type, setType] = useState(column.type);
  const [dflt, setDefault] = useState(column.default_value ?? '');
  const [notNull, setNotNull] = useState(!column.is_nullable);
  const [unique, setUnique] = useState(column.is_unique);
  const body = () => ({
    ...(name !== column.name ? { name } : {}), ...(type !== column.type ? { type } : {}),
    ...(dflt !== (column.default_value ?? '') ? { default: dflt || null } : {}),
    ...(notNull === column.is_nullable ? { nullable: !notNull } : {}), ...(unique !== column.is_unique ? { unique } : {}),
  });
  const send = (preview: boolean) => must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}/columns/{name}', { params: { path: { ref: ref(), id: String(table.id), name: column.name } }, body: { ...body(), preview } }));
  return (
    <PreviewedChange title={`Edit column ${column.name}`} change={`Change column ${column.name}`} onClose={onClose}
      preview={async () => {
        if (Object.keys(body()).length === 0) throw new Error('Nothing changed');
        return (await send(true)).sql;
      }}
      run={async () => {
        await send(false);
        onDone();
      }}>
      <TypeList />
      <label>Name<input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} /></label>
      {column.is_identity ? <p className="muted small">An identity column keeps its type here.</p> : <label>Type<input list="column-types" required value={type} onChange={(e) => setType(e.target.value)} /></label>}
      <label>Default<input value={dflt} placeholder="none" onChange={(e) => setDefault(e.target.value)} /></label>
      <label className="inline"><input type="checkbox" checked={notNull} onChange={(e) => setNotNull(e.target.checked)} /> Not null</label>
      <label className="inline"><input type="checkbox" checked={unique} onChange={(e) => setUnique(e.target.checked)} /> Unique</label>
    </PreviewedChange>
  );
}
