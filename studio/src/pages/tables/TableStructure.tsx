// A table's structure: its name and description, its columns (each changed
// or dropped, previewed as SQL first), and its indexes and triggers.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { ColumnEditForm } from './ColumnEditForm.tsx';
import { TableSettingsForm } from './TableSettingsForm.tsx';
import type { Column, Table } from './values.ts';
import { CodeBlock } from '../../components/CodeBlock.tsx';
import { ScrollArea } from '../../components/ScrollArea.tsx';

export function TableStructure({ table, onChanged }: { table: Table; tables: Table[]; onChanged: () => void }) {
  const query = { params: { path: { ref: ref() }, query: { table_id: String(table.id) } } };
  // Read again whenever the table is (a change to it reloads it).
  const indexes = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/indexes', query)), [table]);
  const triggers = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/triggers', query)), [table]);
  const [editing, setEditing] = useState<Column | 'table'>();
  const [dropping, setDropping] = useState<{ column: Column; sql: string }>();
  const [error, setError] = useState<Error>();
  const columnPath = (name: string) => ({ params: { path: { ref: ref(), id: String(table.id), name } } });

  const drop = async (column: Column) => {
    try {
      const { sql } = await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}/columns/{name}', { ...columnPath(column.name), body: { preview: true } }));
      setDropping({ column, sql });
    } catch (e) {
      setError(e as Error);
    }
  };
  const fk = (c: Column) => (c.foreign_key ? `→ ${c.foreign_key.schema}.${c.foreign_key.table} (${c.foreign_key.column}), on delete ${c.foreign_key.on_delete.toLowerCase()}` : '');

  return (
    <div className="stack">
      <section className="card" aria-labelledby="structure-table">
        <div className="card-head">
          <h2 id="structure-table" className="card-title">Table</h2>
          <button type="button" onClick={() => setEditing('table')}>Rename or describe</button>
        </div>
        <p className="muted">{table.comment || 'No description.'}</p>
      </section>
      <section className="card" aria-labelledby="structure-columns">
        <div className="card-head"><h2 id="structure-columns" className="card-title">Columns</h2></div>
        <ErrorNote error={error} />
        <ScrollArea label={`Columns of ${table.name}`}>
          <table className="list-table">
            <caption className="sr-only">Columns of {table.name}</caption>
            <thead><tr><th scope="col">Column</th><th scope="col">Type</th><th scope="col">Default</th><th scope="col">Nullable</th><th scope="col">Keys</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {(table.columns ?? []).map((c) => (
                <tr key={c.name}>
                  <td>{c.name}</td>
                  <td className="mono small">{c.type}</td>
                  <td className="mono small">{c.is_identity ? `identity (${(c.identity_generation ?? '').toLowerCase()})` : c.default_value ?? ''}</td>
                  <td>{c.is_nullable ? 'yes' : 'no'}</td>
                  <td className="small">{[c.is_primary_key && 'primary key', c.is_unique && !c.is_primary_key && 'unique', fk(c)].filter(Boolean).join(', ')}</td>
                  <td className="actions">
                    <button type="button" aria-label={`Edit column ${c.name}`} onClick={() => setEditing(c)}>Edit</button>
                    <button type="button" className="danger" aria-label={`Drop column ${c.name}`} onClick={() => void drop(c)}>Drop</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollArea>
      </section>
      <section className="card" aria-labelledby="structure-indexes">
        <div className="card-head"><h2 id="structure-indexes" className="card-title">Indexes</h2></div>
        <ErrorNote error={indexes.error} />
        {indexes.value?.length === 0 ? <p className="muted small">No indexes.</p> : (
          <ul className="plain-list">
            {indexes.value?.map((i) => <li key={i.id}><strong>{i.name}</strong> <span className="muted small">{i.is_primary ? 'primary key' : i.is_unique ? 'unique' : ''} · {i.size} · {i.scans.toLocaleString()} scans</span><CodeBlock className="sql-preview small" label={`Definition of ${i.name}`}>{i.definition}</CodeBlock></li>)}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="structure-triggers">
        <div className="card-head"><h2 id="structure-triggers" className="card-title">Triggers</h2></div>
        <ErrorNote error={triggers.error} />
        {triggers.value?.length === 0 ? <p className="muted small">No triggers.</p> : (
          <ul className="plain-list">
            {triggers.value?.map((t) => <li key={t.id}><strong>{t.name}</strong> <span className="muted small">{t.activation.toLowerCase()} {t.events.join(' or ').toLowerCase()}, for each {t.orientation.toLowerCase()}: {t.function_schema}.{t.function_name}() · {t.enabled_mode.toLowerCase()}</span></li>)}
          </ul>
        )}
      </section>
      {editing === 'table' && <TableSettingsForm table={table} onClose={() => setEditing(undefined)} onDone={onChanged} />}
      {editing && editing !== 'table' && <ColumnEditForm table={table} column={editing} onClose={() => setEditing(undefined)} onDone={onChanged} />}
      {dropping && <SqlPreviewDialog title={`Drop column ${dropping.column.name} and its values`} sql={dropping.sql} danger onClose={() => setDropping(undefined)} onRun={async () => {
        await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}/columns/{name}', { ...columnPath(dropping.column.name), body: {} }));
        onChanged();
      }} />}
    </div>
  );
}
