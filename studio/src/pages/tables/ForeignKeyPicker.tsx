// Choosing a foreign key's value by looking up the referenced row: the
// referenced table's rows, searched by any of its text columns.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { display, type Column } from './values.ts';

export function ForeignKeyPicker({ column, onPick, onClose }: { column: Column; onPick: (value: unknown) => void; onClose: () => void }) {
  const fk = column.foreign_key!;
  const [search, setSearch] = useState('');
  const target = useAsync(async () => {
    const tables = await must(api.GET('/api/platform/pg-meta/{ref}/tables', { params: { path: { ref: ref() }, query: { schema: fk.schema, include_columns: 'true' } } }));
    return tables.find((t) => t.name === fk.table);
  }, [fk.schema, fk.table]);
  const textColumn = target.value?.columns?.find((c) => c.format === 'text' || c.format === 'varchar')?.name;
  const rows = useAsync(async () => {
    if (!target.value) return [];
    const filters = search && textColumn ? [{ column: textColumn, op: 'ilike' as const, value: `%${search}%` }] : [];
    return (await must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/rows/query', { params: { path: { ref: ref(), id: String(target.value.id) } }, body: { filters, limit: 50 } }))).rows;
  }, [target.value?.id, search, textColumn]);
  const shown = target.value?.columns?.slice(0, 4) ?? [];
  return (
    <Dialog title={`Choose a row of ${fk.schema}.${fk.table}`} onClose={onClose} wide>
      {textColumn && <label>Search {textColumn}<input type="search" value={search} onChange={(e) => setSearch(e.target.value)} /></label>}
      <ErrorNote error={target.error ?? rows.error} />
      <table className="list-table">
        <caption className="sr-only">Rows of {fk.table}</caption>
        <thead><tr>{shown.map((c) => <th key={c.name} scope="col">{c.name}</th>)}<th scope="col"><span className="sr-only">Choose</span></th></tr></thead>
        <tbody>
          {(rows.value ?? []).map((r, i) => (
            <tr key={i}>
              {shown.map((c) => <td key={c.name}>{display(r[c.name])}</td>)}
              <td><button type="button" onClick={() => { onPick(r[fk.column]); onClose(); }}>Use {display(r[fk.column])}</button></td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
