// One table: its warnings (row level security off where REST serves it),
// its actions, filters, and its rows in the grid, edited in place. Alt+N
// adds a row.
import { useEffect, useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useToast } from '../../app/toasts.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { ColumnForm } from './ColumnForm.tsx';
import { CsvImport } from './CsvImport.tsx';
import { DataGrid } from './DataGrid.tsx';
import { FilterBar } from './FilterBar.tsx';
import { RowForm } from './RowForm.tsx';
import { useRows, type Filter, type Order } from './useRows.ts';
import { keyOf, type Row, type Table } from './values.ts';

const plural = (n: number, what: string) => `${n.toLocaleString()} ${what}${n === 1 ? '' : 's'}`;

type Modal = { kind: 'row'; from?: Row | undefined } | { kind: 'column' } | { kind: 'import' } | { kind: 'delete-rows' } | { kind: 'sql'; title: string; sql: string; run: () => Promise<void>; danger?: boolean };

export function TableView({ table, tables, onChanged, onDropped }: { table: Table; tables: Table[]; onChanged: () => void; onDropped: () => void }) {
  const notify = useToast();
  const [filters, setFilters] = useState<Filter[]>([]);
  const [order, setOrder] = useState<Order[]>([]);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [modal, setModal] = useState<Modal>();
  const data = useRows(table.id, filters, order);
  const columns = table.columns ?? [];
  const editable = table.primary_keys.length > 0;
  const path = { params: { path: { ref: ref(), id: String(table.id) } } };

  useEffect(() => setSelected(new Set()), [table.id, filters, order]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && (e.key === 'n' || e.key === 'N')) {
        e.preventDefault();
        setModal({ kind: 'row' });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const sort = (column: string) => setOrder((o) => {
    const now = o.find((x) => x.column === column);
    return !now ? [{ column, ascending: true }] : now.ascending ? [{ column, ascending: false }] : [];
  });
  /** A change to the table, previewed first. */
  const alter = async (title: string, body: { rls_enabled?: boolean; realtime?: boolean }) => {
    const { sql } = await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: { ...body, preview: true } }));
    setModal({ kind: 'sql', title, sql, run: async () => {
      await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body }));
      onChanged();
    } });
  };
  const drop = async () => {
    const { sql } = await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: { preview: true } }));
    setModal({ kind: 'sql', title: `Delete ${table.schema}.${table.name} and every row in it`, sql, danger: true, run: async () => {
      await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: {} }));
      notify(`Table ${table.name} deleted`);
      onDropped();
    } });
  };
  const selectedRows = [...selected].map((i) => data.rows[i]).filter((r): r is Row => !!r);

  return (
    <section className="table-view" aria-labelledby="table-title">
      <div className="page-header">
        <h1 id="table-title">{table.schema}.{table.name}</h1>
        <span className="muted">{data.count !== null ? plural(data.count, 'row') : `about ${plural(Math.max(data.estimate, table.live_rows_estimate), 'row')}`}</span>
      </div>
      {table.exposed && !table.rls_enabled && (
        <div className="warning" role="note">
          <strong>Row level security is off.</strong> REST serves this table: anyone holding the anon key can read and change every row.
          <button type="button" onClick={() => void alter(`Enable row level security on ${table.name}`, { rls_enabled: true }).catch((e: Error) => notify(e.message, 'error'))}>Enable RLS</button>
        </div>
      )}
      {!editable && <p className="muted">This table has no primary key: its rows cannot be edited here (use the SQL editor, or add one).</p>}
      <div className="toolbar" role="toolbar" aria-label="Table actions">
        <button type="button" className="primary" onClick={() => setModal({ kind: 'row' })} aria-keyshortcuts="Alt+N">Insert row</button>
        <button type="button" disabled={selectedRows.length !== 1} onClick={() => setModal({ kind: 'row', from: selectedRows[0] })}>Duplicate row</button>
        <button type="button" disabled={selectedRows.length === 0 || !editable} onClick={() => setModal({ kind: 'delete-rows' })}>Delete {selectedRows.length || ''} row{selectedRows.length === 1 ? '' : 's'}</button>
        <button type="button" onClick={() => setModal({ kind: 'column' })}>Add column</button>
        <button type="button" onClick={() => setModal({ kind: 'import' })}>Import CSV</button>
        <a className="button" href={`/api/platform/pg-meta/${ref()}/tables/${table.id}/rows/export?format=csv&filters=${encodeURIComponent(JSON.stringify(filters))}&order=${encodeURIComponent(JSON.stringify(order))}`} download>Export CSV</a>
        <a className="button" href={`/api/platform/pg-meta/${ref()}/tables/${table.id}/rows/export?format=json&filters=${encodeURIComponent(JSON.stringify(filters))}&order=${encodeURIComponent(JSON.stringify(order))}`} download>Export JSON</a>
        <button type="button" onClick={() => void alter(`${table.rls_enabled ? 'Disable' : 'Enable'} row level security`, { rls_enabled: !table.rls_enabled }).catch((e: Error) => notify(e.message, 'error'))}>{table.rls_enabled ? 'Disable RLS' : 'Enable RLS'}</button>
        <button type="button" onClick={() => void alter(`${table.realtime ? 'Stop' : 'Start'} sending changes over realtime`, { realtime: !table.realtime }).catch((e: Error) => notify(e.message, 'error'))}>Realtime {table.realtime ? 'on' : 'off'}</button>
        <button type="button" className="danger" onClick={() => void drop().catch((e: Error) => notify(e.message, 'error'))}>Delete table</button>
      </div>
      <FilterBar columns={columns} onApply={setFilters} />
      <ErrorNote error={data.error} />
      <DataGrid label={`Rows of ${table.name}`} columns={columns} rows={data.rows} total={data.count} more={data.more} filtered={filters.length > 0} order={order} editable={editable}
        selected={selected} onSelect={(i, on) => setSelected((s) => { const n = new Set(s); if (on) n.add(i); else n.delete(i); return n; })}
        onSort={sort} onNear={data.near}
        onSave={async (index, column, value) => {
          const row = data.rows[index]!;
          const saved = await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}/rows', { ...path, body: { key: keyOf(table, row), changes: { [column.name]: value } } }));
          data.replace(index, saved);
          notify(`${column.name} saved`);
        }} />
      {modal?.kind === 'row' && <RowForm title={modal.from ? 'Duplicate row' : `New row in ${table.name}`} columns={columns} from={modal.from} onClose={() => setModal(undefined)} onSave={async (row) => {
        await must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/rows', { ...path, body: { rows: [row] } }));
        notify('Row added');
        data.reload();
        onChanged();
      }} />}
      {modal?.kind === 'column' && <ColumnForm table={table} tables={tables} onClose={() => setModal(undefined)} onDone={() => { onChanged(); data.reload(); }} />}
      {modal?.kind === 'import' && <CsvImport table={table} onClose={() => setModal(undefined)} onDone={(n) => { notify(`${n.toLocaleString()} rows imported`); data.reload(); onChanged(); }} />}
      {modal?.kind === 'delete-rows' && <ConfirmDialog title={`Delete ${selectedRows.length} row${selectedRows.length === 1 ? '' : 's'}`} message={`The selected rows of ${table.name} will be deleted. This cannot be undone.`} action="Delete rows" onClose={() => setModal(undefined)}
        onConfirm={async () => {
          await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}/rows', { ...path, body: { keys: selectedRows.map((r) => keyOf(table, r)) } }));
          notify('Rows deleted');
          data.reload();
          onChanged();
        }} />}
      {modal?.kind === 'sql' && <SqlPreviewDialog title={modal.title} sql={modal.sql} {...(modal.danger ? { danger: true } : {})} onRun={modal.run} onClose={() => setModal(undefined)} />}
    </section>
  );
}
