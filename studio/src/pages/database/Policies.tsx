// Row level security across the user's tables: each table's switch and its
// policies (the platform's schemas are left to the platform).
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { TablePolicies } from './TablePolicies.tsx';

export function Policies() {
  const [search, setSearch] = useState('');
  const tables = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/tables', { params: { path: { ref: ref() } } })), []);
  const shown = (tables.value ?? []).filter((t) => !t.protected && `${t.schema}.${t.name}`.includes(search));
  return (
    <>
      <PageHeader title="Policies">
        <label>Search tables<input type="search" data-shortcut="search" value={search} onChange={(e) => setSearch(e.target.value)} /></label>
      </PageHeader>
      <ErrorNote error={tables.error} />
      {tables.loading && !tables.value ? <Loading what="tables" /> : shown.length === 0 ? <p>No tables of yours yet.</p> : (
        <div className="stack">{shown.map((t) => <TablePolicies key={t.id} table={t} onChanged={tables.reload} />)}</div>
      )}
    </>
  );
}
