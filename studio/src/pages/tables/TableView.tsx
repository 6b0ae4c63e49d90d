// One table (/tables/<schema>/<table>?view=rows|structure|policies): its
// warning when REST serves it with row level security off, the changes to
// the whole table (each previewed as SQL), and its rows, its structure or
// its policies; the view is in the URL, so it can be bookmarked.
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, must, ref } from '../../api/client.ts';
import { useToast } from '../../app/toasts.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { TablePolicies } from '../database/TablePolicies.tsx';
import { TableRows } from './TableRows.tsx';
import { TableStructure } from './TableStructure.tsx';
import type { Table } from './values.ts';

const VIEWS = [['rows', 'Rows'], ['structure', 'Structure'], ['policies', 'Policies']] as const;
type Change = { title: string; sql: string; run: () => Promise<void>; danger?: boolean };

export function TableView({ table, tables, onChanged, onDropped }: { table: Table; tables: Table[]; onChanged: () => void; onDropped: () => void }) {
  const notify = useToast();
  const [params] = useSearchParams();
  const view = VIEWS.find(([id]) => id === params.get('view'))?.[0] ?? 'rows';
  const [count, setCount] = useState('');
  const [change, setChange] = useState<Change>();
  const path = { params: { path: { ref: ref(), id: String(table.id) } } };

  /** A change to the table, previewed first. */
  const alter = async (title: string, body: { rls_enabled?: boolean; realtime?: boolean }) => {
    const { sql } = await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: { ...body, preview: true } }));
    setChange({ title, sql, run: async () => {
      await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body }));
      onChanged();
    } });
  };
  const drop = async () => {
    const { sql } = await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: { preview: true } }));
    setChange({ title: `Delete ${table.schema}.${table.name} and every row in it`, sql, danger: true, run: async () => {
      await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: {} }));
      notify(`Table ${table.name} deleted`);
      onDropped();
    } });
  };
  const failed = (e: Error) => notify(e.message, 'error');

  return (
    <section className="table-view" aria-labelledby="table-title">
      <div className="page-header">
        <h1 id="table-title">{table.schema}.{table.name}</h1>
        {view === 'rows' && <span className="muted">{count}</span>}
      </div>
      {table.exposed && !table.rls_enabled && (
        <div className="warning" role="note">
          <strong>Row level security is off.</strong> REST serves this table: anyone holding the anon key can read and change every row.
          <button type="button" onClick={() => void alter(`Enable row level security on ${table.name}`, { rls_enabled: true }).catch(failed)}>Enable RLS</button>
        </div>
      )}
      <div className="view-bar">
        <nav className="view-links" aria-label="Table views">
          {VIEWS.map(([id, label]) => <Link key={id} to={`?view=${id}`} className={view === id ? 'view-link active' : 'view-link'} aria-current={view === id ? 'page' : undefined}>{label}</Link>)}
        </nav>
        <div className="toolbar" role="toolbar" aria-label="Table actions">
          <button type="button" onClick={() => void alter(`${table.rls_enabled ? 'Disable' : 'Enable'} row level security`, { rls_enabled: !table.rls_enabled }).catch(failed)}>{table.rls_enabled ? 'Disable RLS' : 'Enable RLS'}</button>
          <button type="button" aria-pressed={table.realtime} onClick={() => void alter(`${table.realtime ? 'Stop' : 'Start'} sending changes over realtime`, { realtime: !table.realtime }).catch(failed)}>Realtime {table.realtime ? 'on' : 'off'}</button>
          <button type="button" className="danger" onClick={() => void drop().catch(failed)}>Delete table</button>
        </div>
      </div>
      {view === 'rows' && <TableRows table={table} tables={tables} onChanged={onChanged} onCount={setCount} />}
      {view === 'structure' && <TableStructure table={table} tables={tables} onChanged={onChanged} />}
      {view === 'policies' && <TablePolicies table={table} onChanged={onChanged} />}
      {change && <SqlPreviewDialog title={change.title} sql={change.sql} {...(change.danger ? { danger: true } : {})} onRun={change.run} onClose={() => setChange(undefined)} />}
    </section>
  );
}
