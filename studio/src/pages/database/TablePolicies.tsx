// One table's row level security: on or off, and its policies, each editable
// and droppable (both previewed as SQL). `match` narrows the list (a bucket's
// policies on storage.objects).
import { useState } from 'react';
import { api, must, ref, type components } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { PolicyForm } from './PolicyForm.tsx';

type Table = components['schemas']['Table'];
type Policy = components['schemas']['Policy'];

export function TablePolicies({ table, onChanged, match }: { table: Table; onChanged: () => void; match?: (p: Policy) => boolean }) {
  const policies = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/policies', { params: { path: { ref: ref() }, query: { table_id: String(table.id) } } })), [table.id]);
  const [form, setForm] = useState<{ editing?: Policy }>();
  const [change, setChange] = useState<{ title: string; sql: string; run: () => Promise<void>; danger: boolean }>();
  const [error, setError] = useState<Error>();
  const path = { params: { path: { ref: ref(), id: String(table.id) } } };
  const reload = () => { policies.reload(); onChanged(); };

  const toggleRls = async () => {
    try {
      const body = { rls_enabled: !table.rls_enabled };
      const { sql } = await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body: { ...body, preview: true } }));
      setChange({ title: `${table.rls_enabled ? 'Disable' : 'Enable'} row level security on ${table.name}`, sql, danger: table.rls_enabled, run: async () => { await must(api.PATCH('/api/platform/pg-meta/{ref}/tables/{id}', { ...path, body })); reload(); } });
    } catch (e) {
      setError(e as Error);
    }
  };
  const drop = async (p: Policy) => {
    try {
      const dp = { params: { path: { ...path.params.path, name: p.name } } };
      const { sql } = await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}/policies/{name}', { ...dp, body: { preview: true } }));
      setChange({ title: `Drop policy ${p.name}`, sql, danger: true, run: async () => { await must(api.DELETE('/api/platform/pg-meta/{ref}/tables/{id}/policies/{name}', { ...dp, body: {} })); reload(); } });
    } catch (e) {
      setError(e as Error);
    }
  };
  const shown = (policies.value ?? []).filter((p) => !match || match(p));

  return (
    <section className="card" aria-labelledby={`policies-${table.id}`}>
      <div className="card-head">
        <h2 id={`policies-${table.id}`} className="card-title">{table.schema}.{table.name}</h2>
        <span className={table.rls_enabled ? 'badge badge-ok' : 'badge badge-warn'}>RLS {table.rls_enabled ? 'on' : 'off'}</span>
        <button type="button" onClick={() => void toggleRls()}>{table.rls_enabled ? 'Disable RLS' : 'Enable RLS'}</button>
        <button type="button" className="primary" onClick={() => setForm({})}>New policy</button>
      </div>
      {!table.rls_enabled && table.exposed && <p className="warning" role="note">Row level security is off: the anon key reads and changes every row, whatever the policies say.</p>}
      <ErrorNote error={policies.error ?? error} />
      {shown.length === 0 ? <p className="muted small">No policies{table.rls_enabled ? ': nobody but the service role reaches a row.' : '.'}</p> : (
        <table className="list-table">
          <caption className="sr-only">Policies of {table.name}</caption>
          <thead><tr><th scope="col">Policy</th><th scope="col">Command</th><th scope="col">Roles</th><th scope="col">Using</th><th scope="col">With check</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {shown.map((p) => (
              <tr key={p.id}>
                <td>{p.name}{p.action === 'RESTRICTIVE' ? <span className="badge">restrictive</span> : null}</td>
                <td>{p.command}</td>
                <td>{p.roles.join(', ')}</td>
                <td className="mono small">{p.definition ?? ''}</td>
                <td className="mono small">{p.check ?? ''}</td>
                <td className="actions">
                  <button type="button" onClick={() => setForm({ editing: p })}>Edit</button>
                  <button type="button" className="danger" onClick={() => void drop(p)}>Drop</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {form && <PolicyForm tableId={table.id} tableName={table.name} editing={form.editing} onClose={() => setForm(undefined)} onDone={reload} />}
      {change && <SqlPreviewDialog title={change.title} sql={change.sql} danger={change.danger} onClose={() => setChange(undefined)} onRun={change.run} />}
    </section>
  );
}
