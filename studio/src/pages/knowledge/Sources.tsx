// The project's sources: uploaded by drag and drop, or imported from
// storage or web addresses; each with its extraction status and progress,
// refreshed while any is still being extracted.
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ai, must } from '../../api/client.ts';
import { useAction } from '../../app/useAction.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { KnowledgeNav } from './KnowledgeNav.tsx';
import { SourceStatus } from './SourceStatus.tsx';
import { SourceUpload } from './SourceUpload.tsx';

export const BUSY = new Set(['pending', 'extracting']);

export default function Sources() {
  const list = useAsync(() => must(ai.GET('/api/sources')), []);
  const busy = list.value?.some((s) => BUSY.has(s.extraction_status)) ?? false;
  useEffect(() => {
    if (!busy) return;
    const t = setInterval(list.reload, 1000);
    return () => clearInterval(t);
  }, [busy, list.reload]);
  const [urls, setUrls] = useState('');
  const [bucket, setBucket] = useState('');
  const [path, setPath] = useState('');
  const { error, run } = useAction();
  const act = (e: FormEvent, what: () => Promise<unknown>) => {
    e.preventDefault();
    return run(what, list.reload);
  };
  return (
    <div className="split">
      <KnowledgeNav />
      <div className="split-main">
        <PageHeader title="Sources" />
        <SourceUpload onUploaded={list.reload} />
        <details>
          <summary>Import from web addresses or storage</summary>
          <form className="field-row" onSubmit={(e) => void act(e, () => must(ai.POST('/api/sources/import-url', { body: { mode: 'urls', urls: urls.split(/\s+/).filter(Boolean) } })))}>
            <label>Web addresses (one per line)<textarea rows={2} value={urls} onChange={(e) => setUrls(e.target.value)} /></label>
            <button type="submit">Import pages</button>
          </form>
          <form className="field-row" onSubmit={(e) => void act(e, () => must(ai.POST('/api/sources/import-from-storage', { body: { bucket, path } })))}>
            <label>Bucket<input value={bucket} onChange={(e) => setBucket(e.target.value)} /></label>
            <label>Path<input value={path} onChange={(e) => setPath(e.target.value)} /></label>
            <button type="submit">Import object</button>
          </form>
        </details>
        <ErrorNote error={error ?? list.error} />
        <table className="list-table">
          <caption className="sr-only">Sources</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Size</th><th scope="col">Extraction</th><th scope="col">Added</th></tr></thead>
          <tbody>
            {list.value?.map((s) => (
              <tr key={s.id}>
                <td><Link to={`/knowledge/sources/${s.id}`}>{s.name}</Link></td>
                <td>{s.extension}</td>
                <td className="num">{(s.size_bytes / 1024).toFixed(1)} KB</td>
                <td><SourceStatus source={s} /></td>
                <td>{new Date(s.created_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
