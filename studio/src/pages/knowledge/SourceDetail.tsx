// One source: its extraction status (live while it runs), metadata,
// re-extract and cancel, the extracted markdown (as text), and its pages as
// images with their text blocks outlined.
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { Markdown } from '../../components/Markdown.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { KnowledgeNav } from './KnowledgeNav.tsx';
import { PageViewer } from './PageViewer.tsx';
import { BUSY } from './Sources.tsx';
import { SourceStatus } from './SourceStatus.tsx';

export default function SourceDetail() {
  const { id = '' } = useParams();
  const source = useAsync(() => must(ai.GET('/api/sources/{id}', { params: { path: { id } } })), [id]);
  const busy = source.value ? BUSY.has(source.value.extraction_status) : false;
  useEffect(() => {
    if (!busy) return;
    const t = setInterval(source.reload, 1000);
    return () => clearInterval(t);
  }, [busy, source.reload]);
  const extracted = source.value?.extraction_status === 'extracted';
  const markdown = useAsync(async () => {
    if (!extracted) return null;
    const r = await ai.GET('/api/sources/{id}/derivatives/{type}/download', { params: { path: { id, type: 'markdown' } }, parseAs: 'text' });
    return r.response.ok ? String(r.data) : null;
  }, [id, extracted]);
  const [page, setPage] = useState(1);
  const notify = useToast();
  const act = (what: () => Promise<unknown>, done: string) => void what().then(() => { notify(done); source.reload(); }, (e: Error) => notify(e.message, 'error'));
  const s = source.value;
  const pages = s?.progress.pages_total ?? 0;
  return (
    <div className="split">
      <KnowledgeNav />
      <div className="split-main">
        {!s ? (source.error ? <ErrorNote error={source.error} /> : <Loading what="the source" />) : (
          <>
            <div className="page-header">
              <h1><Link to="/knowledge/sources">Sources</Link> / {s.name}</h1>
              <div className="page-actions">
                <SourceStatus source={s} />
                {busy && <button type="button" onClick={() => act(() => must(ai.POST('/api/sources/{id}/cancel', { params: { path: { id } } })), 'Extraction cancelled')}>Cancel extraction</button>}
                {!busy && <button type="button" onClick={() => act(() => must(ai.POST('/api/sources/{id}/reextract', { params: { path: { id } }, body: {} })), 'Extraction started again')}>Re-extract</button>}
              </div>
            </div>
            {busy && pages > 0 && <progress max={pages} value={s.progress.pages_done} aria-label="Extraction progress" />}
            {s.extraction_message && <p className="warning">{s.extraction_message}</p>}
            <dl className="facts">
              <div><dt>Type</dt><dd>{s.extension} ({s.content_type})</dd></div>
              <div><dt>Size</dt><dd>{s.size_bytes} bytes</dd></div>
              <div><dt>Engine</dt><dd>{s.extraction_model}</dd></div>
              <div><dt>Metadata</dt><dd><code>{JSON.stringify(s.metadata)}</code></dd></div>
            </dl>
            {extracted && pages > 0 && (
              <section aria-labelledby="pages-title">
                <h2 id="pages-title">Pages</h2>
                <label className="inline-group">Page
                  <select value={page} onChange={(e) => setPage(Number(e.target.value))}>
                    {Array.from({ length: pages }, (_, i) => <option key={i} value={i + 1}>{i + 1}</option>)}
                  </select>
                </label>
                <PageViewer sourceId={id} page={page} />
              </section>
            )}
            {markdown.value && (
              <details>
                <summary>Extracted markdown</summary>
                <Markdown className="page-text" label="Extracted markdown" text={markdown.value} />
              </details>
            )}
          </>
        )}
      </div>
    </div>
  );
}
