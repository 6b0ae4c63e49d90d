// A new table: its name, row level security (on, as Supabase makes them),
// and its columns; previewed as the SQL the server will run, then run.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { PreviewedChange } from '../../components/PreviewedChange.tsx';
import { ColumnFields, columnBody, emptyColumn, TypeList, type ColumnSpec } from './ColumnFields.tsx';
import type { Table } from './values.ts';

export function TableForm({ schema, tables, onDone, onClose }: { schema: string; tables: Table[]; onDone: (name: string) => void; onClose: () => void }) {
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [rls, setRls] = useState(true);
  const [columns, setColumns] = useState<ColumnSpec[]>([{ ...emptyColumn(), name: 'id', type: 'bigint', identity: 'by default', primary_key: true, nullable: false }, { ...emptyColumn(), name: 'created_at', type: 'timestamptz', default: 'now()', nullable: false }]);
  const body = () => ({ schema, name, rls, ...(comment ? { comment } : {}), columns: columns.map((c) => columnBody(c, schema)) });
  const send = (preview: boolean) => must(api.POST('/api/platform/pg-meta/{ref}/tables', { params: { path: { ref: ref() } }, body: { ...body(), preview } }));

  return (
    <PreviewedChange title={`New table in ${schema}`} change={`Create ${schema}.${name}`} wide onClose={onClose}
      preview={async () => (await send(true)).sql}
      run={async () => {
        await send(false);
        onDone(name);
      }}>
      <TypeList />
      <label>Name<input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} /></label>
      <label>Description<input value={comment} onChange={(e) => setComment(e.target.value)} /></label>
      <label className="inline"><input type="checkbox" checked={rls} onChange={(e) => setRls(e.target.checked)} /> Row level security (recommended: without it, anyone with the anon key reads and writes every row)</label>
      {columns.map((c, i) => (
        <div key={i} className="column-row">
          <ColumnFields index={i} value={c} tables={tables} onChange={(next) => setColumns((cs) => cs.map((x, j) => (j === i ? next : x)))} />
          <button type="button" aria-label={`Remove column ${i + 1}`} onClick={() => setColumns((cs) => cs.filter((_, j) => j !== i))}>Remove</button>
        </div>
      ))}
      <button type="button" onClick={() => setColumns((cs) => [...cs, emptyColumn()])}>Add column</button>
    </PreviewedChange>
  );
}
