// A bucket's files, one folder at a time (the folder is in the URL), with
// breadcrumbs, sorting, search, uploads, and per file: preview, download,
// rename or move, a link, delete. The bucket's policies on storage.objects
// follow.
import { useState } from 'react';
import { Link } from 'react-router';
import { api, must, ref, type components } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { useToast } from '../../app/toasts.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ErrorNote } from '../../components/ErrorNote.tsx';
import { Loading } from '../../components/Loading.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { TablePolicies } from '../database/TablePolicies.tsx';
import { MoveDialog } from './MoveDialog.tsx';
import { objectUrl } from './paths.ts';
import { Preview } from './Preview.tsx';
import { Uploader } from './Uploader.tsx';
import { UrlDialog } from './UrlDialog.tsx';

type Entry = components['schemas']['StorageObject'];
type Sort = 'name' | 'updated_at' | 'created_at';
const size = (e: Entry) => Number((e.metadata as { size?: number } | null)?.size ?? 0);
/** 203 B, 1.5 KB, 20.0 MB. */
const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${(n / 1024 ** 3).toFixed(1)} GB`);
const typeOf = (e: Entry) => String((e.metadata as { mimetype?: string } | null)?.mimetype ?? '');

export function FileBrowser({ bucket, prefix }: { bucket: string; prefix: string }) {
  const notify = useToast();
  const [sort, setSort] = useState<{ column: Sort; order: 'asc' | 'desc' }>({ column: 'name', order: 'asc' });
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<Entry>();
  const [modal, setModal] = useState<{ kind: 'move' | 'url' | 'delete'; name: string }>();
  const info = useAsync(() => must(api.GET('/api/platform/storage/{ref}/v1/bucket', { params: { path: { ref: ref() } } })).then((all) => all.find((b) => b.id === bucket)), [bucket]);
  const list = useAsync(() => must(api.POST('/api/platform/storage/{ref}/v1/object/list/{bucket}', { params: { path: { ref: ref(), bucket } }, body: { prefix, limit: 1000, offset: 0, search, sortBy: sort } })), [bucket, prefix, search, sort.column, sort.order]);
  const objectsTable = useAsync(() => must(api.GET('/api/platform/pg-meta/{ref}/tables', { params: { path: { ref: ref() }, query: { schema: 'storage' } } })).then((t) => t.find((x) => x.name === 'objects')), []);
  const crumbs = prefix.split('/').filter(Boolean);
  const folderUrl = (depth: number) => `/storage/${encodeURIComponent(bucket)}/${crumbs.slice(0, depth).map(encodeURIComponent).join('/')}${depth ? '/' : ''}`;
  const toggleSort = (column: Sort) => setSort((s) => ({ column, order: s.column === column && s.order === 'asc' ? 'desc' : 'asc' }));
  const ariaSort = (column: Sort) => (sort.column === column ? (sort.order === 'asc' ? 'ascending' : 'descending') : 'none');

  return (
    <>
      <PageHeader title={`Bucket ${bucket}`}>
        {info.value?.public && <span className="badge badge-warn">public</span>}
      </PageHeader>
      <nav aria-label="Folder" className="breadcrumbs">
        <ol>
          <li><Link to="/storage">Buckets</Link></li>
          <li><Link to={folderUrl(0)}>{bucket}</Link></li>
          {crumbs.map((c, i) => <li key={i}><Link to={folderUrl(i + 1)} aria-current={i === crumbs.length - 1 ? 'page' : undefined}>{c}</Link></li>)}
        </ol>
      </nav>
      <Uploader bucket={bucket} prefix={prefix} onUploaded={list.reload} />
      <label>Search this folder<input type="search" data-shortcut="search" value={search} onChange={(e) => setSearch(e.target.value)} /></label>
      <ErrorNote error={list.error} />
      <div className="browser">
        {list.loading && !list.value ? <Loading what="files" /> : (
          <table className="list-table files">
            <caption className="sr-only">Files in {prefix || 'the bucket\'s top folder'}</caption>
            <thead>
              <tr>
                <th scope="col" aria-sort={ariaSort('name')}><button type="button" className="column-sort" onClick={() => toggleSort('name')}>Name</button></th>
                <th scope="col">Size</th><th scope="col">Type</th>
                <th scope="col" aria-sort={ariaSort('updated_at')}><button type="button" className="column-sort" onClick={() => toggleSort('updated_at')}>Changed</button></th>
                <th scope="col"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {(list.value ?? []).map((e) => e.id === null ? (
                <tr key={`dir-${e.name}`}><td colSpan={5}><Link to={`${folderUrl(crumbs.length)}${encodeURIComponent(e.name)}/`}>📁 {e.name}/</Link></td></tr>
              ) : (
                <tr key={e.name} className={open?.name === e.name ? 'selected' : undefined}>
                  <td><button type="button" className="link-button" onClick={() => setOpen(e)}>{e.name}</button></td>
                  <td title={`${size(e).toLocaleString()} bytes`}>{bytes(size(e))}</td>
                  <td className="small">{typeOf(e)}</td>
                  <td className="small">{e.updated_at ? new Date(e.updated_at).toLocaleString() : ''}</td>
                  <td className="actions">
                    <a className="button" href={objectUrl(bucket, prefix + e.name, true)} download={e.name}>Download</a>
                    <button type="button" onClick={() => setModal({ kind: 'url', name: prefix + e.name })}>Get URL</button>
                    <button type="button" onClick={() => setModal({ kind: 'move', name: prefix + e.name })}>Move</button>
                    <button type="button" className="danger" onClick={() => setModal({ kind: 'delete', name: prefix + e.name })}>Delete</button>
                  </td>
                </tr>
              ))}
              {list.value?.length === 0 && <tr><td colSpan={5} className="muted">Nothing here{search ? ' matches' : ' yet: drop files above'}.</td></tr>}
            </tbody>
          </table>
        )}
        {open && (
          <aside className="preview-panel" aria-label={`Preview of ${open.name}`}>
            <div className="card-head"><h2 className="card-title">{open.name}</h2><button type="button" className="icon-button" aria-label="Close the preview" onClick={() => setOpen(undefined)}>×</button></div>
            <Preview bucket={bucket} name={prefix + open.name} type={typeOf(open)} />
          </aside>
        )}
      </div>
      {objectsTable.value && (
        <details className="bucket-policies">
          <summary>Policies of this bucket (on storage.objects)</summary>
          <TablePolicies table={objectsTable.value} onChanged={objectsTable.reload} match={(p) => `${p.definition ?? ''} ${p.check ?? ''}`.includes(`'${bucket}'`)} />
        </details>
      )}
      {modal?.kind === 'move' && <MoveDialog bucket={bucket} name={modal.name} onClose={() => setModal(undefined)} onDone={() => { notify('Moved'); list.reload(); }} />}
      {modal?.kind === 'url' && <UrlDialog bucket={bucket} name={modal.name} isPublic={!!info.value?.public} onClose={() => setModal(undefined)} />}
      {modal?.kind === 'delete' && <ConfirmDialog title={`Delete ${modal.name}`} message="The file is deleted. This cannot be undone." action="Delete file" onClose={() => setModal(undefined)}
        onConfirm={async () => {
          await must(api.DELETE('/api/platform/storage/{ref}/v1/object/{bucket}', { params: { path: { ref: ref(), bucket } }, body: { prefixes: [modal.name] } }));
          notify('Deleted');
          setOpen(undefined);
          list.reload();
        }} />}
    </>
  );
}
