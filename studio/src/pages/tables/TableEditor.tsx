// The table editor: a schema's tables on the left, the chosen one (its URL,
// /tables/<schema>/<table>) on the right.
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { TableForm } from './TableForm.tsx';
import { TableList } from './TableList.tsx';
import { TableView } from './TableView.tsx';

export default function TableEditor() {
  const params = useParams();
  const navigate = useNavigate();
  const schema = params.schema ?? 'public';
  const [creating, setCreating] = useState(false);
  const schemas = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/schemas', { params: { path: { ref: ref() } } })), []);
  const tables = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/tables', { params: { path: { ref: ref() }, query: { schema, include_columns: 'true' } } })), [schema]);
  const table = tables.value?.find((t) => t.name === params.table);
  // The moment the table list is usable, for `npm run bench:studio` (a Performance API mark).
  const listed = tables.value !== undefined;
  useEffect(() => {
    if (listed && performance.getEntriesByName('studio-tables-ready').length === 0) performance.mark('studio-tables-ready');
  }, [listed]);

  return (
    <div className="split">
      <TableList schemas={schemas.value ?? []} schema={schema} tables={tables.value ?? []} onSchema={(s) => navigate(`/tables/${encodeURIComponent(s)}`)} onNew={() => setCreating(true)} />
      <div className="split-main">
        <ErrorNote error={schemas.error ?? tables.error} />
        {tables.loading && !tables.value ? <Loading what="tables" /> : table ? (
          <TableView key={table.id} table={table} tables={tables.value ?? []} onChanged={tables.reload} onDropped={() => { tables.reload(); navigate(`/tables/${encodeURIComponent(schema)}`); }} />
        ) : (
          <div className="empty">
            <h1>Table editor</h1>
            <p>{params.table ? `No table ${params.table} in ${schema}.` : 'Choose a table, or make a new one.'}</p>
          </div>
        )}
      </div>
      {creating && <TableForm schema={schema} tables={tables.value ?? []} onClose={() => setCreating(false)} onDone={(name) => { tables.reload(); navigate(`/tables/${encodeURIComponent(schema)}/${encodeURIComponent(name)}`); }} />}
    </div>
  );
}
