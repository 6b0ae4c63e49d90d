// Extensions available on this server: enable one (into schema extensions,
// as Supabase does) or disable it, each previewed as SQL.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';

export function Extensions() {
  const [search, setSearch] = useState('');
  const [change, setChange] = useState<{ title: string; sql: string; run: () => Promise<void>; danger: boolean }>();
  const [error, setError] = useState<Error>();
  const list = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/extensions', { params: { path: { ref: ref() } } })), []);
  const path = { params: { path: { ref: ref() } } };
  const toggle = async (name: string, on: boolean) => {
    try {
      if (on) {
        const { sql } = await must(api.POST('/api/platform/pg-meta/{ref}/extensions', { ...path, body: { name, preview: true } }));
        setChange({ title: `Enable ${name}`, sql, danger: false, run: async () => { await must(api.POST('/api/platform/pg-meta/{ref}/extensions', { ...path, body: { name } })); list.reload(); } });
      } else {
        const p = { params: { path: { ref: ref(), name } } };
        const { sql } = await must(api.DELETE('/api/platform/pg-meta/{ref}/extensions/{name}', { ...p, body: { preview: true } }));
        setChange({ title: `Disable ${name}`, sql, danger: true, run: async () => { await must(api.DELETE('/api/platform/pg-meta/{ref}/extensions/{name}', { ...p, body: {} })); list.reload(); } });
      }
    } catch (e) {
      setError(e as Error);
    }
  };
  const shown = (list.value ?? []).filter((e) => e.name.includes(search.toLowerCase()));
  return (
    <>
      <PageHeader title="Extensions">
        <label>Search<input type="search" data-shortcut="search" value={search} onChange={(e) => setSearch(e.target.value)} /></label>
      </PageHeader>
      <ErrorNote error={list.error ?? error} />
      {list.loading && !list.value ? <Loading what="extensions" /> : (
        <table className="list-table">
          <caption className="sr-only">Extensions</caption>
          <thead><tr><th scope="col">Extension</th><th scope="col">Installed</th><th scope="col">Schema</th><th scope="col">About</th><th scope="col"><span className="sr-only">Action</span></th></tr></thead>
          <tbody>
            {shown.map((e) => (
              <tr key={e.name}>
                <td className="mono">{e.name}</td>
                <td>{e.installed_version ?? <span className="muted">no (available {e.default_version})</span>}</td>
                <td>{e.schema ?? ''}</td>
                <td className="small">{e.comment}</td>
                <td><button type="button" onClick={() => void toggle(e.name, !e.installed_version)}>{e.installed_version ? 'Disable' : 'Enable'}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {change && <SqlPreviewDialog title={change.title} sql={change.sql} danger={change.danger} onClose={() => setChange(undefined)} onRun={change.run} />}
    </>
  );
}
