// A column added to a table, previewed as SQL, then run.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { PreviewedChange } from '../../components/PreviewedChange.tsx';
import { ColumnFields, columnBody, emptyColumn, TypeList } from './ColumnFields.tsx';
import type { Table } from './values.ts';

export function ColumnForm({ table, tables, onDone, onClose }: { table: Table; tables: Table[]; onDone: () => void; onClose: () => void }) {
  const [column, setColumn] = useState(emptyColumn());
  const send = (preview: boolean) => must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/columns', { params: { path: { ref: ref(), id: String(table.id) } }, body: { ...columnBody(column, table.schema), preview } }));
  return (
    <PreviewedChange title={`Add a column to ${table.name}`} change={`Add ${column.name} to ${table.name}`} wide onClose={onClose}
      preview={async () => (await send(true)).sql}
      run={async () => {
        await send(false);
        onDone();
      }}>
      <TypeList />
      <ColumnFields index={0} value={column} tables={tables} onChange={setColumn} />
    </PreviewedChange>
  );
}
