// A table's rows: filters, the row actions, and the grid, edited in place.
// Alt+N adds a row.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useToast } from '../../app/toasts.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { ColumnForm } from './ColumnForm.tsx';
import { CsvImport } from './CsvImport.tsx';
import { DataGrid } from './DataGrid.tsx';
import { FilterBar } from './FilterBar.tsx';
import { RowForm } from './RowForm.tsx';
import { useRows, type Filter, type Order } from './useRows.ts';
import { keyOf, plural, type Column, type Row, type Table } from './values.ts';

type Modal = { kind: 'row'; from?: Row | undefined } | { kind: 'column' } | { kind: 'import' } | { kind: 'delete-rows' };

export function TableRows({ table, tables, onChanged, onCount }: { table: Table; tables: Table[]; onChanged: () => void; onCount: (text: string) => void }) {
  const notify = useToast();
  const [filters, setFilters] = useState<Filter[]>([]);
  const [order, setOrder] = useState<Order[]>([]);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [modal, setModal] = useState<Modal>();
  const data = useRows(table.id, filters, order);
  const columns = table.columns ?? [];
  const editable = table.primary_keys.length > 0;
  const path = { params: { path: { ref: ref(), id: String(table.id) } } };
  const exportUrl = (format: 'csv' | 'json') => `/api/platform/pg-meta/${ref()}/tables/${table.id}/rows/export?format=${format}&filters=${encodeURIComponent(JSON.stringify(filters))}&order=${encodeURIComponent(JSON.stringify(order))}`;

  useEffect(() => setSelected(new Set()), [table.id, filters, order]);
  useEffect(() => onCount(data.count !== null ? plural(data.count, 'row') : `about ${plural(Math.max(data.estimate, table.live_rows_estimate), 'row')}`), [data.count, data.estimate, table.live_rows_estimate]); // eslint-disable-line react-hooks/exhaustive-deps
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
  // Stable across renders: the grid's rows are memoised on them.
  const rowsNow = useRef(data.rows);
  rowsNow.current = data.rows;
  const { replace } = data;
  const select = useCallback((i: number, on: boolean) => setSelected((s) => {
    const n = new Set(s);
    if (on) n.add(i);
    else n.delete(i);
    return n;
  }), []);
  const saveCell = useCallback(async (index: number, column: Column, value: unknown) => {
    const row = rowsNow.current[index]!;
    const saved = await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}/rows', { params: { path: { ref: ref(), id: String(table.id) } }, body: { key: keyOf(table, row), changes: { [column.name]: value } } }));
    replace(index, saved);
    notify(`${column.name} saved`);
  }, [table, replace, notify]);
  const selectedRows = [...selected].map((i) => data.rows[i]).filter((r): r is Row => !!r);
  const changed = () => {
    data.reload();
    onChanged();
  };

  return (
    <>
      {!editable && <p className="muted">This table has no primary key: its rows cannot be edited here (use the SQL editor, or add one).</p>}
      <div className="toolbar" role="toolbar" aria-label="Row actions">
        <button type="button" className="primary" onClick={() => setModal({ kind: 'row' })} aria-keyshortcuts="Alt+N">Insert row</button>
        <button type="button" disabled={selectedRows.length !== 1} onClick={() => setModal({ kind: 'row', from: selectedRows[0] })}>Duplicate row</button>
        <button type="button" disabled={selectedRows.length === 0 || !editable} onClick={() => setModal({ kind: 'delete-rows' })}>Delete {selectedRows.length || ''} row{selectedRows.length === 1 ? '' : 's'}</button>
        <button type="button" onClick={() => setModal({ kind: 'column' })}>Add column</button>
        <button type="button" onClick={() => setModal({ kind: 'import' })}>Import CSV</button>
        <a className="button" href={exportUrl('csv')} download>Export CSV</a>
        <a className="button" href={exportUrl('json')} download>Export JSON</a>
      </div>
      <FilterBar columns={columns} onApply={setFilters} />
      <ErrorNote error={data.error} />
      <DataGrid label={`Rows of ${table.name}`} columns={columns} rows={data.rows} total={data.count} more={data.more} filtered={filters.length > 0} order={order} editable={editable}
        selected={selected} onSelect={select} onSort={sort} onNear={data.near} onSave={saveCell} />
      {modal?.kind === 'row' && <RowForm title={modal.from ? 'Duplicate row' : `New row in ${table.name}`} columns={columns} from={modal.from} onClose={() => setModal(undefined)} onSave={async (row) => {
        await must(api.POST('/api/platform/pg-meta/{ref}/tables/{id}/rows', { ...path, body: { rows: [row] } }));
        notify('Row added');
        changed();
      }} />}
      {modal?.kind === 'column' && <ColumnForm table={table} tables={tables} onClose={() => setModal(undefined)} onDone={changed} />}
      {modal?.kind === 'import' && <CsvImport table={table} onClose={() => setModal(undefined)} onDone={(n) => { notify(`${n.toLocaleString()} rows imported`); changed(); }} />}
      {modal?.kind === 'delete-rows' && <ConfirmDialog title={`Delete ${plural(selectedRows.length, 'row')}`} message={`The selected rows of ${table.name} will be deleted. This cannot be undone.`} action="Delete rows" onClose={() => setModal(undefined)}
        onConfirm={async () => {
          await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}/rows', { ...path, body: { keys: selectedRows.map((r) => keyOf(table, r)) } }));
          notify('Rows deleted');
          changed();
        }} />}
    </>
  );
}
