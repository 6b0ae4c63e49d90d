// Lints a DBA wants on one page, each with its fix as SQL, run after a look.
import { useState } from 'react';
import { api, must, ref } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { SqlPreviewDialog } from '../../components/SqlPreviewDialog.tsx';
import { CodeBlock } from '../../components/CodeBlock.tsx';

export function Advisors() {
  const list = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/advisors', { params: { path: { ref: ref() } } })), []);
  const [fixing, setFixing] = useState<{ title: string; fix: string }>();
  return (
    <>
      <PageHeader title="Advisors" />
      <p className="muted">What the database would be better without. The platform&apos;s own schemas are left out.</p>
      <ErrorNote error={list.error} />
      {list.loading && !list.value ? <Loading what="advisors" /> : list.value?.length === 0 ? <p>Nothing to report.</p> : (
        <ul className="card-list">
          {list.value?.map((a, i) => (
            <li key={i} className={`card level-${a.level}`}>
              <h2 className="card-title"><span className={`badge badge-${a.level}`}>{a.level}</span> {a.title}</h2>
              <p className="mono">{a.object}</p>
              <p>{a.detail}</p>
              <CodeBlock className="sql-preview" label={`The fix for ${a.title}`}>{a.fix}</CodeBlock>
              <button type="button" onClick={() => setFixing({ title: a.title, fix: a.fix })}>Apply fix</button>
            </li>
          ))}
        </ul>
      )}
      {fixing && <SqlPreviewDialog title={`Fix: ${fixing.title}`} sql={fixing.fix} onClose={() => setFixing(undefined)} onRun={async () => {
        await must(api.POST('/api/platform/pg-meta/{ref}/query', { params: { path: { ref: ref() } }, body: { query: fixing.fix } }));
        list.reload();
      }} />}
    </>
  );
}
